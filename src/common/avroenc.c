/*-------------------------------------------------------------------------
 *
 * avroenc.c
 *		Kafka Connect values, as JsonConverter writes them, to Avro binary
 *		through a libavro generic value (see avroenc.h).
 *
 * The walk follows the Avro schema, not the JSON: every record field is
 * looked up by name in the JSON object (JsonConverter writes them all,
 * nulls included), unions are the optional ones AvroData makes (null and
 * one type, in either order), and a Connect map with keys that are not
 * strings, which AvroData turns into an array of key/value records and
 * JsonConverter into an array of [key, value] pairs, is read by position.
 * The JSON's own number and string texts are used as they are: integers
 * must be exact, floats are parsed once, bytes are decoded from base64.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/avroenc.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avro.h>

#include "common/avroenc.h"
#include "common/binenc.h"

struct AvroEnc
{
	avro_schema_t schema;
	avro_value_iface_t *iface;
	avro_value_t value;
	avro_writer_t writer;
	char	   *scratch;		/* NUL-terminated copies, decoded bytes */
	size_t		scratch_cap;
	const char *field;			/* innermost record field being set */
	char	   *err;
	size_t		errlen;
};

static int	set_value(AvroEnc *enc, avro_value_t *v, const JsonTree *j);
static void say(char *err, size_t errlen, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static void
say(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	if (errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Report a value that does not fit the schema; returns -1. */
static int
mismatch(AvroEnc *enc, const char *want, const JsonTree *j)
{
	static const char *const kinds[] = {
		"null", "a boolean", "a number", "a string", "an array", "an object"
	};

	say(enc->err, enc->errlen, "field \"%s\": expected %s, got %s",
		enc->field ? enc->field : "(top)", want, j ? kinds[j->kind] : "nothing");
	return -1;
}

/* A scratch buffer of at least n bytes, or NULL when out of memory. */
static char *
scratch(AvroEnc *enc, size_t n)
{
	if (n > enc->scratch_cap)
	{
		size_t		cap = enc->scratch_cap ? enc->scratch_cap : 256;
		char	   *p;

		while (cap < n)
			cap *= 2;
		p = realloc(enc->scratch, cap);
		if (p == NULL)
			return NULL;
		enc->scratch = p;
		enc->scratch_cap = cap;
	}
	return enc->scratch;
}

/* A NUL-terminated copy of a JSON string in the scratch buffer. */
static const char *
terminated(AvroEnc *enc, const char *s, size_t len)
{
	char	   *p = scratch(enc, len + 1);

	if (p != NULL)
	{
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/*
 * libavro's own copy of the schema differs from the registered one in two
 * ways that do not change a byte of the binary (which holds neither names
 * nor defaults):
 *   - names are made of ASCII letters, digits and '_': Java's Avro takes
 *     any Unicode letter (a column "kolonne_\u00f8"), libavro refuses it.
 *     Other bytes become "_xHH", the same way everywhere, so references to
 *     a named type still match; fields are then set by position (below);
 *   - "default"s are left out: libavro's JSON parser refuses a "\u0000"
 *     (a decimal's default bytes often hold one) and would check defaults
 *     Java's Avro was told not to ("NaN" for a float).
 */
typedef struct SchemaText
{
	char	   *data;
	size_t		len;
	size_t		cap;
	int			failed;
} SchemaText;

static void
text_put(SchemaText *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap)
	{
		size_t		cap = t->cap ? t->cap : 1024;
		char	   *p;

		while (cap < t->len + n + 1)
			cap *= 2;
		p = realloc(t->data, cap);
		if (p == NULL)
		{
			t->failed = 1;
			return;
		}
		t->data = p;
		t->cap = cap;
	}
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
}

/* A string as a JSON literal; as_name makes it an ASCII Avro name. */
static void
text_string(SchemaText *t, const char *s, size_t n, int as_name)
{
	size_t		i;

	text_put(t, "\"", 1);
	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];
		char		esc[8];

		if (as_name && !(c == '_' || c == '.' || (c >= '0' && c <= '9') ||
						 (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
			text_put(t, esc, snprintf(esc, sizeof(esc), "_x%02X", c));
		else if (c < 0x20 || c == '"' || c == '\\')
			text_put(t, esc, snprintf(esc, sizeof(esc), "\\u%04x", c));
		else
			text_put(t, (const char *) &c, 1);
	}
	text_put(t, "\"", 1);
}

/* Members whose strings are names or references to named types. */
static int
is_name_member(const JsonTree *member)
{
	static const char *const names[] = {"name", "namespace", "type", "items", "values"};
	size_t		i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (member->name_len == strlen(names[i]) &&
			memcmp(member->name, names[i], member->name_len) == 0)
			return 1;
	return 0;
}

/* "default" and Connect's copy of it, "connect.default". */
static int
is_default_member(const JsonTree *member)
{
	return (member->name_len == 7 && memcmp(member->name, "default", 7) == 0) ||
		(member->name_len == 15 && memcmp(member->name, "connect.default", 15) == 0);
}

static void
text_schema(SchemaText *t, const JsonTree *j, int as_name)
{
	size_t		i;
	int			first = 1;

	switch (j->kind)
	{
		case JSONTREE_STRING:
			text_string(t, j->str, j->len, as_name);
			break;
		case JSONTREE_ARRAY:
			text_put(t, "[", 1);
			for (i = 0; i < j->n; i++)
			{
				if (i > 0)
					text_put(t, ",", 1);
				/* a union's branches are types, so their strings names */
				text_schema(t, j->items[i], as_name);
			}
			text_put(t, "]", 1);
			break;
		case JSONTREE_OBJECT:
			text_put(t, "{", 1);
			for (i = 0; i < j->n; i++)
			{
				const JsonTree *m = j->items[i];

				if (is_default_member(m))
					continue;
				if (!first)
					text_put(t, ",", 1);
				first = 0;
				text_string(t, m->name, m->name_len, 0);
				text_put(t, ":", 1);
				text_schema(t, m, is_name_member(m));
			}
			text_put(t, "}", 1);
			break;
		default:
			/* numbers, booleans, null: their text as it was */
			if (j->kind == JSONTREE_NUMBER)
				text_put(t, j->str, j->len);
			else
				text_put(t, j->kind == JSONTREE_NULL ? "null" :
						 j->boolean ? "true" : "false",
						 j->kind == JSONTREE_NULL ? 4 : j->boolean ? 4 : 5);
			break;
	}
}

static void *
schema_tree_alloc(void *arg, size_t size)
{
	void	  **chunks = arg;
	void	  **chunk = malloc(sizeof(void *) + size);

	if (chunk == NULL)
		abort();				/* jsontree's allocator may not fail */
	chunk[0] = *chunks;
	*chunks = chunk;
	memset(chunk + 1, 0, size);
	return chunk + 1;
}

/* The schema text libavro is given, malloc'd, or NULL with err set. */
static char *
schema_for_libavro(const char *json, size_t len, size_t *outlen,
				   char *err, size_t errlen)
{
	void	   *chunks = NULL;
	JsonTree   *tree = jsontree_parse(json, len, JSONTREE_MAX_DEPTH,
									  schema_tree_alloc, &chunks, err, errlen);
	SchemaText	t = {0};

	if (tree != NULL)
		text_schema(&t, tree, 1);
	while (chunks != NULL)
	{
		void	  **chunk = chunks;

		chunks = chunk[0];
		free(chunk);
	}
	if (tree == NULL)
		return NULL;
	if (t.failed)
	{
		say(err, errlen, "out of memory");
		free(t.data);
		return NULL;
	}
	*outlen = t.len;
	return t.data;
}

AvroEnc *
avroenc_create(const char *schema_json, size_t len, char *err, size_t errlen)
{
	AvroEnc    *enc = calloc(1, sizeof(AvroEnc));
	char	   *text;
	size_t		text_len;

	if (enc == NULL)
	{
		say(err, errlen, "out of memory");
		return NULL;
	}
	text = schema_for_libavro(schema_json, len, &text_len, err, errlen);
	if (text == NULL)
	{
		free(enc);
		return NULL;
	}
	if (avro_schema_from_json_length(text, text_len, &enc->schema) != 0)
	{
		say(err, errlen, "Avro schema refused: %s", avro_strerror());
		free(text);
		free(enc);
		return NULL;
	}
	free(text);
	enc->iface = avro_generic_class_from_schema(enc->schema);
	if (enc->iface == NULL ||
		avro_generic_value_new(enc->iface, &enc->value) != 0 ||
		(enc->writer = avro_writer_memory(NULL, 0)) == NULL)
	{
		say(err, errlen, "Avro value for the schema: %s", avro_strerror());
		if (enc->iface != NULL)
			avro_value_iface_decref(enc->iface);
		avro_schema_decref(enc->schema);
		free(enc);
		return NULL;
	}
	return enc;
}

void
avroenc_free(AvroEnc *enc)
{
	if (enc == NULL)
		return;
	avro_writer_free(enc->writer);
	avro_value_decref(&enc->value);
	avro_value_iface_decref(enc->iface);
	avro_schema_decref(enc->schema);
	free(enc->scratch);
	free(enc);
}

/*
 * Whether a JSON member is the field libavro calls name: the same name, or
 * one libavro only has in its ASCII form ("_x" escapes, see above).
 */
static int
same_name(const JsonTree *member, const char *name)
{
	size_t		n = strlen(name);

	if (n == member->name_len && memcmp(name, member->name, n) == 0)
		return 1;
	return strstr(name, "_x") != NULL;
}

/*
 * A record from a JSON object or a [key, value] array, by position:
 * JsonConverter writes a struct's fields in its schema's order, which is
 * the Avro record's.
 */
static int
set_record(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	size_t		n;
	size_t		i;
	const char *outer = enc->field;

	if (j == NULL || (j->kind != JSONTREE_OBJECT && j->kind != JSONTREE_ARRAY))
		return mismatch(enc, "an object", j);
	avro_value_get_size(v, &n);
	if (j->n != n)
		return mismatch(enc, j->kind == JSONTREE_ARRAY ? "a pair" : "every field", j);
	for (i = 0; i < n; i++)
	{
		avro_value_t field;
		const char *name;
		const JsonTree *fj;

		avro_value_get_by_index(v, i, &field, &name);
		fj = j->items[i];
		enc->field = name;
		if (j->kind == JSONTREE_OBJECT && !same_name(fj, name))
			return mismatch(enc, "the field here", fj);
		if (set_value(enc, &field, fj) != 0)
			return -1;
	}
	enc->field = outer;
	return 0;
}

/* An optional union: the null branch for JSON null, else the other one. */
static int
set_union(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	avro_schema_t schema = avro_value_get_schema(v);
	size_t		n = avro_schema_union_size(schema);
	bool		is_null = j == NULL || j->kind == JSONTREE_NULL;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		avro_schema_t branch_schema = avro_schema_union_branch(schema, i);
		avro_value_t branch;

		if (is_avro_null(branch_schema) != is_null)
			continue;
		if (avro_value_set_branch(v, (int) i, &branch) != 0)
			break;
		return is_null ? avro_value_set_null(&branch) : set_value(enc, &branch, j);
	}
	return mismatch(enc, "a value of the union", j);
}

static int
set_array(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	size_t		i;

	if (j == NULL || j->kind != JSONTREE_ARRAY)
		return mismatch(enc, "an array", j);
	for (i = 0; i < j->n; i++)
	{
		avro_value_t item;

		if (avro_value_append(v, &item, NULL) != 0 ||
			set_value(enc, &item, j->items[i]) != 0)
			return -1;
	}
	return 0;
}

static int
set_map(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	size_t		i;

	if (j == NULL || j->kind != JSONTREE_OBJECT)
		return mismatch(enc, "an object", j);
	for (i = 0; i < j->n; i++)
	{
		const JsonTree *member = j->items[i];
		const char *key = terminated(enc, member->name, member->name_len);
		avro_value_t item;

		/* libavro copies the key, so the scratch buffer is free again */
		if (key == NULL || avro_value_add(v, key, &item, NULL, NULL) != 0 ||
			set_value(enc, &item, member) != 0)
			return -1;
	}
	return 0;
}

/* An int or long: the JSON number must be an integer within range. */
static int
set_integer(AvroEnc *enc, avro_value_t *v, avro_type_t type, const JsonTree *j)
{
	if (j == NULL || j->kind != JSONTREE_NUMBER || !j->is_int)
		return mismatch(enc, "an integer", j);
	if (type == AVRO_INT64)
		return avro_value_set_long(v, j->integer);
	if (j->integer < INT32_MIN || j->integer > INT32_MAX)
		return mismatch(enc, "a 32-bit integer", j);
	return avro_value_set_int(v, (int32_t) j->integer);
}

/* A float or double: a JSON number, or "NaN" and the infinities as strings. */
static int
set_floating(AvroEnc *enc, avro_value_t *v, avro_type_t type, const JsonTree *j)
{
	double		d;

	if (j != NULL && j->kind == JSONTREE_NUMBER && j->len < 64)
	{
		char		text[64];

		memcpy(text, j->str, j->len);
		text[j->len] = '\0';
		d = strtod(text, NULL);
	}
	else if (jsontree_is_string(j, "NaN"))
		d = NAN;
	else if (jsontree_is_string(j, "Infinity"))
		d = INFINITY;
	else if (jsontree_is_string(j, "-Infinity"))
		d = -INFINITY;
	else
		return mismatch(enc, "a number", j);
	return type == AVRO_FLOAT ? avro_value_set_float(v, (float) d) :
		avro_value_set_double(v, d);
}

static int
set_bytes(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	char	   *buf;
	long		n;

	if (j == NULL || j->kind != JSONTREE_STRING)
		return mismatch(enc, "base64 bytes", j);
	buf = scratch(enc, j->len / 4 * 3 + 1);
	if (buf == NULL)
		return mismatch(enc, "bytes that fit in memory", j);
	n = binenc_unbase64(j->str, j->len, (uint8_t *) buf);
	if (n < 0)
		return mismatch(enc, "base64 bytes", j);
	return avro_value_set_bytes(v, buf, (size_t) n);
}

static int
set_string(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	const char *s;

	if (j == NULL || j->kind != JSONTREE_STRING)
		return mismatch(enc, "a string", j);
	s = terminated(enc, j->str, j->len);
	if (s == NULL)
		return mismatch(enc, "a string that fits in memory", j);
	/* libavro's length counts the terminating NUL */
	return avro_value_set_string_len(v, s, j->len + 1);
}

static int
set_value(AvroEnc *enc, avro_value_t *v, const JsonTree *j)
{
	avro_type_t type = avro_value_get_type(v);

	switch (type)
	{
		case AVRO_RECORD:
			return set_record(enc, v, j);
		case AVRO_UNION:
			return set_union(enc, v, j);
		case AVRO_ARRAY:
			return set_array(enc, v, j);
		case AVRO_MAP:
			return set_map(enc, v, j);
		case AVRO_INT32:
		case AVRO_INT64:
			return set_integer(enc, v, type, j);
		case AVRO_FLOAT:
		case AVRO_DOUBLE:
			return set_floating(enc, v, type, j);
		case AVRO_BYTES:
			return set_bytes(enc, v, j);
		case AVRO_STRING:
			return set_string(enc, v, j);
		case AVRO_BOOLEAN:
			if (j == NULL || j->kind != JSONTREE_BOOL)
				return mismatch(enc, "a boolean", j);
			return avro_value_set_boolean(v, j->boolean);
		case AVRO_NULL:
			if (j != NULL && j->kind != JSONTREE_NULL)
				return mismatch(enc, "null", j);
			return avro_value_set_null(v);
		default:
			/* enums, fixed and links: AvroData does not make them here */
			say(enc->err, enc->errlen, "field \"%s\": Avro type %s is not supported",
				enc->field ? enc->field : "(top)",
				avro_schema_type_name(avro_value_get_schema(v)));
			return -1;
	}
}

long
avroenc_encode(AvroEnc *enc, const JsonTree *value, char *out, size_t cap,
			   char *err, size_t errlen)
{
	size_t		size;

	enc->err = err;
	enc->errlen = errlen;
	enc->field = NULL;
	avro_value_reset(&enc->value);
	if (set_value(enc, &enc->value, value) != 0)
	{
		/* set_value said why, unless libavro itself failed */
		if (errlen > 0 && err[0] == '\0')
			say(err, errlen, "libavro: %s", avro_strerror());
		return -1;
	}
	if (avro_value_sizeof(&enc->value, &size) != 0)
	{
		say(err, errlen, "libavro: %s", avro_strerror());
		return -1;
	}
	if (size > cap)
		return (long) size;
	avro_writer_memory_set_dest(enc->writer, out, (int64_t) cap);
	if (avro_value_write(enc->writer, &enc->value) != 0)
	{
		say(err, errlen, "libavro: %s", avro_strerror());
		return -1;
	}
	return (long) size;
}
