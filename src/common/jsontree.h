/*-------------------------------------------------------------------------
 *
 * jsontree.h
 *		A small strict JSON (RFC 8259) parser into a read-only tree.
 *
 * Used where cdc_kafka has to read JSON back: the Kafka Connect schema
 * JSON that the encoder wrote, turned into an Avro schema by avroschema.c,
 * and (later) one record payload per row for the Avro value encoder.  So it
 * is built for speed on small documents: one pass, no copies of strings
 * without escapes, every node from the caller's allocator, which is never
 * asked to free anything (the caller frees the whole tree at once, e.g. by
 * resetting a memory context).
 *
 * Objects keep their members in document order (a repeated name is kept
 * twice; lookups find the last one, as Jackson's readTree keeps it).
 * Strings are unescaped UTF-8 with an explicit length (they may contain NUL
 * and are not NUL-terminated; a string without escapes points into the
 * input, which must therefore outlive the tree).  Numbers keep their text
 * and, when they are integers that fit, their int64 value.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/jsontree.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_JSONTREE_H
#define CDC_KAFKA_JSONTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Memory for the tree: never returns NULL, never freed one by one. */
typedef void *(*JsonTreeAlloc) (void *arg, size_t size);

typedef enum JsonTreeKind
{
	JSONTREE_NULL,
	JSONTREE_BOOL,
	JSONTREE_NUMBER,
	JSONTREE_STRING,
	JSONTREE_ARRAY,
	JSONTREE_OBJECT
} JsonTreeKind;

typedef struct JsonTree JsonTree;

struct JsonTree
{
	JsonTreeKind kind;
	bool		boolean;		/* JSONTREE_BOOL */
	bool		is_int;			/* NUMBER: an integer that fits integer */
	int64_t		integer;
	const char *str;			/* STRING: the text; NUMBER: its raw text */
	size_t		len;
	const char *name;			/* member of an object: its name */
	size_t		name_len;
	JsonTree  **items;			/* ARRAY elements, OBJECT members in order */
	size_t		n;
	JsonTree   *next;			/* (used while parsing) */
};

/* Default nesting limit (arrays and objects), Jackson's default. */
#define JSONTREE_MAX_DEPTH	1000

/*
 * Parse len bytes of JSON (one value, whitespace around it allowed).  Returns
 * the root, or NULL with a one-line message naming the problem and its byte
 * offset in err (NUL-terminated, truncated to errlen).  max_depth bounds the
 * nesting of arrays and objects (and so the recursion).
 */
extern JsonTree *jsontree_parse(const char *json, size_t len, int max_depth,
								JsonTreeAlloc alloc, void *alloc_arg,
								char *err, size_t errlen);

/*
 * The same for the value at the start of json (after any whitespace),
 * whatever follows it: *used is set to the bytes up to the value's end.
 */
extern JsonTree *jsontree_parse_prefix(const char *json, size_t len, int max_depth,
									   JsonTreeAlloc alloc, void *alloc_arg,
									   size_t *used, char *err, size_t errlen);

/* The member named name (NUL-terminated) of an object, or NULL. */
extern const JsonTree *jsontree_member(const JsonTree *obj, const char *name);

/* The same with a counted name. */
extern const JsonTree *jsontree_member_n(const JsonTree *obj,
										 const char *name, size_t len);

/* Number of elements (array) or members (object); 0 for anything else. */
extern size_t jsontree_length(const JsonTree *node);

/* Element (array) or member (object) i, or NULL when out of range. */
extern const JsonTree *jsontree_element(const JsonTree *node, size_t i);

/* True if node is a string equal to the NUL-terminated s. */
extern bool jsontree_is_string(const JsonTree *node, const char *s);

#endif							/* CDC_KAFKA_JSONTREE_H */
