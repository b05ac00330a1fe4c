/*-------------------------------------------------------------------------
 *
 * avroschema.c
 *		Kafka Connect schema JSON -> the Avro schema Apicurio's AvroConverter
 *		registers for it (see avroschema.h).
 *
 * Two steps, as in the converter:
 *
 * 1. build: AvroData.fromConnectSchema (apicurio-registry-utils-converter
 *    2.6.13.Final) with connect.meta.data=true and everything else off.
 *    Properties are added in AvroData's order: first the type's own (decimal
 *    scale and precision), then connect.doc, connect.version,
 *    connect.parameters, connect.default, connect.name, connect.type, then
 *    logicalType, then parameters whose name starts with "avro".  A required
 *    struct (or map turned into records) equal to one built before is the
 *    same Avro schema (AvroData's per-conversion schemaMap): that is what
 *    keeps the ConnectDefault numbering of nameless structs.  Field defaults
 *    are Connect's default converted as defaultValueFromConnect does (bytes
 *    as ISO-8859-1 text), dropped when Avro 1.12's isValidDefault refuses
 *    them (the converter catches that and keeps the field without default).
 *    Names are checked as Avro 1.12's default UTF_VALIDATOR does.
 * 2. write: Avro 1.12's Schema.toString(): Jackson's writer, compact; a
 *    record whose full name was written already is written as a name
 *    (short when it is in the enclosing namespace).
 *
 * Errors unwind with longjmp to the entry points: nothing but memory from
 * the caller's allocator is held on the way.  Recursion follows the Connect
 * schema's nesting, which jsontree bounded.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/avroschema.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/avroschema.h"
#include "common/binenc.h"
#include "common/jsonout.h"

#define CONNECT_NAMESPACE	"io.confluent.connect.avro"
#define DECIMAL_NAME		"org.apache.kafka.connect.data.Decimal"
#define PRECISION_PARAM		"connect.decimal.precision"
#define FIELD_DEFAULT_FLAG	CONNECT_NAMESPACE ".field.default"
#define RECORD_DOC_PARAM	CONNECT_NAMESPACE ".record.doc"
#define FIELD_DOC_PREFIX	CONNECT_NAMESPACE ".field.doc."
#define DEFAULT_PRECISION	64

/* Growable output in the caller's memory. */
typedef struct Buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	JsonTreeAlloc alloc;
	void	   *alloc_arg;
} Buf;

/* Required structs already built, by their Connect schema. */
typedef struct Built
{
	const JsonTree *connect;
	AvroSchema *avro;
	struct Built *next;
} Built;

typedef struct Ctx
{
	JsonTreeAlloc alloc;
	void	   *alloc_arg;
	char	   *err;
	size_t		errlen;
	jmp_buf		fail;
	Built	   *built;
	int			default_names;	/* nameless structs named so far */
} Ctx;

/* Record full names already written by avroschema_to_json. */
typedef struct Known
{
	const char *fullname;
	struct Known *next;
} Known;

static AvroSchema *build(Ctx *ctx, const JsonTree *cs, bool as_required);

static void fail(Ctx *ctx, const char *fmt,...) __attribute__((format(printf, 2, 3), noreturn));

static void
fail(Ctx *ctx, const char *fmt,...)
{
	va_list		ap;

	if (ctx->errlen > 0)
	{
		va_start(ap, fmt);
		vsnprintf(ctx->err, ctx->errlen, fmt, ap);
		va_end(ap);
	}
	longjmp(ctx->fail, 1);
}

/* ---- output buffer ---- */

static void
buf_reserve(Buf *b, size_t more)
{
	char	   *data;

	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = (b->len + more + 1) * 2;
	if (b->cap < 256)
		b->cap = 256;
	data = b->alloc(b->alloc_arg, b->cap);
	if (b->len > 0)
		memcpy(data, b->data, b->len);
	b->data = data;
}

static void
buf_add(Buf *b, const char *s, size_t len)
{
	buf_reserve(b, len);
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

static void
buf_str(Buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* A JSON string, escaped as Jackson's Writer-based generator does. */
static void
buf_quoted(Buf *b, const char *s, size_t len)
{
	buf_reserve(b, JSONOUT_ESCAPE_MAX(len) + 2);
	b->data[b->len++] = '"';
	b->len += jsonout_escape_nested(s, len, b->data + b->len);
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

static void
buf_init(Buf *b, JsonTreeAlloc alloc, void *alloc_arg)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->alloc = alloc;
	b->alloc_arg = alloc_arg;
	buf_reserve(b, 64);
	b->data[0] = '\0';
}

/* ---- reading the Connect schema ---- */

static char *
dup_str(Ctx *ctx, const char *s, size_t len)
{
	char	   *d = ctx->alloc(ctx->alloc_arg, len + 1);

	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/* The string member key of node as a C string, or NULL. */
static const char *
member_str(Ctx *ctx, const JsonTree *node, const char *key)
{
	const JsonTree *m = jsontree_member(node, key);

	if (m == NULL || m->kind != JSONTREE_STRING)
		return NULL;
	return dup_str(ctx, m->str, m->len);
}

static bool
is_optional(const JsonTree *cs)
{
	const JsonTree *m = jsontree_member(cs, "optional");

	return m != NULL && m->kind == JSONTREE_BOOL && m->boolean;
}

/* The Connect default, or NULL when there is none (or it is null). */
static const JsonTree *
connect_default(const JsonTree *cs)
{
	const JsonTree *m = jsontree_member(cs, "default");

	return (m == NULL || m->kind == JSONTREE_NULL) ? NULL : m;
}

static const JsonTree *
param(const JsonTree *cs, const char *key)
{
	const JsonTree *m = jsontree_member_n(jsontree_member(cs, "parameters"),
										  key, strlen(key));

	return (m != NULL && m->kind == JSONTREE_STRING) ? m : NULL;
}

static AvroSchemaConnectType
connect_type(Ctx *ctx, const JsonTree *cs)
{
	static const char *const names[] = {
		NULL, "int8", "int16", "int32", "int64", "float", "double",
		"boolean", "string", "bytes", "array", "map", "struct"
	};
	const JsonTree *t = jsontree_member(cs, "type");

	if (cs == NULL || cs->kind != JSONTREE_OBJECT)
		fail(ctx, "Connect schema is not a JSON object");
	for (int i = 1; i < (int) (sizeof(names) / sizeof(names[0])); i++)
		if (jsontree_is_string(t, names[i]))
			return (AvroSchemaConnectType) i;
	fail(ctx, "Connect schema has no known \"type\"");
	return AVROSCHEMA_CONNECT_NONE; /* not reached */
}

/* A sub-schema member (items, keys, values) that must be there. */
static const JsonTree *
sub_schema(Ctx *ctx, const JsonTree *cs, const char *key)
{
	const JsonTree *m = jsontree_member(cs, key);

	if (m == NULL || m->kind != JSONTREE_OBJECT)
		fail(ctx, "Connect schema has no \"%s\" schema", key);
	return m;
}

static int
int_param(Ctx *ctx, const JsonTree *cs, const char *key, int dflt)
{
	const JsonTree *p = param(cs, key);
	char		text[16];
	char	   *end;
	long		v;

	if (p == NULL)
		return dflt;
	/* Integer.parseInt: optional sign, decimal digits, int range */
	if (p->len == 0 || p->len >= sizeof(text))
		fail(ctx, "parameter %s is not an integer", key);
	memcpy(text, p->str, p->len);
	text[p->len] = '\0';
	v = strtol(text, &end, 10);
	if (*end != '\0' || text[0] == ' ' || v < INT32_MIN || v > INT32_MAX)
		fail(ctx, "parameter %s is not an integer: %s", key, text);
	return (int) v;
}

/* ---- equality of Connect schemas (AvroData's schemaMap) ---- */

/*
 * ConnectSchema.equals of two schemas given as JSON.  At the top, "field"
 * (the name of the field holding it) and "optional" (both sides are
 * required there) do not count.
 */
static bool
tree_equal(const JsonTree *a, const JsonTree *b, bool top)
{
	size_t		na = 0,
				nb = 0;

	if (a->kind != b->kind)
		return false;
	switch (a->kind)
	{
		case JSONTREE_NULL:
			return true;
		case JSONTREE_BOOL:
			return a->boolean == b->boolean;
		case JSONTREE_NUMBER:
		case JSONTREE_STRING:
			return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
		case JSONTREE_ARRAY:
			if (a->n != b->n)
				return false;
			for (size_t i = 0; i < a->n; i++)
				if (!tree_equal(a->items[i], b->items[i], false))
					return false;
			return true;
		case JSONTREE_OBJECT:
			break;
	}
	for (size_t i = 0; i < a->n; i++)
	{
		const JsonTree *m = a->items[i];
		const JsonTree *o;

		if (top && ((m->name_len == 5 && memcmp(m->name, "field", 5) == 0) ||
					(m->name_len == 8 && memcmp(m->name, "optional", 8) == 0)))
			continue;
		na++;
		o = jsontree_member_n(b, m->name, m->name_len);
		if (o == NULL || !tree_equal(m, o, false))
			return false;
	}
	for (size_t i = 0; i < b->n; i++)
	{
		const JsonTree *m = b->items[i];

		if (!(top && ((m->name_len == 5 && memcmp(m->name, "field", 5) == 0) ||
					  (m->name_len == 8 && memcmp(m->name, "optional", 8) == 0))))
			nb++;
	}
	return na == nb;
}

static AvroSchema *
built_lookup(Ctx *ctx, const JsonTree *cs)
{
	for (Built *b = ctx->built; b != NULL; b = b->next)
		if (b->connect == cs || tree_equal(b->connect, cs, true))
			return b->avro;
	return NULL;
}

static void
built_add(Ctx *ctx, const JsonTree *cs, AvroSchema *avro)
{
	Built	   *b = ctx->alloc(ctx->alloc_arg, sizeof(Built));

	b->connect = cs;
	b->avro = avro;
	b->next = ctx->built;
	ctx->built = b;
}

/* ---- names ---- */

/* Character.isLetter for one code point: exact up to U+00FF (see below). */
static bool
is_letter(unsigned int cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
	if (cp <= 0xFF)
		return cp == 0xAA || cp == 0xB5 || cp == 0xBA ||
			(cp >= 0xC0 && cp != 0xD7 && cp != 0xF7);
	/*
	 * Beyond Latin-1 we take every character of the Basic Multilingual
	 * Plane as a letter (Java looks up Unicode's tables); characters above
	 * it are two UTF-16 units to Java, neither a letter.
	 */
	return cp <= 0xFFFF;
}

/* The next code point of a UTF-8 string (jsontree checked it). */
static unsigned int
next_cp(const unsigned char **s)
{
	const unsigned char *p = *s;
	unsigned int cp = p[0];
	int			n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;

	if (n > 1)
		cp &= 0x3F >> (n - 1);
	for (int i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3F);
	*s = p + n;
	return cp;
}

/*
 * Avro 1.12's NameValidator.UTF_VALIDATOR, with its messages after ours:
 * what is "record" or "field", owner the record holding a field.
 */
static void
check_name(Ctx *ctx, const char *what, const char *owner, const char *name,
		   size_t len)
{
	const unsigned char *s = (const unsigned char *) name;
	const unsigned char *end = s + len;
	const char *problem = NULL;
	unsigned int cp;

	if (len == 0)
		problem = "Empty name";
	else
	{
		cp = next_cp(&s);
		if (!is_letter(cp) && cp != '_')
			problem = "Illegal initial character: ";
		while (problem == NULL && s < end)
		{
			cp = next_cp(&s);
			if (!is_letter(cp) && cp != '_' && !(cp >= '0' && cp <= '9'))
				problem = "Illegal character in: ";
		}
	}
	if (problem != NULL)
		fail(ctx, "invalid Avro name for %s \"%.*s\"%s%s: %s%.*s",
			 what, (int) len, name, owner ? " of " : "", owner ? owner : "",
			 problem, len ? (int) len : 0, name);
}

/* Split a Connect name at its last dot, or make the default name. */
static void
set_record_name(Ctx *ctx, AvroSchema *rec, const char *cname)
{
	const char *dot;

	if (cname == NULL)
	{
		char		name[32];
		int			index = ++ctx->default_names;

		if (index > 1)
			snprintf(name, sizeof(name), "ConnectDefault%d", index);
		else
			snprintf(name, sizeof(name), "ConnectDefault");
		rec->space = CONNECT_NAMESPACE;
		rec->name = dup_str(ctx, name, strlen(name));
	}
	else if ((dot = strrchr(cname, '.')) != NULL)
	{
		rec->space = dot == cname ? NULL : dup_str(ctx, cname, dot - cname);
		rec->name = dot + 1;
	}
	else
	{
		rec->space = NULL;
		rec->name = cname;
	}
	check_name(ctx, "record", NULL, rec->name, strlen(rec->name));
	if (rec->space == NULL)
		rec->fullname = rec->name;
	else
	{
		size_t		ls = strlen(rec->space),
					ln = strlen(rec->name);
		char	   *full = ctx->alloc(ctx->alloc_arg, ls + ln + 2);

		memcpy(full, rec->space, ls);
		full[ls] = '.';
		memcpy(full + ls + 1, rec->name, ln + 1);
		rec->fullname = full;
	}
}

/* ---- defaults: AvroData.defaultValueFromConnect ---- */

static void render_default(Ctx *ctx, Buf *b, const JsonTree *cs,
						   const JsonTree *v);

/*
 * Bytes (JsonConverter writes them in base64) as the JSON string of their
 * ISO-8859-1 reading: each byte is the code point of the same value.
 */
static void
render_bytes(Ctx *ctx, Buf *b, const JsonTree *v)
{
	uint8_t    *bytes = ctx->alloc(ctx->alloc_arg, v->len / 4 * 3 + 1);
	char	   *text = ctx->alloc(ctx->alloc_arg, v->len * 2 + 1);
	long		nbytes = binenc_unbase64(v->str, v->len, bytes);
	size_t		n = 0;

	if (nbytes < 0)
		fail(ctx, "bytes default is not base64");
	for (long i = 0; i < nbytes; i++)
	{
		if (bytes[i] < 0x80)
			text[n++] = (char) bytes[i];
		else
		{
			text[n++] = (char) (0xC0 | (bytes[i] >> 6));
			text[n++] = (char) (0x80 | (bytes[i] & 0x3F));
		}
	}
	buf_quoted(b, text, n);
}

/* float/double: Java's toString, non-finite values quoted as Jackson does */
static void
render_floating(Ctx *ctx, Buf *b, const JsonTree *v, bool is_float)
{
	char		num[JSONOUT_NUMBER_MAX];
	char		text[JSONOUT_NUMBER_MAX];
	double		d;

	if (v->kind == JSONTREE_STRING &&
		(jsontree_is_string(v, "NaN") || jsontree_is_string(v, "Infinity") ||
		 jsontree_is_string(v, "-Infinity")))
	{
		buf_quoted(b, v->str, v->len);
		return;
	}
	if (v->kind != JSONTREE_NUMBER || v->len >= sizeof(text))
		fail(ctx, "floating point default is not a number");
	memcpy(text, v->str, v->len);
	text[v->len] = '\0';
	d = strtod(text, NULL);
	if (is_float)
		buf_add(b, num, jsonout_float((float) d, num));
	else
		buf_add(b, num, jsonout_double(d, num));
}

/* A map default: JsonConverter writes an object, or [key, value] pairs. */
static void
render_map(Ctx *ctx, Buf *b, const JsonTree *cs, const JsonTree *v)
{
	const JsonTree *ks = sub_schema(ctx, cs, "keys");
	const JsonTree *vs = sub_schema(ctx, cs, "values");
	bool		as_object = jsontree_is_string(jsontree_member(ks, "type"), "string") &&
		!is_optional(ks);

	if (v->kind != JSONTREE_OBJECT && v->kind != JSONTREE_ARRAY)
		fail(ctx, "map default is not an object or array");
	buf_str(b, as_object ? "{" : "[");
	for (size_t i = 0; i < v->n; i++)
	{
		const JsonTree *e = v->items[i];
		const JsonTree *val = e;
		JsonTree	key = {.kind = JSONTREE_STRING, .str = e->name, .len = e->name_len};

		if (v->kind == JSONTREE_ARRAY)
		{
			if (jsontree_length(e) != 2 || e->kind != JSONTREE_ARRAY)
				fail(ctx, "map default entry is not a [key, value] pair");
			key = *e->items[0];
			val = e->items[1];
		}
		if (i > 0)
			buf_str(b, ",");
		if (as_object)
		{
			if (key.kind != JSONTREE_STRING)
				fail(ctx, "map default key is not a string");
			buf_quoted(b, key.str, key.len);
			buf_str(b, ":");
		}
		else
		{
			buf_str(b, "[");
			render_default(ctx, b, ks, &key);
			buf_str(b, ",");
		}
		render_default(ctx, b, vs, val);
		if (!as_object)
			buf_str(b, "]");
	}
	buf_str(b, as_object ? "}" : "]");
}

static void
render_struct(Ctx *ctx, Buf *b, const JsonTree *cs, const JsonTree *v)
{
	const JsonTree *fields = jsontree_member(cs, "fields");
	JsonTree	null_node = {.kind = JSONTREE_NULL};

	if (v->kind != JSONTREE_OBJECT)
		fail(ctx, "struct default is not an object");
	buf_str(b, "{");
	for (size_t i = 0; i < jsontree_length(fields); i++)
	{
		const JsonTree *f = fields->items[i];
		const JsonTree *name = jsontree_member(f, "field");
		const JsonTree *fv;

		if (name == NULL || name->kind != JSONTREE_STRING)
			fail(ctx, "struct field without a name");
		fv = jsontree_member_n(v, name->str, name->len);
		if (i > 0)
			buf_str(b, ",");
		buf_quoted(b, name->str, name->len);
		buf_str(b, ":");
		render_default(ctx, b, f, fv ? fv : &null_node);
	}
	buf_str(b, "}");
}

static void
render_default(Ctx *ctx, Buf *b, const JsonTree *cs, const JsonTree *v)
{
	char		num[JSONOUT_NUMBER_MAX];
	AvroSchemaConnectType t = connect_type(ctx, cs);

	if (v->kind == JSONTREE_NULL)
	{
		buf_str(b, "null");
		return;
	}
	switch (t)
	{
		case AVROSCHEMA_CONNECT_INT8:
		case AVROSCHEMA_CONNECT_INT16:
		case AVROSCHEMA_CONNECT_INT32:
		case AVROSCHEMA_CONNECT_INT64:
			if (v->kind != JSONTREE_NUMBER || !v->is_int)
				fail(ctx, "integer default is not an integer");
			buf_add(b, num, jsonout_int64(v->integer, num));
			break;
		case AVROSCHEMA_CONNECT_FLOAT32:
		case AVROSCHEMA_CONNECT_FLOAT64:
			render_floating(ctx, b, v, t == AVROSCHEMA_CONNECT_FLOAT32);
			break;
		case AVROSCHEMA_CONNECT_BOOLEAN:
			if (v->kind != JSONTREE_BOOL)
				fail(ctx, "boolean default is not a boolean");
			buf_str(b, v->boolean ? "true" : "false");
			break;
		case AVROSCHEMA_CONNECT_STRING:
			if (v->kind != JSONTREE_STRING)
				fail(ctx, "string default is not a string");
			buf_quoted(b, v->str, v->len);
			break;
		case AVROSCHEMA_CONNECT_BYTES:
			if (v->kind != JSONTREE_STRING)
				fail(ctx, "bytes default is not a base64 string (decimal.format=NUMERIC is not supported)");
			render_bytes(ctx, b, v);
			break;
		case AVROSCHEMA_CONNECT_ARRAY:
			if (v->kind != JSONTREE_ARRAY)
				fail(ctx, "array default is not an array");
			buf_str(b, "[");
			for (size_t i = 0; i < v->n; i++)
			{
				if (i > 0)
					buf_str(b, ",");
				render_default(ctx, b, sub_schema(ctx, cs, "items"), v->items[i]);
			}
			buf_str(b, "]");
			break;
		case AVROSCHEMA_CONNECT_MAP:
			render_map(ctx, b, cs, v);
			break;
		default:
			render_struct(ctx, b, cs, v);
			break;
	}
}

static const char *
default_text(Ctx *ctx, const JsonTree *cs, const JsonTree *v, size_t *len)
{
	Buf			b;

	buf_init(&b, ctx->alloc, ctx->alloc_arg);
	render_default(ctx, &b, cs, v);
	*len = b.len;
	return b.data;
}

/*
 * Avro 1.12's Schema.isValidDefault on the JSON node AvroData makes of the
 * Connect default v (of Connect schema cs).  The node's kind follows the
 * Connect type: ints -> int node, int64 -> long node, float/double ->
 * number, string/bytes -> text, struct and string-keyed map -> object,
 * array and other maps -> array.
 */
static bool
default_valid(Ctx *ctx, const AvroSchema *a, const JsonTree *cs, const JsonTree *v)
{
	AvroSchemaConnectType t = connect_type(ctx, cs);
	bool		is_null = v->kind == JSONTREE_NULL;

	switch (a->type)
	{
		case AVROSCHEMA_NULL:
			return is_null;
		case AVROSCHEMA_BOOLEAN:
			return !is_null && t == AVROSCHEMA_CONNECT_BOOLEAN;
		case AVROSCHEMA_INT:
			return !is_null && t >= AVROSCHEMA_CONNECT_INT8 && t <= AVROSCHEMA_CONNECT_INT64 &&
				v->is_int && v->integer >= INT32_MIN && v->integer <= INT32_MAX;
		case AVROSCHEMA_LONG:
			return !is_null && t >= AVROSCHEMA_CONNECT_INT8 && t <= AVROSCHEMA_CONNECT_INT64;
		case AVROSCHEMA_FLOAT:
		case AVROSCHEMA_DOUBLE:
			return !is_null && t >= AVROSCHEMA_CONNECT_INT8 && t <= AVROSCHEMA_CONNECT_FLOAT64;
		case AVROSCHEMA_BYTES:
		case AVROSCHEMA_STRING:
			return !is_null && (t == AVROSCHEMA_CONNECT_STRING || t == AVROSCHEMA_CONNECT_BYTES);
		case AVROSCHEMA_UNION:
			for (int i = 0; i < a->nbranches; i++)
				if (default_valid(ctx, a->branches[i], cs, v))
					return true;
			return false;
		default:
			break;
	}
	if (is_null)
		return false;
	if (a->type == AVROSCHEMA_ARRAY && t == AVROSCHEMA_CONNECT_ARRAY)
	{
		for (size_t i = 0; i < v->n; i++)
			if (!default_valid(ctx, a->items, sub_schema(ctx, cs, "items"), v->items[i]))
				return false;
		return true;
	}
	if (a->type == AVROSCHEMA_ARRAY && a->map_entries)
		return v->n == 0;		/* [key, value] pairs are not records */
	if (a->type == AVROSCHEMA_MAP && t == AVROSCHEMA_CONNECT_MAP)
	{
		for (size_t i = 0; i < v->n; i++)
		{
			const JsonTree *val = v->kind == JSONTREE_ARRAY ? jsontree_element(v->items[i], 1) : v->items[i];

			if (val == NULL || !default_valid(ctx, a->items, sub_schema(ctx, cs, "values"), val))
				return false;
		}
		return true;
	}
	if (a->type == AVROSCHEMA_RECORD && t == AVROSCHEMA_CONNECT_STRUCT)
	{
		JsonTree	null_node = {.kind = JSONTREE_NULL};

		for (int i = 0; i < a->nfields; i++)
		{
			const AvroSchemaField *f = &a->fields[i];
			const JsonTree *fv = jsontree_member_n(v, f->name, f->name_len);

			/* AvroData puts every field in the default's object */
			if (!default_valid(ctx, f->type, f->connect, fv ? fv : &null_node))
				return false;
		}
		return true;
	}
	return false;
}

/* ---- building: AvroData.fromConnectSchema ---- */

static AvroSchema *
new_schema(Ctx *ctx, AvroSchemaType type, const JsonTree *cs)
{
	AvroSchema *a = ctx->alloc(ctx->alloc_arg, sizeof(AvroSchema));

	memset(a, 0, sizeof(AvroSchema));
	a->type = type;
	a->connect = cs;
	a->connect_type = cs ? connect_type(ctx, cs) : AVROSCHEMA_CONNECT_NONE;
	return a;
}

/*
 * Add a property unless one of that name is there (Avro's addProp keeps the
 * first; AvroData never adds a different value twice).  Room for the few
 * properties AvroData adds is made when the schema gets its first.
 */
#define MAX_PROPS	16

static void
add_prop(Ctx *ctx, AvroSchema *a, const char *key, const char *json, size_t len)
{
	for (int i = 0; i < a->nprops; i++)
		if (strcmp(a->props[i].key, key) == 0)
			return;
	if (a->props == NULL)
		a->props = ctx->alloc(ctx->alloc_arg, MAX_PROPS * sizeof(AvroSchemaProp));
	if (a->nprops == MAX_PROPS)
		fail(ctx, "too many Avro schema properties");
	a->props[a->nprops].key = key;
	a->props[a->nprops].json = json;
	a->props[a->nprops].json_len = len;
	a->nprops++;
}

static void
add_string_prop(Ctx *ctx, AvroSchema *a, const char *key, const char *s, size_t len)
{
	Buf			b;

	buf_init(&b, ctx->alloc, ctx->alloc_arg);
	buf_quoted(&b, s, len);
	add_prop(ctx, a, key, b.data, b.len);
}

static void
add_int_prop(Ctx *ctx, AvroSchema *a, const char *key, int64_t v)
{
	char	   *num = ctx->alloc(ctx->alloc_arg, JSONOUT_NUMBER_MAX);

	add_prop(ctx, a, key, num, jsonout_int64(v, num));
}

static bool
name_is(const char *cname, const char *s)
{
	return cname != NULL && strcasecmp(cname, s) == 0;
}

/* Decimal's scale and precision, put first on the bytes schema. */
static void
decimal_props(Ctx *ctx, AvroSchema *a, const JsonTree *cs)
{
	if (param(cs, "scale") == NULL)
		fail(ctx, "Decimal schema without a scale parameter");
	a->scale = int_param(ctx, cs, "scale", 0);
	a->precision = int_param(ctx, cs, PRECISION_PARAM, DEFAULT_PRECISION);
	add_int_prop(ctx, a, "scale", a->scale);
	add_int_prop(ctx, a, "precision", a->precision);
}

/* connect.parameters: all of them but the field-default flag. */
static void
parameters_prop(Ctx *ctx, AvroSchema *a, const JsonTree *params)
{
	Buf			b;
	int			n = 0;

	buf_init(&b, ctx->alloc, ctx->alloc_arg);
	buf_str(&b, "{");
	for (size_t i = 0; i < jsontree_length(params); i++)
	{
		const JsonTree *p = params->items[i];

		if (p->name_len == strlen(FIELD_DEFAULT_FLAG) &&
			memcmp(p->name, FIELD_DEFAULT_FLAG, p->name_len) == 0)
			continue;
		if (p->kind != JSONTREE_STRING)
			fail(ctx, "parameter %.*s is not a string", (int) p->name_len, p->name);
		if (n++ > 0)
			buf_str(&b, ",");
		buf_quoted(&b, p->name, p->name_len);
		buf_str(&b, ":");
		buf_quoted(&b, p->str, p->len);
	}
	buf_str(&b, "}");
	if (n > 0)
		add_prop(ctx, a, "connect.parameters", b.data, b.len);
}

/* The connect.* properties, in AvroData's order. */
static void
connect_props(Ctx *ctx, AvroSchema *a, const JsonTree *cs, const char *cname)
{
	const JsonTree *doc = jsontree_member(cs, "doc");
	const JsonTree *version = jsontree_member(cs, "version");
	const JsonTree *params = jsontree_member(cs, "parameters");
	const JsonTree *dflt = connect_default(cs);

	if (doc != NULL && doc->kind == JSONTREE_STRING)
		add_string_prop(ctx, a, "connect.doc", doc->str, doc->len);
	if (version != NULL && version->kind == JSONTREE_NUMBER)
	{
		if (!version->is_int || version->integer < INT32_MIN || version->integer > INT32_MAX)
			fail(ctx, "schema version is not an integer");
		add_int_prop(ctx, a, "connect.version", version->integer);
	}
	if (params != NULL && params->kind == JSONTREE_OBJECT)
		parameters_prop(ctx, a, params);
	if (dflt != NULL && param(cs, FIELD_DEFAULT_FLAG) == NULL)
	{
		size_t		len;
		const char *text = default_text(ctx, cs, dflt, &len);

		add_prop(ctx, a, "connect.default", text, len);
	}
	if (cname != NULL)
		add_string_prop(ctx, a, "connect.name", cname, strlen(cname));
	if (a->connect_type == AVROSCHEMA_CONNECT_INT8)
		add_string_prop(ctx, a, "connect.type", "int8", 4);
	else if (a->connect_type == AVROSCHEMA_CONNECT_INT16)
		add_string_prop(ctx, a, "connect.type", "int16", 5);
}

/* logicalType for Connect's Decimal, Time, Timestamp and Date. */
static void
logical_prop(Ctx *ctx, AvroSchema *a, const char *cname)
{
	const char *logical = NULL;
	AvroSchemaType needed = a->type;

	if (cname == NULL)
		return;
	if (name_is(cname, DECIMAL_NAME))
	{
		logical = "decimal";
		needed = AVROSCHEMA_BYTES;
		/* LogicalTypes.decimal refuses these; AvroData's legacy path does not */
		if (a->precision <= 0 && a->scale >= 0 && a->scale <= a->precision)
			fail(ctx, "Invalid decimal precision: %d (must be positive)", a->precision);
	}
	else if (name_is(cname, "org.apache.kafka.connect.data.Time"))
		logical = "time-millis", needed = AVROSCHEMA_INT;
	else if (name_is(cname, "org.apache.kafka.connect.data.Timestamp"))
		logical = "timestamp-millis", needed = AVROSCHEMA_LONG;
	else if (name_is(cname, "org.apache.kafka.connect.data.Date"))
		logical = "date", needed = AVROSCHEMA_INT;
	if (logical == NULL)
		return;
	if (a->type != needed)
		fail(ctx, "%s schema of the wrong type", cname);
	a->logical = logical;
	add_string_prop(ctx, a, "logicalType", logical, strlen(logical));
}

/* Parameters named avro*: copied as properties. */
static void
avro_params(Ctx *ctx, AvroSchema *a, const JsonTree *cs)
{
	const JsonTree *params = jsontree_member(cs, "parameters");

	for (size_t i = 0; i < jsontree_length(params); i++)
	{
		const JsonTree *p = params->items[i];

		if (p->name_len >= 4 && memcmp(p->name, "avro", 4) == 0 &&
			p->kind == JSONTREE_STRING)
			add_string_prop(ctx, a, dup_str(ctx, p->name, p->name_len), p->str, p->len);
	}
}

/* maybeMakeOptional: ["null", T], or [T, "null"] when there is a default. */
static AvroSchema *
make_optional(Ctx *ctx, AvroSchema *base, const JsonTree *cs, bool default_first)
{
	AvroSchema *u = new_schema(ctx, AVROSCHEMA_UNION, cs);
	AvroSchema *null_schema = new_schema(ctx, AVROSCHEMA_NULL, NULL);

	u->branches = ctx->alloc(ctx->alloc_arg, 2 * sizeof(AvroSchema *));
	u->nbranches = 2;
	u->optional = true;
	u->value_branch = default_first ? 0 : 1;
	u->branches[u->value_branch] = base;
	u->branches[1 - u->value_branch] = null_schema;
	return u;
}

/*
 * addAvroRecordField: the field's schema, its doc, and its default (the
 * Connect default, else null when optional), dropped when Avro finds it
 * invalid for the field's schema.  The type is built before the name is
 * checked, as Avro's Field constructor comes after it.
 */
static void
add_field(Ctx *ctx, AvroSchemaField *f, const char *name, size_t name_len,
		  const JsonTree *fs, const char *doc, const char *owner)
{
	const JsonTree *dflt = connect_default(fs);

	f->name = name;
	f->name_len = name_len;
	f->connect = fs;
	f->doc = doc;
	f->type = build(ctx, fs, false);
	check_name(ctx, "field", owner, name, name_len);
	if (dflt != NULL)
	{
		if (default_valid(ctx, f->type, fs, dflt))
			f->default_json = default_text(ctx, fs, dflt, &f->default_len);
	}
	else if (is_optional(fs))
	{
		f->default_json = "null";
		f->default_len = 4;
	}
}

static AvroSchema *
build_record(Ctx *ctx, const JsonTree *cs, const char *cname)
{
	AvroSchema *rec = new_schema(ctx, AVROSCHEMA_RECORD, cs);
	const JsonTree *fields = jsontree_member(cs, "fields");
	const JsonTree *doc = param(cs, RECORD_DOC_PARAM);

	if (fields == NULL || fields->kind != JSONTREE_ARRAY)
		fail(ctx, "struct schema without \"fields\"");
	set_record_name(ctx, rec, cname);
	if (doc != NULL)
		rec->doc = dup_str(ctx, doc->str, doc->len);
	rec->fields = ctx->alloc(ctx->alloc_arg, (fields->n + 1) * sizeof(AvroSchemaField));
	memset(rec->fields, 0, (fields->n + 1) * sizeof(AvroSchemaField));
	for (size_t i = 0; i < fields->n; i++)
	{
		const JsonTree *fs = fields->items[i];
		const JsonTree *name = jsontree_member(fs, "field");
		const char *fdoc = NULL;
		char	   *key;

		if (name == NULL || name->kind != JSONTREE_STRING)
			fail(ctx, "struct field without a \"field\" name");
		key = ctx->alloc(ctx->alloc_arg, strlen(FIELD_DOC_PREFIX) + name->len + 1);
		memcpy(key, FIELD_DOC_PREFIX, strlen(FIELD_DOC_PREFIX));
		memcpy(key + strlen(FIELD_DOC_PREFIX), name->str, name->len);
		key[strlen(FIELD_DOC_PREFIX) + name->len] = '\0';
		if (param(cs, key) != NULL)
			fdoc = member_str(ctx, jsontree_member(cs, "parameters"), key);
		add_field(ctx, &rec->fields[i], name->str, name->len, fs, fdoc,
				  rec->fullname);
		rec->nfields++;
	}
	return rec;
}

/*
 * A map whose keys are not required strings: an array of records MapEntry
 * {key, value}, named io.confluent.connect.avro.MapEntry or after the map.
 */
static AvroSchema *
build_map_entries(Ctx *ctx, const JsonTree *cs, const char *cname)
{
	AvroSchema *arr = new_schema(ctx, AVROSCHEMA_ARRAY, cs);
	AvroSchema *rec = new_schema(ctx, AVROSCHEMA_RECORD, cs);

	if (cname == NULL)
	{
		rec->space = CONNECT_NAMESPACE;
		rec->name = "MapEntry";
		rec->fullname = CONNECT_NAMESPACE ".MapEntry";
	}
	else
	{
		set_record_name(ctx, rec, cname);
		add_string_prop(ctx, rec, "connect.internal.type", "MapEntry", 8);
	}
	rec->fields = ctx->alloc(ctx->alloc_arg, 2 * sizeof(AvroSchemaField));
	memset(rec->fields, 0, 2 * sizeof(AvroSchemaField));
	add_field(ctx, &rec->fields[0], "key", 3, sub_schema(ctx, cs, "keys"), NULL,
			  rec->fullname);
	add_field(ctx, &rec->fields[1], "value", 5, sub_schema(ctx, cs, "values"), NULL,
			  rec->fullname);
	rec->nfields = 2;
	arr->items = rec;
	arr->map_entries = true;
	return arr;
}

/* The Avro schema of a Connect schema before its metadata is added. */
static AvroSchema *
build_base(Ctx *ctx, const JsonTree *cs, AvroSchemaConnectType t, const char *cname)
{
	static const AvroSchemaType simple[] = {
		[AVROSCHEMA_CONNECT_INT8] = AVROSCHEMA_INT,
		[AVROSCHEMA_CONNECT_INT16] = AVROSCHEMA_INT,
		[AVROSCHEMA_CONNECT_INT32] = AVROSCHEMA_INT,
		[AVROSCHEMA_CONNECT_INT64] = AVROSCHEMA_LONG,
		[AVROSCHEMA_CONNECT_FLOAT32] = AVROSCHEMA_FLOAT,
		[AVROSCHEMA_CONNECT_FLOAT64] = AVROSCHEMA_DOUBLE,
		[AVROSCHEMA_CONNECT_BOOLEAN] = AVROSCHEMA_BOOLEAN,
		[AVROSCHEMA_CONNECT_STRING] = AVROSCHEMA_STRING,
		[AVROSCHEMA_CONNECT_BYTES] = AVROSCHEMA_BYTES,
	};
	AvroSchema *a;
	const JsonTree *keys;

	switch (t)
	{
		case AVROSCHEMA_CONNECT_ARRAY:
			a = new_schema(ctx, AVROSCHEMA_ARRAY, cs);
			a->items = build(ctx, sub_schema(ctx, cs, "items"), false);
			return a;
		case AVROSCHEMA_CONNECT_MAP:
			keys = sub_schema(ctx, cs, "keys");
			if (!jsontree_is_string(jsontree_member(keys, "type"), "string") ||
				is_optional(keys))
				return build_map_entries(ctx, cs, cname);
			a = new_schema(ctx, AVROSCHEMA_MAP, cs);
			a->items = build(ctx, sub_schema(ctx, cs, "values"), false);
			return a;
		case AVROSCHEMA_CONNECT_STRUCT:
			return build_record(ctx, cs, cname);
		default:
			a = new_schema(ctx, simple[t], cs);
			if (t == AVROSCHEMA_CONNECT_BYTES && name_is(cname, DECIMAL_NAME))
				decimal_props(ctx, a, cs);
			return a;
	}
}

/*
 * fromConnectSchema.  as_required is AvroData's nonOptional(schema): the
 * record inside the union of an optional struct.
 */
static AvroSchema *
build(Ctx *ctx, const JsonTree *cs, bool as_required)
{
	AvroSchemaConnectType t = connect_type(ctx, cs);
	bool		optional = !as_required && is_optional(cs);
	const char *cname = member_str(ctx, cs, "name");
	AvroSchema *a;

	if (cname != NULL && (strcmp(cname, CONNECT_NAMESPACE ".Union") == 0 ||
						  param(cs, "org.apache.kafka.connect.data.Union") != NULL))
		fail(ctx, "Connect union schemas are not supported");
	if (!optional && (a = built_lookup(ctx, cs)) != NULL)
		return a;
	if (t == AVROSCHEMA_CONNECT_STRUCT && optional)
	{
		/* always ["null", record], whatever the default */
		return make_optional(ctx, build(ctx, cs, true), cs, false);
	}
	a = build_base(ctx, cs, t, cname);
	connect_props(ctx, a, cs, cname);
	logical_prop(ctx, a, cname);
	avro_params(ctx, a, cs);
	if (optional)
		return make_optional(ctx, a, cs, connect_default(cs) != NULL);
	if (t == AVROSCHEMA_CONNECT_STRUCT || a->map_entries)
		built_add(ctx, cs, a);
	return a;
}

AvroSchema *
avroschema_from_connect(const JsonTree *connect, JsonTreeAlloc alloc,
						void *alloc_arg, char *err, size_t errlen)
{
	Ctx			ctx;
	AvroSchema *volatile result = NULL;

	memset(&ctx, 0, sizeof(ctx));
	ctx.alloc = alloc;
	ctx.alloc_arg = alloc_arg;
	ctx.err = err;
	ctx.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (setjmp(ctx.fail) != 0)
		return NULL;
	result = build(&ctx, connect, false);
	return result;
}

/* ---- writing: Avro 1.12's Schema.toString() ---- */

typedef struct Writer
{
	Buf			b;
	Known	   *known;
} Writer;

static void write_schema(Writer *w, const AvroSchema *a, const char *space);

static bool
str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static void
write_props(Writer *w, const AvroSchema *a)
{
	for (int i = 0; i < a->nprops; i++)
	{
		buf_str(&w->b, ",");
		buf_quoted(&w->b, a->props[i].key, strlen(a->props[i].key));
		buf_str(&w->b, ":");
		buf_add(&w->b, a->props[i].json, a->props[i].json_len);
	}
}

/*
 * Name.getQualified: the short name inside its own namespace, unless the
 * short name is one of Avro's type names.
 */
static void
write_name_ref(Writer *w, const AvroSchema *a, const char *space)
{
	static const char *const types[] = {
		"record", "enum", "array", "map", "union", "fixed", "string",
		"bytes", "int", "long", "float", "double", "boolean", "null"
	};
	bool		full = !(a->space != NULL && str_eq(a->space, space));

	for (int i = 0; !full && i < (int) (sizeof(types) / sizeof(types[0])); i++)
		if (strcmp(types[i], a->name) == 0)
			full = true;
	buf_quoted(&w->b, full ? a->fullname : a->name,
			   strlen(full ? a->fullname : a->name));
}

static void
write_field(Writer *w, const AvroSchemaField *f, const char *space)
{
	buf_str(&w->b, "{\"name\":");
	buf_quoted(&w->b, f->name, f->name_len);
	buf_str(&w->b, ",\"type\":");
	write_schema(w, f->type, space);
	if (f->doc != NULL)
	{
		buf_str(&w->b, ",\"doc\":");
		buf_quoted(&w->b, f->doc, strlen(f->doc));
	}
	if (f->default_json != NULL)
	{
		buf_str(&w->b, ",\"default\":");
		buf_add(&w->b, f->default_json, f->default_len);
	}
	buf_str(&w->b, "}");
}

static void
write_record(Writer *w, const AvroSchema *a, const char *space)
{
	Known	   *k;

	for (k = w->known; k != NULL; k = k->next)
		if (strcmp(k->fullname, a->fullname) == 0)
		{
			write_name_ref(w, a, space);
			return;
		}
	k = w->b.alloc(w->b.alloc_arg, sizeof(Known));
	k->fullname = a->fullname;
	k->next = w->known;
	w->known = k;

	buf_str(&w->b, "{\"type\":\"record\",\"name\":");
	buf_quoted(&w->b, a->name, strlen(a->name));
	if (a->space != NULL && !str_eq(a->space, space))
	{
		buf_str(&w->b, ",\"namespace\":");
		buf_quoted(&w->b, a->space, strlen(a->space));
	}
	else if (a->space == NULL && space != NULL)
		buf_str(&w->b, ",\"namespace\":\"\"");
	if (a->doc != NULL)
	{
		buf_str(&w->b, ",\"doc\":");
		buf_quoted(&w->b, a->doc, strlen(a->doc));
	}
	buf_str(&w->b, ",\"fields\":[");
	for (int i = 0; i < a->nfields; i++)
	{
		if (i > 0)
			buf_str(&w->b, ",");
		write_field(w, &a->fields[i], a->space);
	}
	buf_str(&w->b, "]");
	write_props(w, a);
	buf_str(&w->b, "}");
}

static void
write_schema(Writer *w, const AvroSchema *a, const char *space)
{
	static const char *const names[] = {
		[AVROSCHEMA_NULL] = "null", [AVROSCHEMA_BOOLEAN] = "boolean",
		[AVROSCHEMA_INT] = "int", [AVROSCHEMA_LONG] = "long",
		[AVROSCHEMA_FLOAT] = "float", [AVROSCHEMA_DOUBLE] = "double",
		[AVROSCHEMA_BYTES] = "bytes", [AVROSCHEMA_STRING] = "string",
	};

	switch (a->type)
	{
		case AVROSCHEMA_RECORD:
			write_record(w, a, space);
			return;
		case AVROSCHEMA_UNION:
			buf_str(&w->b, "[");
			for (int i = 0; i < a->nbranches; i++)
			{
				if (i > 0)
					buf_str(&w->b, ",");
				write_schema(w, a->branches[i], space);
			}
			buf_str(&w->b, "]");
			return;
		case AVROSCHEMA_ARRAY:
		case AVROSCHEMA_MAP:
			buf_str(&w->b, a->type == AVROSCHEMA_ARRAY ?
					"{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
			write_schema(w, a->items, space);
			write_props(w, a);
			buf_str(&w->b, "}");
			return;
		default:
			break;
	}
	if (a->nprops == 0)
	{
		buf_quoted(&w->b, names[a->type], strlen(names[a->type]));
		return;
	}
	buf_str(&w->b, "{\"type\":");
	buf_quoted(&w->b, names[a->type], strlen(names[a->type]));
	write_props(w, a);
	buf_str(&w->b, "}");
}

char *
avroschema_to_json(const AvroSchema *schema, JsonTreeAlloc alloc,
				   void *alloc_arg, size_t *len)
{
	Writer		w;

	buf_init(&w.b, alloc, alloc_arg);
	w.known = NULL;
	write_schema(&w, schema, NULL);
	*len = w.b.len;
	return w.b.data;
}

char *
avroschema_derive(const char *connect_json, size_t connect_len,
				  JsonTreeAlloc alloc, void *alloc_arg,
				  size_t *len, char *err, size_t errlen)
{
	JsonTree   *tree;
	AvroSchema *schema;

	tree = jsontree_parse(connect_json, connect_len, JSONTREE_MAX_DEPTH,
						  alloc, alloc_arg, err, errlen);
	if (tree == NULL)
		return NULL;
	schema = avroschema_from_connect(tree, alloc, alloc_arg, err, errlen);
	if (schema == NULL)
		return NULL;
	return avroschema_to_json(schema, alloc, alloc_arg, len);
}
