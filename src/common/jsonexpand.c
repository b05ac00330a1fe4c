/*-------------------------------------------------------------------------
 *
 * jsonexpand.c
 *		The outbox EventRouter's table.expand.json.payload=true: parse a JSON
 *		text, infer Debezium's Kafka Connect schema from it, and write that
 *		schema and the value as Kafka's JsonConverter does.
 *
 * Three passes over the text, as Debezium makes them (see jsonexpand.h):
 *
 * 1. parse: Jackson's default ObjectMapper.readTree.  Strict RFC 8259 (no
 *    comments, single quotes, NaN, leading zeros, trailing commas or raw
 *    control characters in strings); whatever follows the first complete
 *    value is not read; a key seen again replaces the earlier value at the
 *    earlier key's place; integers are int (32 bits), long or a big integer
 *    by their value, numbers with a fraction or exponent are doubles.
 *    Strings are decoded to UTF-8; a \u escape of a lone surrogate is kept as
 *    its 3-byte (WTF-8) form so that it is written back as the same escape.
 * 2. schema: JsonSchemaData.toConnectSchema.  A struct is named by its path
 *    ("payload.a.b"), except where Debezium restarts the path from null
 *    (elements of an array that are not objects, so arrays of arrays);
 *    a field whose value has no schema (null without optional_bytes, an empty
 *    array) is left out, and so is a second field of the same adjusted name.
 * 3. value: JsonSchemaData.toConnectData then JsonConverter.  Every field of
 *    a struct's schema is looked up in the JSON object by its adjusted name
 *    (so a renamed field's value is null, as in Debezium); a value whose
 *    kind does not match its schema makes Kafka Connect's validation throw,
 *    so it fails here.
 *
 * Errors unwind with longjmp to jsonexpand_render: nothing but memory from
 * the caller's allocator is held on the way.  Recursion is bounded by the
 * nesting depth limit (1000, Jackson's default).
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/jsonexpand.c
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

#include "common/jsonexpand.h"
#include "common/jsonout.h"

/* Jackson's StreamReadConstraints defaults. */
#define MAX_DEPTH			1000
#define MAX_NUMBER_LEN		1000

/* A byte string that need not be NUL-terminated. */
typedef struct Str
{
	const char *p;
	size_t		len;
} Str;

/* Jackson's node kinds, with numbers split by what Jackson made of them. */
typedef enum NodeKind
{
	NODE_NULL,
	NODE_BOOLEAN,
	NODE_INT,
	NODE_LONG,
	NODE_BIGINT,
	NODE_DOUBLE,
	NODE_STRING,
	NODE_ARRAY,
	NODE_OBJECT
} NodeKind;

/*
 * Positions of named entries (object members, struct fields) by name: open
 * addressing, a slot holds position + 1.  The name is the entry's first
 * member (a Str), entries stride bytes apart.
 */
typedef struct Index
{
	uint32_t   *slot;
	size_t		mask;
} Index;

typedef struct Node Node;

typedef struct Member
{
	Str			key;
	Node	   *value;
} Member;

struct Node
{
	NodeKind	kind;
	bool		boolean;
	int64_t		integer;
	double		dbl;
	Str			string;
	Node	  **items;			/* array */
	Member	   *members;		/* object */
	size_t		n;
	Index		index;			/* object: members by key */
};

/* Kafka Connect schema types that can occur. */
typedef enum SchemaType
{
	ST_STRING,
	ST_BOOLEAN,
	ST_INT32,
	ST_INT64,
	ST_FLOAT64,
	ST_BYTES,
	ST_ARRAY,
	ST_STRUCT
} SchemaType;

typedef struct Schema Schema;

typedef struct Field
{
	Str			name;
	const Schema *schema;
} Field;

struct Schema
{
	SchemaType	type;
	bool		optional;
	bool		has_name;
	Str			name;
	const Schema *items;		/* array */
	Field	   *fields;			/* struct */
	size_t		nfields;
	Index		index;			/* struct: fields by name */
	uint32_t	hash;			/* of everything equals() compares */
};

static const Schema string_schema = {ST_STRING, true};
static const Schema boolean_schema = {ST_BOOLEAN, true};
static const Schema int32_schema = {ST_INT32, true};
static const Schema int64_schema = {ST_INT64, true};
static const Schema float64_schema = {ST_FLOAT64, true};
static const Schema bytes_schema = {ST_BYTES, true};

/* JsonConverter's type names. */
static const char *const type_names[] = {
	"string", "boolean", "int32", "int64", "double", "bytes", "array", "struct"
};

typedef struct Jx
{
	const char *p;
	const char *end;
	int			depth;
	bool		null_bytes;
	NameAdjustMode mode;
	JsonExpandAlloc alloc;
	void	   *alloc_arg;
	char	   *err;
	size_t		errlen;
	jmp_buf		fail;
} Jx;

static void fail(Jx *jx, const char *fmt,...) __attribute__((format(printf, 2, 3), noreturn));

static void
fail(Jx *jx, const char *fmt,...)
{
	va_list		ap;

	if (jx->errlen > 0)
	{
		va_start(ap, fmt);
		vsnprintf(jx->err, jx->errlen, fmt, ap);
		va_end(ap);
	}
	longjmp(jx->fail, 1);
}

static void *
jalloc(Jx *jx, size_t size)
{
	return jx->alloc(jx->alloc_arg, size == 0 ? 1 : size);
}

static void *
jalloc0(Jx *jx, size_t size)
{
	void	   *p = jalloc(jx, size);

	memset(p, 0, size == 0 ? 1 : size);
	return p;
}

/* ---- names ---------------------------------------------------------- */

static uint32_t
hash_bytes(uint32_t h, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char) p[i]) * 16777619u;
	return h;
}

static bool
str_eq(Str a, const char *p, size_t len)
{
	return a.len == len && memcmp(a.p, p, len) == 0;
}

static Index
index_new(Jx *jx, size_t n)
{
	Index		ix;
	size_t		size = 8;

	while (size < 2 * n)
		size *= 2;
	ix.slot = jalloc0(jx, size * sizeof(uint32_t));
	ix.mask = size - 1;
	return ix;
}

#define NAME_AT(base, stride, pos) \
	((const Str *) ((const char *) (base) + (size_t) (pos) * (stride)))

/* The slot for name: the one holding it, or the free one it would take. */
static uint32_t *
index_slot(const Index *ix, const void *base, size_t stride,
		   const char *p, size_t len)
{
	size_t		i = hash_bytes(2166136261u, p, len) & ix->mask;

	while (ix->slot[i] != 0 &&
		   !str_eq(*NAME_AT(base, stride, ix->slot[i] - 1), p, len))
		i = (i + 1) & ix->mask;
	return &ix->slot[i];
}

/* ---- parsing (Jackson's readTree) ----------------------------------- */

static Node *parse_value(Jx *jx);

static void
skip_ws(Jx *jx)
{
	while (jx->p < jx->end &&
		   (*jx->p == ' ' || *jx->p == '\t' || *jx->p == '\n' || *jx->p == '\r'))
		jx->p++;
}

/* The next significant byte, or fail at the end of the text. */
static char
peek(Jx *jx, const char *what)
{
	skip_ws(jx);
	if (jx->p >= jx->end)
		fail(jx, "unexpected end of JSON input, expected %s", what);
	return *jx->p;
}

static Node *
new_node(Jx *jx, NodeKind kind)
{
	Node	   *node = jalloc0(jx, sizeof(Node));

	node->kind = kind;
	return node;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The 4 hex digits of a \u escape at jx->p. */
static unsigned int
parse_hex4(Jx *jx)
{
	unsigned int u = 0;

	if (jx->end - jx->p < 4)
		fail(jx, "unexpected end of JSON input in a \\u escape");
	for (int i = 0; i < 4; i++)
	{
		int			d = hex_digit(jx->p[i]);

		if (d < 0)
			fail(jx, "invalid \\u escape in a JSON string");
		u = u * 16 + d;
	}
	jx->p += 4;
	return u;
}

static char *
put_utf8(char *o, unsigned int c)
{
	if (c < 0x80)
		*o++ = c;
	else if (c < 0x800)
	{
		*o++ = 0xC0 | (c >> 6);
		*o++ = 0x80 | (c & 0x3F);
	}
	else if (c < 0x10000)
	{
		*o++ = 0xE0 | (c >> 12);
		*o++ = 0x80 | ((c >> 6) & 0x3F);
		*o++ = 0x80 | (c & 0x3F);
	}
	else
	{
		*o++ = 0xF0 | (c >> 18);
		*o++ = 0x80 | ((c >> 12) & 0x3F);
		*o++ = 0x80 | ((c >> 6) & 0x3F);
		*o++ = 0x80 | (c & 0x3F);
	}
	return o;
}

/* The code point of an escape after its backslash (jx->p past it). */
static unsigned int
parse_escape(Jx *jx)
{
	char		c;
	unsigned int u;

	if (jx->p >= jx->end)
		fail(jx, "unexpected end of JSON input in a string");
	c = *jx->p++;
	switch (c)
	{
		case '"':
		case '\\':
		case '/':
			return c;
		case 'b':
			return '\b';
		case 'f':
			return '\f';
		case 'n':
			return '\n';
		case 'r':
			return '\r';
		case 't':
			return '\t';
		case 'u':
			break;
		default:
			fail(jx, "unrecognized character escape '%c' in a JSON string", c);
	}
	u = parse_hex4(jx);
	/* a high surrogate and a low one right after it make one character */
	if (u >= 0xD800 && u <= 0xDBFF && jx->end - jx->p >= 6 &&
		jx->p[0] == '\\' && jx->p[1] == 'u')
	{
		const char *save = jx->p;
		unsigned int lo;

		jx->p += 2;
		lo = parse_hex4(jx);
		if (lo >= 0xDC00 && lo <= 0xDFFF)
			return 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
		jx->p = save;
	}
	return u;
}

/* A string at jx->p (on its opening quote), decoded to UTF-8. */
static Str
parse_string(Jx *jx)
{
	const char *q = jx->p + 1;
	char	   *buf;
	char	   *o;
	Str			s;

	/* decoding never makes the text longer: size the buffer by its span */
	while (q < jx->end && *q != '"')
		q += (*q == '\\') ? 2 : 1;
	if (q >= jx->end)
		fail(jx, "unexpected end of JSON input in a string");
	buf = o = jalloc(jx, q - jx->p);
	jx->p++;
	while (*jx->p != '"')
	{
		unsigned char c = *jx->p;

		if (c < 0x20)
			fail(jx, "illegal unquoted control character (code %d) in a JSON string", c);
		if (c != '\\')
		{
			*o++ = c;
			jx->p++;
			continue;
		}
		jx->p++;
		o = put_utf8(o, parse_escape(jx));
	}
	jx->p++;
	s.p = buf;
	s.len = o - buf;
	return s;
}

static void
scan_digits(Jx *jx)
{
	while (jx->p < jx->end && *jx->p >= '0' && *jx->p <= '9')
		jx->p++;
}

/* A number at jx->p: its kind and value by Jackson's rules. */
static Node *
parse_number(Jx *jx)
{
	const char *start = jx->p;
	const char *digits;
	size_t		ndigits;
	size_t		fdigits = 0;
	size_t		edigits = 0;
	bool		fp = false;
	Node	   *node;

	if (*jx->p == '-')
		jx->p++;
	digits = jx->p;
	if (jx->p >= jx->end || *jx->p < '0' || *jx->p > '9')
		fail(jx, "invalid JSON number: expected a digit after '-'");
	if (*jx->p == '0' && jx->p + 1 < jx->end && jx->p[1] >= '0' && jx->p[1] <= '9')
		fail(jx, "invalid JSON number: leading zeroes not allowed");
	scan_digits(jx);
	ndigits = jx->p - digits;
	if (jx->p < jx->end && *jx->p == '.')
	{
		const char *f = ++jx->p;

		scan_digits(jx);
		fdigits = jx->p - f;
		if (fdigits == 0)
			fail(jx, "invalid JSON number: decimal point not followed by a digit");
		fp = true;
	}
	if (jx->p < jx->end && (*jx->p == 'e' || *jx->p == 'E'))
	{
		const char *e;

		jx->p++;
		if (jx->p < jx->end && (*jx->p == '+' || *jx->p == '-'))
			jx->p++;
		e = jx->p;
		scan_digits(jx);
		edigits = jx->p - e;
		if (edigits == 0)
			fail(jx, "invalid JSON number: exponent not followed by a digit");
		fp = true;
	}
	/*
	 * Jackson's number length limit counts the digits of the integer part,
	 * the fraction and the exponent; found by trying: a lone integer part
	 * "0" is not counted, except in a number with both a fraction and an
	 * exponent.
	 */
	if ((!fp && ndigits > MAX_NUMBER_LEN) ||
		(fp && ndigits + fdigits + edigits -
		 (ndigits == 1 && *digits == '0' && !(fdigits > 0 && edigits > 0))
		 > MAX_NUMBER_LEN))
		fail(jx, "JSON number longer than %d digits", MAX_NUMBER_LEN);

	if (fp)
	{
		/* at most 1001 digits, a sign, '.', 'e' and the exponent's sign */
		char		text[MAX_NUMBER_LEN + 8];

		memcpy(text, start, jx->p - start);
		text[jx->p - start] = '\0';
		node = new_node(jx, NODE_DOUBLE);
		node->dbl = strtod(text, NULL);
		return node;
	}
	node = new_node(jx, NODE_BIGINT);
	if (ndigits <= 19)
	{
		/* 19 digits fit in uint64; the magnitude decides long or not */
		uint64_t	mag = 0;
		bool		neg = *start == '-';

		for (size_t i = 0; i < ndigits; i++)
			mag = mag * 10 + (digits[i] - '0');
		if (mag <= (uint64_t) INT64_MAX + (neg ? 1 : 0))
		{
			node->integer = neg ? (int64_t) (0 - mag) : (int64_t) mag;
			node->kind = (node->integer >= INT32_MIN && node->integer <= INT32_MAX)
				? NODE_INT : NODE_LONG;
		}
	}
	return node;
}

static void
expect_literal(Jx *jx, const char *word)
{
	size_t		len = strlen(word);

	if ((size_t) (jx->end - jx->p) < len || memcmp(jx->p, word, len) != 0)
		fail(jx, "unrecognized token in JSON input, expected '%s'", word);
	jx->p += len;
}

static void
enter(Jx *jx)
{
	if (++jx->depth > MAX_DEPTH)
		fail(jx, "JSON nesting depth exceeds the maximum allowed (%d)", MAX_DEPTH);
	jx->p++;
}

/* Temporary chain of parsed entries, made into an array at the end. */
typedef struct Link
{
	struct Link *next;
	Str			key;
	Node	   *value;
} Link;

static Node *
parse_array(Jx *jx)
{
	Node	   *node = new_node(jx, NODE_ARRAY);
	Link	   *head = NULL;
	Link	  **tail = &head;
	size_t		i = 0;

	enter(jx);
	if (peek(jx, "a value or ']'") != ']')
	{
		for (;;)
		{
			Link	   *link = jalloc0(jx, sizeof(Link));

			link->value = parse_value(jx);
			*tail = link;
			tail = &link->next;
			node->n++;
			if (peek(jx, "',' or ']'") == ']')
				break;
			if (*jx->p != ',')
				fail(jx, "unexpected character '%c' in a JSON array, expected ',' or ']'", *jx->p);
			jx->p++;
		}
	}
	jx->p++;
	jx->depth--;
	node->items = jalloc(jx, node->n * sizeof(Node *));
	for (Link *l = head; l; l = l->next)
		node->items[i++] = l->value;
	return node;
}

static Node *
parse_object(Jx *jx)
{
	Node	   *node = new_node(jx, NODE_OBJECT);
	Link	   *head = NULL;
	Link	  **tail = &head;
	size_t		count = 0;

	enter(jx);
	if (peek(jx, "a field name or '}'") != '}')
	{
		for (;;)
		{
			Link	   *link = jalloc0(jx, sizeof(Link));

			if (peek(jx, "a field name") != '"')
				fail(jx, "unexpected character '%c' in a JSON object, expected a double-quoted field name", *jx->p);
			link->key = parse_string(jx);
			if (peek(jx, "':'") != ':')
				fail(jx, "unexpected character '%c' in a JSON object, expected ':'", *jx->p);
			jx->p++;
			link->value = parse_value(jx);
			*tail = link;
			tail = &link->next;
			count++;
			if (peek(jx, "',' or '}'") == '}')
				break;
			if (*jx->p != ',')
				fail(jx, "unexpected character '%c' in a JSON object, expected ',' or '}'", *jx->p);
			jx->p++;
		}
	}
	jx->p++;
	jx->depth--;

	/* a key seen again replaces the value at the first one's place */
	node->members = jalloc(jx, count * sizeof(Member));
	node->index = index_new(jx, count);
	for (Link *l = head; l; l = l->next)
	{
		uint32_t   *slot = index_slot(&node->index, node->members, sizeof(Member),
									  l->key.p, l->key.len);

		if (*slot != 0)
		{
			node->members[*slot - 1].value = l->value;
			continue;
		}
		node->members[node->n].key = l->key;
		node->members[node->n].value = l->value;
		*slot = ++node->n;
	}
	return node;
}

static Node *
parse_value(Jx *jx)
{
	char		c = peek(jx, "a value");

	switch (c)
	{
		case '{':
			return parse_object(jx);
		case '[':
			return parse_array(jx);
		case '"':
			{
				Node	   *node = new_node(jx, NODE_STRING);

				node->string = parse_string(jx);
				return node;
			}
		case 't':
		case 'f':
			{
				Node	   *node = new_node(jx, NODE_BOOLEAN);

				node->boolean = c == 't';
				expect_literal(jx, c == 't' ? "true" : "false");
				return node;
			}
		case 'n':
			expect_literal(jx, "null");
			return new_node(jx, NODE_NULL);
		default:
			if (c == '-' || (c >= '0' && c <= '9'))
				return parse_number(jx);
			fail(jx, "unexpected character '%c' in JSON input, expected a value", c);
	}
}

/* ---- schema (JsonSchemaData.toConnectSchema) ------------------------ */

static const Schema *to_schema(Jx *jx, const Str *key, const Node *node);

/* Java's String.trim().isEmpty(): nothing but characters up to ' '. */
static bool
is_blank(const Str *s)
{
	if (s == NULL)
		return true;
	for (size_t i = 0; i < s->len; i++)
		if ((unsigned char) s->p[i] > ' ')
			return false;
	return true;
}

/* The field name Debezium's FieldNamer gives key. */
static Str
field_name(Jx *jx, Str key)
{
	char	   *in;
	char	   *out;
	Str			s;

	if (jx->mode == NAMEADJUST_NONE)
		return key;
	/* nameadjust reads a C string: give it a NUL as the 2-byte C0 80 */
	in = jalloc(jx, key.len * 2 + 1);
	s.len = 0;
	for (size_t i = 0; i < key.len; i++)
	{
		if (key.p[i] == '\0')
		{
			in[s.len++] = (char) 0xC0;
			in[s.len++] = (char) 0x80;
		}
		else
			in[s.len++] = key.p[i];
	}
	in[s.len] = '\0';
	out = jalloc(jx, NAMEADJUST_MAX_LEN(s.len));
	s.len = nameadjust_apply(in, jx->mode, true, out);
	s.p = out;
	return s;
}

static uint32_t
schema_hash(const Schema *s)
{
	return s->type == ST_ARRAY || s->type == ST_STRUCT ? s->hash
		: (uint32_t) s->type * 31u + 7u;
}

/* Kafka Connect's ConnectSchema.equals for the schemas made here. */
static bool
schema_equal(const Schema *a, const Schema *b)
{
	if (a == b)
		return true;
	if (a->type != b->type || a->optional != b->optional ||
		schema_hash(a) != schema_hash(b))
		return false;
	if (a->type == ST_ARRAY)
		return schema_equal(a->items, b->items);
	if (a->type != ST_STRUCT)
		return true;
	if (a->has_name != b->has_name ||
		(a->has_name && !str_eq(a->name, b->name.p, b->name.len)) ||
		a->nfields != b->nfields)
		return false;
	for (size_t i = 0; i < a->nfields; i++)
		if (!str_eq(a->fields[i].name, b->fields[i].name.p, b->fields[i].name.len) ||
			!schema_equal(a->fields[i].schema, b->fields[i].schema))
			return false;
	return true;
}

static void
finish_struct_hash(Schema *s)
{
	uint32_t	h = 2166136261u ^ (s->optional ? 1 : 2);

	if (s->has_name)
		h = hash_bytes(h ^ 3, s->name.p, s->name.len);
	for (size_t i = 0; i < s->nfields; i++)
	{
		h = hash_bytes(h, s->fields[i].name.p, s->fields[i].name.len);
		h = (h ^ schema_hash(s->fields[i].schema)) * 16777619u;
	}
	s->hash = h;
}

static Schema *
new_struct(Jx *jx, const Str *name, bool optional, size_t maxfields)
{
	Schema	   *s = jalloc0(jx, sizeof(Schema));

	s->type = ST_STRUCT;
	s->optional = optional;
	if (name)
	{
		s->has_name = true;
		s->name = *name;
	}
	s->fields = jalloc(jx, maxfields * sizeof(Field));
	s->index = index_new(jx, maxfields);
	return s;
}

/*
 * Add a field unless one of that name is there; replace_bytes: replace the
 * one there if it is bytes and the new one not (mergeSchema).
 */
static void
struct_add(Schema *s, Str name, const Schema *fs, bool replace_bytes)
{
	uint32_t   *slot = index_slot(&s->index, s->fields, sizeof(Field),
								  name.p, name.len);

	if (*slot == 0)
	{
		s->fields[s->nfields].name = name;
		s->fields[s->nfields].schema = fs;
		*slot = ++s->nfields;
	}
	else if (replace_bytes && s->fields[*slot - 1].schema->type == ST_BYTES &&
			 fs->type != ST_BYTES)
		s->fields[*slot - 1].schema = fs;
}

static const Schema *
struct_schema(Jx *jx, const Str *key, const Node *node)
{
	Schema	   *s = new_struct(jx, key, true, node->n);

	for (size_t i = 0; i < node->n; i++)
	{
		Str			fname = field_name(jx, node->members[i].key);
		Str			fkey = fname;
		const Schema *fs;

		if (!is_blank(key))
		{
			char	   *p = jalloc(jx, key->len + 1 + fname.len);

			memcpy(p, key->p, key->len);
			p[key->len] = '.';
			memcpy(p + key->len + 1, fname.p, fname.len);
			fkey.p = p;
			fkey.len = key->len + 1 + fname.len;
		}
		fs = to_schema(jx, &fkey, node->members[i].value);
		if (fs == NULL)
			continue;
		/* SchemaBuilder.field refuses an empty name */
		if (fname.len == 0)
			fail(jx, "empty field name");
		struct_add(s, fname, fs, false);
	}
	finish_struct_hash(s);
	return s;
}

static bool
is_number(NodeKind kind)
{
	return kind == NODE_INT || kind == NODE_LONG || kind == NODE_BIGINT ||
		kind == NODE_DOUBLE;
}

/* getFirstArrayElement: the first non-null element, all others alike. */
static const Node *
array_sample(Jx *jx, const Node *array)
{
	const Node *sample = NULL;

	for (size_t i = 0; i < array->n; i++)
	{
		const Node *e = array->items[i];

		if (e->kind == NODE_NULL)
			continue;
		if (sample == NULL)
		{
			sample = e;
			continue;
		}
		if (is_number(sample->kind) && is_number(e->kind))
		{
			if (to_schema(jx, NULL, sample) != to_schema(jx, NULL, e))
				fail(jx, "Field is not a homogenous array, different number types");
		}
		else if (e->kind != sample->kind)
			fail(jx, "Field is not a homogenous array");
	}
	return sample;
}

/* The merge of the distinct struct schemas of an array's objects. */
static const Schema *
merged_elements(Jx *jx, const Str *key, const Node *array)
{
	const Schema **distinct = jalloc(jx, array->n * sizeof(Schema *));
	size_t		ndistinct = 0;
	size_t		maxfields = 0;
	Schema	   *merged;

	for (size_t i = 0; i < array->n; i++)
	{
		const Schema *s;
		size_t		j;

		if (array->items[i]->kind != NODE_OBJECT)
			continue;
		s = to_schema(jx, key, array->items[i]);
		for (j = 0; j < ndistinct; j++)
			if (schema_equal(distinct[j], s))
				break;
		if (j == ndistinct)
		{
			distinct[ndistinct++] = s;
			maxfields += s->nfields;
		}
	}
	if (ndistinct == 1)
		return distinct[0];

	/* SchemaUtil.copySchemaBasics keeps the name, not optional */
	merged = new_struct(jx, distinct[0]->has_name ? &distinct[0]->name : NULL,
						false, maxfields);
	for (size_t j = 0; j < ndistinct; j++)
		for (size_t i = 0; i < distinct[j]->nfields; i++)
			struct_add(merged, distinct[j]->fields[i].name,
					   distinct[j]->fields[i].schema, true);
	finish_struct_hash(merged);
	return merged;
}

static const Schema *
array_schema(Jx *jx, const Str *key, const Node *node)
{
	const Node *sample;
	const Schema *items;
	Schema	   *s;

	if (node->n == 0)
		return NULL;
	sample = array_sample(jx, node);
	if (sample != NULL && sample->kind == NODE_OBJECT)
		items = merged_elements(jx, key, node);
	else
	{
		items = sample ? to_schema(jx, NULL, sample)
			: jx->null_bytes ? &bytes_schema : NULL;
		if (items == NULL)
			fail(jx, "Array has unrecognized member schema");
	}
	s = jalloc0(jx, sizeof(Schema));
	s->type = ST_ARRAY;
	s->optional = true;
	s->items = items;
	s->hash = (schema_hash(items) ^ 0x5bd1e995u) * 16777619u;
	return s;
}

static const Schema *
to_schema(Jx *jx, const Str *key, const Node *node)
{
	switch (node->kind)
	{
		case NODE_STRING:
			return &string_schema;
		case NODE_BOOLEAN:
			return &boolean_schema;
		case NODE_INT:
			return &int32_schema;
		case NODE_LONG:
			return &int64_schema;
		case NODE_BIGINT:
		case NODE_DOUBLE:
			return &float64_schema;
		case NODE_ARRAY:
			return array_schema(jx, key, node);
		case NODE_OBJECT:
			return struct_schema(jx, key, node);
		case NODE_NULL:
			break;
	}
	return jx->null_bytes ? &bytes_schema : NULL;
}

/* ---- output (JsonConverter) ----------------------------------------- */

static void
put(const JsonExpandOut *out, const char *s)
{
	out->append(out->arg, s, strlen(s));
}

/*
 * A JSON string as Jackson writes it: jsonout_escape, in pieces split at
 * character boundaries, and a lone surrogate (kept as WTF-8 by the parser)
 * as its own escape, as Jackson writes every surrogate.
 */
static void
put_string(const JsonExpandOut *out, Str s)
{
	char		buf[JSONOUT_ESCAPE_MAX(1024)];
	size_t		i = 0;

	out->append(out->arg, "\"", 1);
	while (i < s.len)
	{
		const unsigned char *u = (const unsigned char *) s.p + i;
		size_t		n = 0;

		if (s.len - i >= 3 && u[0] == 0xED && u[1] >= 0xA0)
		{
			snprintf(buf, sizeof(buf), "\\u%04X",
					 0xD000 | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F));
			out->append(out->arg, buf, 6);
			i += 3;
			continue;
		}
		while (i + n < s.len && n < 1024 &&
			   !(u[n] == 0xED && s.len - i - n >= 3 && u[n + 1] >= 0xA0))
			n++;
		/* back off to a character boundary before a split sequence */
		if (i + n < s.len && n == 1024)
			while (n > 4 && (u[n] & 0xC0) == 0x80)
				n--;
		out->append(out->arg, buf, jsonout_escape(s.p + i, n, buf));
		i += n;
	}
	out->append(out->arg, "\"", 1);
}

static void
write_schema(JsonExpandOut *out, const Schema *s, const Str *field, int level)
{
	if (level > out->depth)
		out->depth = level;
	put(out, "{\"type\":\"");
	put(out, type_names[s->type]);
	put(out, "\"");
	if (s->type == ST_ARRAY)
	{
		put(out, ",\"items\":");
		write_schema(out, s->items, NULL, level + 1);
	}
	else if (s->type == ST_STRUCT)
	{
		put(out, ",\"fields\":[");
		if (level + 1 > out->depth)
			out->depth = level + 1;
		for (size_t i = 0; i < s->nfields; i++)
		{
			if (i > 0)
				put(out, ",");
			write_schema(out, s->fields[i].schema, &s->fields[i].name, level + 2);
		}
		put(out, "]");
	}
	put(out, s->optional ? ",\"optional\":true" : ",\"optional\":false");
	if (s->has_name)
	{
		put(out, ",\"name\":");
		put_string(out, s->name);
	}
	if (field)
	{
		put(out, ",\"field\":");
		put_string(out, *field);
	}
	put(out, "}");
}

static void write_value(Jx *jx, JsonExpandOut *out, const Node *node,
						const Schema *s, int level);

static void
write_struct(Jx *jx, JsonExpandOut *out, const Node *node, const Schema *s,
			 int level)
{
	static const Node null_node = {NODE_NULL};

	put(out, "{");
	for (size_t i = 0; i < s->nfields; i++)
	{
		const Field *f = &s->fields[i];
		uint32_t   *slot = index_slot(&node->index, node->members, sizeof(Member),
									  f->name.p, f->name.len);

		if (i > 0)
			put(out, ",");
		put_string(out, f->name);
		put(out, ":");
		write_value(jx, out, *slot ? node->members[*slot - 1].value : &null_node,
					f->schema, level + 1);
	}
	put(out, "}");
}

/* The value of node under schema s, failing where Kafka Connect's validation would. */
static void
write_value(Jx *jx, JsonExpandOut *out, const Node *node, const Schema *s,
			int level)
{
	static const SchemaType wants[] = {
		[NODE_BOOLEAN] = ST_BOOLEAN, [NODE_INT] = ST_INT32, [NODE_LONG] = ST_INT64,
		[NODE_DOUBLE] = ST_FLOAT64, [NODE_STRING] = ST_STRING,
		[NODE_ARRAY] = ST_ARRAY, [NODE_OBJECT] = ST_STRUCT
	};
	char		num[JSONOUT_NUMBER_MAX];

	if ((node->kind == NODE_ARRAY || node->kind == NODE_OBJECT) &&
		level > out->depth)
		out->depth = level;
	if (node->kind == NODE_NULL)
	{
		if (!s->optional)
			fail(jx, "null value for a required element (array of objects with different fields)");
		put(out, "null");
		return;
	}
	if (node->kind == NODE_BIGINT)
		fail(jx, "integer out of the range of a 64-bit long");
	if (wants[node->kind] != s->type)
		fail(jx, "value of type %s where the inferred schema is %s",
			 type_names[wants[node->kind]], type_names[s->type]);
	switch (node->kind)
	{
		case NODE_BOOLEAN:
			put(out, node->boolean ? "true" : "false");
			break;
		case NODE_INT:
		case NODE_LONG:
			out->append(out->arg, num, jsonout_int64(node->integer, num));
			break;
		case NODE_DOUBLE:
			{
				/* Jackson quotes the non-finite ones */
				size_t		n = jsonout_double(node->dbl, num);
				bool		q = !isfinite(node->dbl);

				if (q)
					put(out, "\"");
				out->append(out->arg, num, n);
				if (q)
					put(out, "\"");
			}
			break;
		case NODE_STRING:
			put_string(out, node->string);
			break;
		case NODE_ARRAY:
			put(out, "[");
			for (size_t i = 0; i < node->n; i++)
			{
				if (i > 0)
					put(out, ",");
				write_value(jx, out, node->items[i], s->items, level + 1);
			}
			put(out, "]");
			break;
		case NODE_OBJECT:
			write_struct(jx, out, node, s, level);
			break;
		default:
			break;
	}
}

int
jsonexpand_render(const char *json, size_t len, const char *name,
				  bool null_as_optional_bytes, NameAdjustMode field_mode,
				  JsonExpandAlloc alloc, void *alloc_arg,
				  JsonExpandOut *schema_out, JsonExpandOut *value_out,
				  char *err, size_t errlen)
{
	Jx			jx;
	Node	   *root;
	const Schema *schema;
	Str			top;

	memset(&jx, 0, sizeof(jx));
	jx.p = json;
	jx.end = json + len;
	jx.null_bytes = null_as_optional_bytes;
	jx.mode = field_mode;
	jx.alloc = alloc;
	jx.alloc_arg = alloc_arg;
	jx.err = err;
	jx.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	schema_out->depth = 0;
	value_out->depth = 0;
	if (setjmp(jx.fail) != 0)
		return -1;

	if (len == 0)
		fail(&jx, "Unable to parse an empty payload");
	if (json[0] != '{' && json[0] != '[')
		fail(&jx, "Unable to parse payload starting with '%c'", json[0]);
	root = parse_value(&jx);
	top.p = name;
	top.len = strlen(name);
	schema = to_schema(&jx, &top, root);
	if (root->kind != NODE_OBJECT)
		fail(&jx, "the payload is a JSON array, not an object");
	write_value(&jx, value_out, root, schema, 1);
	write_schema(schema_out, schema, NULL, 1);
	return 0;
}

/*
 * The text of json (len bytes) if it is exactly one JSON string literal,
 * decoded to UTF-8 and NUL-terminated in *out (memory from alloc): returns
 * its length, or -1 if json is not a string literal.  How the outbox
 * transform reads the string values the encoder wrote.
 */
long
jsonexpand_string(const char *json, size_t len, JsonExpandAlloc alloc, void *alloc_arg,
				  char **out)
{
	Jx			jx;
	Str			s;

	memset(&jx, 0, sizeof(jx));
	jx.p = json;
	jx.end = json + len;
	jx.alloc = alloc;
	jx.alloc_arg = alloc_arg;
	if (setjmp(jx.fail) != 0)
		return -1;
	if (len == 0 || json[0] != '"')
		return -1;
	s = parse_string(&jx);
	if (jx.p != jx.end)
		return -1;
	*out = jalloc(&jx, s.len + 1);
	memcpy(*out, s.p, s.len);
	(*out)[s.len] = '\0';
	return (long) s.len;
}
