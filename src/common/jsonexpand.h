/*-------------------------------------------------------------------------
 *
 * jsonexpand.h
 *		The outbox EventRouter's table.expand.json.payload=true: a JSON text
 *		expanded into a Kafka Connect struct schema inferred from it and the
 *		matching value, both written as Kafka Connect's JsonConverter writes
 *		them.
 *
 * Used by the outbox transform (src/plugin/outbox.c) on the string of the
 * outbox payload column.  It reproduces Debezium 3.6.1's JsonSchemaData
 * (toConnectSchema, toConnectData) applied to what Jackson's default
 * ObjectMapper.readTree makes of the text, and JsonConverter's schema and
 * value JSON.  Where Debezium's expansion throws (it then logs a warning and
 * keeps the string), jsonexpand_render fails and the caller keeps the string.
 * Debezium also "succeeds" with a top-level array or an empty result and
 * then cannot build the record; we fail there too.
 *
 * One known difference: in an array of objects, Debezium merges the distinct
 * struct schemas of the elements in a HashSet's iteration order (which
 * depends on identity hash codes, so it can change from run to run); we merge
 * them in array order (a field first seen in a later element is appended; a
 * field both have keeps the earlier schema unless that is bytes and the later
 * is not).  The fields of such a merged struct may therefore come in another
 * order than Debezium's.  Like Debezium, a merged struct (two or more
 * distinct element schemas) is not optional, so a null element then fails.
 *
 * Jackson's stream read constraints on string and name length (20,000,000
 * and 50,000 characters) are not checked; its nesting depth (1000) and
 * number length (1000) limits are.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/jsonexpand.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_JSONEXPAND_H
#define CDC_KAFKA_JSONEXPAND_H

#include <stdbool.h>
#include <stddef.h>

#include "common/nameadjust.h"

/* Memory for the parse tree and schemas: never NULL, never freed one by one. */
typedef void *(*JsonExpandAlloc) (void *arg, size_t size);

/* Appends len bytes of output. */
typedef void (*JsonExpandAppend) (void *arg, const char *data, size_t len);

typedef struct JsonExpandOut
{
	JsonExpandAppend append;
	void	   *arg;
	/* set by jsonexpand_render: nesting depth of the JSON written (1: {}) */
	int			depth;
} JsonExpandOut;

/*
 * Expand json (len bytes of UTF-8, no NUL needed) into a struct schema named
 * name (NUL-terminated, e.g. "payload") and its value.  null_as_optional_bytes
 * is table.json.payload.null.behavior=optional_bytes (JSON nulls get an
 * optional bytes schema instead of being left out); field_mode is
 * field.name.adjustment.mode, applied to every field name.
 *
 * Returns 0 after writing the schema JSON to schema_out and the value JSON to
 * value_out, and setting their depth.  Jackson refuses to write JSON nested
 * more than 1000 deep (StreamWriteConstraints), so JsonConverter fails on a
 * record where depth plus the levels around the schema or value exceeds
 * 1000: Debezium then stops on the record; the caller should keep the
 * string instead.  Returns -1 when Debezium would not expand the text, with a
 * one-line reason in err (NUL-terminated, truncated to errlen); whatever was
 * written to the outputs must then be ignored.
 */
extern int	jsonexpand_render(const char *json, size_t len, const char *name,
							  bool null_as_optional_bytes, NameAdjustMode field_mode,
							  JsonExpandAlloc alloc, void *alloc_arg,
							  JsonExpandOut *schema_out,
							  JsonExpandOut *value_out,
							  char *err, size_t errlen);

extern long jsonexpand_string(const char *json, size_t len, JsonExpandAlloc alloc,
							  void *alloc_arg, char **out);

#endif							/* CDC_KAFKA_JSONEXPAND_H */
