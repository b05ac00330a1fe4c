/*-------------------------------------------------------------------------
 *
 * textenc.h
 *		Text in the database encoding, written as UTF-8: JSON strings,
 *		database names and Kafka topic names.
 *
 * src/plugin/textenc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_TEXTENC_H
#define CDC_PLUGIN_TEXTENC_H

#include "lib/stringinfo.h"

extern void textenc_init(void);
extern const char *textenc_to_utf8(const char *s, size_t len, size_t *outlen);
extern char *textenc_name_utf8(const char *name);
extern void textenc_append_json(StringInfo buf, const char *s, size_t len);
extern void textenc_append_json_utf8(StringInfo buf, const char *s, size_t len);
extern void textenc_sanitize_topic(StringInfo buf, const char *name);
extern void textenc_sanitize_topic_utf8(StringInfo buf, const char *name);

#endif							/* CDC_PLUGIN_TEXTENC_H */
