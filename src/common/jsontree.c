/*-------------------------------------------------------------------------
 *
 * jsontree.c
 *		A small strict JSON parser into a read-only tree (see jsontree.h).
 *
 * Recursive descent over the bytes, bounded by the caller's depth limit.
 * Children are chained while their container is read and put into an
 * array of exactly the right size when it closes, so lookups by position
 * are O(1) and nothing is allocated twice.  Strings are scanned once: when
 * they hold no escape the node points into the input, otherwise they are
 * decoded into a buffer as long as the escaped text (never too short, as an
 * escape is never shorter than what it stands for).  Raw bytes must be valid
 * UTF-8 (no overlong forms, no surrogates); \u escapes must pair surrogates.
 *
 * Errors unwind with longjmp to jsontree_parse: only memory from the
 * caller's allocator is held on the way.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/jsontree.c
 *
 *-------------------------------------------------------------------------
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/jsontree.h"

typedef struct Parser
{
	const char *start;
	const char *p;
	const char *end;
	int			depth;
	int			max_depth;
	JsonTreeAlloc alloc;
	void	   *alloc_arg;
	char	   *err;
	size_t		errlen;
	jmp_buf		fail;
} Parser;

static JsonTree *parse_value(Parser *ps);

static void fail(Parser *ps, const char *fmt,...) __attribute__((format(printf, 2, 3), noreturn));

static void
fail(Parser *ps, const char *fmt,...)
{
	char		msg[200];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ps->errlen > 0)
		snprintf(ps->err, ps->errlen, "invalid JSON: %s at byte %zu", msg,
				 (size_t) (ps->p - ps->start));
	longjmp(ps->fail, 1);
}

static void
skip_space(Parser *ps)
{
	while (ps->p < ps->end &&
		   (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static JsonTree *
new_node(Parser *ps, JsonTreeKind kind)
{
	JsonTree   *node = ps->alloc(ps->alloc_arg, sizeof(JsonTree));

	memset(node, 0, sizeof(JsonTree));
	node->kind = kind;
	return node;
}

/* Length of the valid UTF-8 sequence at s (lead byte >= 0x80), or 0. */
static int
utf8_seq_len(const unsigned char *s, const unsigned char *end)
{
	unsigned int c = s[0];
	int			n;
	unsigned int lo = 0x80,
				hi = 0xBF;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
	{
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;			/* no overlong forms */
		else if (c == 0xED)
			hi = 0x9F;			/* no surrogates */
	}
	else if (c >= 0xF0 && c <= 0xF4)
	{
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;			/* nothing above U+10FFFF */
	}
	else
		return 0;
	if (end - s < n || s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

static unsigned int
hex4(Parser *ps, const char *s)
{
	unsigned int v = 0;

	if (ps->end - s < 4)
		fail(ps, "truncated \\u escape");
	for (int i = 0; i < 4; i++)
	{
		char		c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			fail(ps, "bad \\u escape");
	}
	return v;
}

static size_t
put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80)
	{
		out[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		out[0] = (char) (0xC0 | (cp >> 6));
		out[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		out[0] = (char) (0xE0 | (cp >> 12));
		out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char) (0xF0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/* One escape at ps->p (just after the backslash); appends to out. */
static size_t
decode_escape(Parser *ps, char *out)
{
	char		c = *ps->p++;
	unsigned int cp;

	switch (c)
	{
		case '"':
		case '\\':
		case '/':
			*out = c;
			return 1;
		case 'b':
			*out = '\b';
			return 1;
		case 'f':
			*out = '\f';
			return 1;
		case 'n':
			*out = '\n';
			return 1;
		case 'r':
			*out = '\r';
			return 1;
		case 't':
			*out = '\t';
			return 1;
		case 'u':
			break;
		default:
			ps->p--;
			fail(ps, "bad escape");
	}
	cp = hex4(ps, ps->p);
	ps->p += 4;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		fail(ps, "lone low surrogate escape");
	if (cp >= 0xD800 && cp <= 0xDBFF)
	{
		unsigned int lo;

		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
			(lo = hex4(ps, ps->p + 2)) < 0xDC00 || lo > 0xDFFF)
			fail(ps, "lone high surrogate escape");
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	return put_utf8(out, cp);
}

/* A string at ps->p (the opening quote); sets *s and *len. */
static void
parse_string(Parser *ps, const char **s, size_t *len)
{
	const char *begin = ++ps->p;
	bool		escaped = false;
	char	   *buf;
	size_t		n = 0;

	/* first pass: find the end, check the bytes */
	while (ps->p < ps->end && *ps->p != '"')
	{
		unsigned char c = (unsigned char) *ps->p;

		if (c == '\\')
		{
			escaped = true;
			if (++ps->p == ps->end)
				break;
			ps->p++;
		}
		else if (c < 0x20)
			fail(ps, "control character in string");
		else if (c < 0x80)
			ps->p++;
		else
		{
			int			k = utf8_seq_len((const unsigned char *) ps->p,
										 (const unsigned char *) ps->end);

			if (k == 0)
				fail(ps, "invalid UTF-8 in string");
			ps->p += k;
		}
	}
	if (ps->p >= ps->end)
		fail(ps, "unterminated string");
	if (!escaped)
	{
		*s = begin;
		*len = ps->p++ - begin;
		return;
	}
	/* second pass: decode */
	buf = ps->alloc(ps->alloc_arg, ps->p - begin + 1);
	ps->p = begin;
	while (*ps->p != '"')
	{
		if (*ps->p == '\\')
		{
			ps->p++;
			n += decode_escape(ps, buf + n);
		}
		else
			buf[n++] = *ps->p++;
	}
	ps->p++;
	buf[n] = '\0';
	*s = buf;
	*len = n;
}

static void
expect_digits(Parser *ps)
{
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		fail(ps, "bad number");
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
}

static JsonTree *
parse_number(Parser *ps)
{
	JsonTree   *node = new_node(ps, JSONTREE_NUMBER);
	const char *begin = ps->p;
	bool		integral = true;

	if (*ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0')
		ps->p++;				/* no leading zeros */
	else
		expect_digits(ps);
	if (ps->p < ps->end && *ps->p == '.')
	{
		ps->p++;
		expect_digits(ps);
		integral = false;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E'))
	{
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		expect_digits(ps);
		integral = false;
	}
	node->str = begin;
	node->len = ps->p - begin;
	if (integral)
	{
		/* exact int64, accumulated negatively to reach INT64_MIN */
		const char *d = begin + (*begin == '-');
		int64_t		v = 0;

		node->is_int = true;
		for (; d < ps->p; d++)
		{
			int			digit = *d - '0';

			if (v < (INT64_MIN + digit) / 10)
			{
				node->is_int = false;
				break;
			}
			v = v * 10 - digit;
		}
		if (node->is_int && *begin != '-' && v == INT64_MIN)
			node->is_int = false;
		node->integer = (*begin == '-') ? v : -v;
	}
	return node;
}

static void
expect_word(Parser *ps, const char *word)
{
	size_t		n = strlen(word);

	if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		fail(ps, "unexpected character");
	ps->p += n;
}

/* Turn the chain of children into the node's array. */
static void
close_container(Parser *ps, JsonTree *node, JsonTree *first)
{
	size_t		i = 0;

	node->items = ps->alloc(ps->alloc_arg, (node->n ? node->n : 1) * sizeof(JsonTree *));
	for (JsonTree *c = first; c != NULL; c = c->next)
		node->items[i++] = c;
	ps->depth--;
}

static JsonTree *
parse_container(Parser *ps, bool object)
{
	JsonTree   *node = new_node(ps, object ? JSONTREE_OBJECT : JSONTREE_ARRAY);
	JsonTree   *first = NULL,
			   *last = NULL;
	char		close = object ? '}' : ']';

	if (++ps->depth > ps->max_depth)
		fail(ps, "nesting deeper than %d", ps->max_depth);
	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == close)
	{
		ps->p++;
		close_container(ps, node, NULL);
		return node;
	}
	for (;;)
	{
		JsonTree   *child;
		const char *name = NULL;
		size_t		name_len = 0;

		skip_space(ps);
		if (object)
		{
			if (ps->p >= ps->end || *ps->p != '"')
				fail(ps, "expected a member name");
			parse_string(ps, &name, &name_len);
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				fail(ps, "expected ':'");
			ps->p++;
		}
		child = parse_value(ps);
		child->name = name;
		child->name_len = name_len;
		if (last)
			last->next = child;
		else
			first = child;
		last = child;
		node->n++;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',')
		{
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close)
			break;
		fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	ps->p++;
	close_container(ps, node, first);
	return node;
}

static JsonTree *
parse_value(Parser *ps)
{
	JsonTree   *node;

	skip_space(ps);
	if (ps->p >= ps->end)
		fail(ps, "unexpected end of input");
	switch (*ps->p)
	{
		case '{':
			return parse_container(ps, true);
		case '[':
			return parse_container(ps, false);
		case '"':
			node = new_node(ps, JSONTREE_STRING);
			parse_string(ps, &node->str, &node->len);
			return node;
		case 't':
		case 'f':
			node = new_node(ps, JSONTREE_BOOL);
			node->boolean = (*ps->p == 't');
			expect_word(ps, node->boolean ? "true" : "false");
			return node;
		case 'n':
			expect_word(ps, "null");
			return new_node(ps, JSONTREE_NULL);
		default:
			if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
				return parse_number(ps);
			fail(ps, "unexpected character");
	}
	return NULL;				/* not reached */
}

/* One value from json; with used, what follows it is left to the caller. */
static JsonTree *
parse_document(const char *json, size_t len, int max_depth, JsonTreeAlloc alloc,
			   void *alloc_arg, size_t *used, char *err, size_t errlen)
{
	Parser		ps;
	JsonTree   *volatile root = NULL;

	ps.start = ps.p = json;
	ps.end = json + len;
	ps.depth = 0;
	ps.max_depth = max_depth;
	ps.alloc = alloc;
	ps.alloc_arg = alloc_arg;
	ps.err = err;
	ps.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if (setjmp(ps.fail) != 0)
		return NULL;
	root = parse_value(&ps);
	if (used != NULL)
	{
		*used = (size_t) (ps.p - ps.start);
		return root;
	}
	skip_space(&ps);
	if (ps.p != ps.end)
		fail(&ps, "trailing characters");
	return root;
}

JsonTree *
jsontree_parse(const char *json, size_t len, int max_depth,
			   JsonTreeAlloc alloc, void *alloc_arg, char *err, size_t errlen)
{
	return parse_document(json, len, max_depth, alloc, alloc_arg, NULL,
						  err, errlen);
}

JsonTree *
jsontree_parse_prefix(const char *json, size_t len, int max_depth,
					  JsonTreeAlloc alloc, void *alloc_arg, size_t *used,
					  char *err, size_t errlen)
{
	return parse_document(json, len, max_depth, alloc, alloc_arg, used,
						  err, errlen);
}

const JsonTree *
jsontree_member_n(const JsonTree *obj, const char *name, size_t len)
{
	if (obj == NULL || obj->kind != JSONTREE_OBJECT)
		return NULL;
	/* from the end: the last of repeated names wins, as in Jackson */
	for (size_t i = obj->n; i-- > 0;)
	{
		const JsonTree *m = obj->items[i];

		if (m->name_len == len && memcmp(m->name, name, len) == 0)
			return m;
	}
	return NULL;
}

const JsonTree *
jsontree_member(const JsonTree *obj, const char *name)
{
	return jsontree_member_n(obj, name, strlen(name));
}

size_t
jsontree_length(const JsonTree *node)
{
	if (node == NULL ||
		(node->kind != JSONTREE_ARRAY && node->kind != JSONTREE_OBJECT))
		return 0;
	return node->n;
}

const JsonTree *
jsontree_element(const JsonTree *node, size_t i)
{
	if (i >= jsontree_length(node))
		return NULL;
	return node->items[i];
}

bool
jsontree_is_string(const JsonTree *node, const char *s)
{
	size_t		n = strlen(s);

	return node != NULL && node->kind == JSONTREE_STRING &&
		node->len == n && memcmp(node->str, s, n) == 0;
}
