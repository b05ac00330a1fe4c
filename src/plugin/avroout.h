/*-------------------------------------------------------------------------
 *
 * avroout.h
 *		The Avro record format: keys and values in the Confluent wire
 *		format, their schemas in a schema registry.
 *
 * src/plugin/avroout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_AVROOUT_H
#define CDC_PLUGIN_AVROOUT_H

#include "lib/stringinfo.h"
#include "plugin/options.h"

/*
 * Replace the key (is_key) or value of topic's record that the encoder
 * wrote at buf->data[start..buf->len) as JsonConverter JSON with its schema
 * by its Confluent wire format: its bytes, or with as_text a JSON string of
 * their base64 (rows of JSON text).  The schema is registered at
 * opts->schema_registry_url the first time.  ERROR when the schema has no
 * Avro form, the registry cannot be reached or refuses it.
 */
extern char *avroout_replace(StringInfo buf, int start, const char *topic,
							 bool is_key, bool as_text, bool may_refuse,
							 const CdcOptions *opts);
extern const char *avroout_last_key(size_t *len);

/* Forget the registered schemas (a new decoding session registers again). */
extern void avroout_forget(void);

#endif							/* CDC_PLUGIN_AVROOUT_H */
