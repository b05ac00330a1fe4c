/*-------------------------------------------------------------------------
 *
 * avroenc.h
 *		A record's Kafka Connect value, as JsonConverter writes it, encoded
 *		as Avro binary under the Avro schema the converter derived for it
 *		(avroschema.c), with the Apache Avro C library.
 *
 * The Avro output of cdc_kafka is made the way Debezium's is: the record is
 * the same Connect data, and a converter turns it into Avro.  Here the data
 * comes as the JSON payload the encoder already writes byte for byte as
 * JsonConverter would, read back with jsontree.c, and the converter is this
 * module: it walks the Avro schema and sets a libavro generic value from the
 * JSON (bytes from their base64, "NaN" and the infinities of floats from
 * their strings, unions by null or not), then asks libavro for the binary.
 * What the Confluent wire format adds around it (a zero byte and the
 * registry's schema id) is the caller's.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone
 * (with libavro).  libavro allocates with malloc; everything it holds for
 * one schema is released by avroenc_free.
 *
 * src/common/avroenc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_AVROENC_H
#define CDC_KAFKA_AVROENC_H

#include <stddef.h>

#include "common/jsontree.h"

/* One Avro schema made ready to encode values (opaque). */
typedef struct AvroEnc AvroEnc;

/*
 * Parse an Avro schema (JSON text of len bytes).  Returns NULL with a
 * one-line message in err (NUL-terminated, truncated to errlen) when
 * libavro refuses it or is out of memory.
 */
extern AvroEnc *avroenc_create(const char *schema_json, size_t len,
							   char *err, size_t errlen);

/*
 * Encode value, a Connect value as JsonConverter writes it, under the
 * schema.  On success returns the number of bytes of the Avro binary: when
 * it is at most cap they are in out, else nothing is written and the
 * caller calls again with a buffer that large.  Returns -1 with a message
 * naming the field when the value does not fit the schema.
 */
extern long avroenc_encode(AvroEnc *enc, const JsonTree *value, char *out,
						   size_t cap, char *err, size_t errlen);

extern void avroenc_free(AvroEnc *enc);

#endif							/* CDC_KAFKA_AVROENC_H */
