/*-------------------------------------------------------------------------
 *
 * hstoretext.c
 *		Parse hstore_out's text and put its pairs in the order Debezium
 *		writes them.
 *
 * Debezium turns an hstore value into a java.util.HashMap (pgjdbc's
 * HStoreConverter.fromString inserts the pairs in text order) and writes the
 * map in its iteration order.  That order is bucket order of the final
 * table, then insertion order within a bucket.  We compute Java's
 * String.hashCode of each key over its UTF-16 code units, spread it as
 * HashMap.hash does, replay the table growth the insertions cause, and sort
 * the pairs by (bucket, insertion position).
 *
 * Not reproduced: a bucket that reaches 9 entries in a table of 64 or more
 * slots becomes a red-black tree whose iteration order is no longer
 * insertion order.  That takes 9 keys with colliding low hash bits in one
 * value; the ordering of such a bucket may then differ from Debezium's.  (In
 * a smaller table the same event only doubles the table, which is
 * reproduced.)  Duplicate keys cannot occur: hstore removes them.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/hstoretext.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hstoretext.h"

/* java.util.HashMap's constants. */
#define JAVA_MAP_INITIAL_CAPACITY	16
#define JAVA_MAP_TREEIFY_THRESHOLD	8
#define JAVA_MAP_MIN_TREEIFY_CAPACITY 64

static const char *
hstoretext_skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * Read a double-quoted string starting at p (which must be at the quote),
 * undoing backslash escapes into *scratch and NUL-terminating it.  Returns
 * the position after the closing quote, or NULL if the string never ends.
 */
static const char *
hstoretext_read_quoted(const char *p, const char *end, char **scratch,
					   const char **str, size_t *len)
{
	char	   *dst = *scratch;

	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end && *p != '"'; p++)
	{
		if (*p == '\\' && ++p >= end)
			return NULL;
		*dst++ = *p;
	}
	if (p >= end)
		return NULL;
	*str = *scratch;
	*len = (size_t) (dst - *scratch);
	*dst++ = '\0';
	*scratch = dst;
	return p + 1;
}

/* Read one "key"=>"value" or "key"=>NULL pair; NULL if malformed. */
static const char *
hstoretext_read_pair(const char *p, const char *end, char **scratch,
					 HstorePair *pair)
{
	memset(pair, 0, sizeof(*pair));
	p = hstoretext_read_quoted(p, end, scratch, &pair->key, &pair->keylen);
	if (p == NULL)
		return NULL;
	p = hstoretext_skip_space(p, end);
	if (end - p < 2 || p[0] != '=' || p[1] != '>')
		return NULL;
	p = hstoretext_skip_space(p + 2, end);
	if (end - p >= 4 && strncmp(p, "NULL", 4) == 0)
		return p + 4;
	return hstoretext_read_quoted(p, end, scratch, &pair->value,
								  &pair->valuelen);
}

int
hstoretext_parse(const char *text, size_t len, char *scratch,
				 HstorePair *pairs, int maxpairs)
{
	const char *end = text + len;
	const char *p = hstoretext_skip_space(text, end);
	int			n = 0;

	while (p < end)
	{
		if (n >= maxpairs)
			return -1;
		p = hstoretext_read_pair(p, end, &scratch, &pairs[n]);
		if (p == NULL)
			return -1;
		n++;
		p = hstoretext_skip_space(p, end);
		if (p < end)
		{
			if (*p != ',')
				return -1;
			p = hstoretext_skip_space(p + 1, end);
			if (p >= end)
				return -1;
		}
	}
	return n;
}

/*
 * Decode one UTF-8 sequence at s (n bytes left) into a code point, setting
 * *used.  Malformed input yields U+FFFD for one byte, as Java's decoder
 * substitutes it.
 */
static uint32_t
hstoretext_utf8_next(const unsigned char *s, size_t n, size_t *used)
{
	uint32_t	cp;
	size_t		len;
	size_t		i;

	*used = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4;
	else
		return 0xFFFD;
	if (len > n)
		return 0xFFFD;

	/* the lead byte keeps 5, 4 or 3 payload bits */
	cp = s[0] & (0x7F >> len);
	for (i = 1; i < len; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return 0xFFFD;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	*used = len;
	return cp;
}

/*
 * HashMap.hash(key): String.hashCode (h = 31 * h + c over UTF-16 code
 * units, a code point above U+FFFF counting as its surrogate pair) with the
 * high half folded into the low half.
 */
static uint32_t
hstoretext_java_hash(const char *key, size_t len)
{
	const unsigned char *s = (const unsigned char *) key;
	uint32_t	h = 0;
	size_t		i = 0;

	while (i < len)
	{
		size_t		used;
		uint32_t	cp = hstoretext_utf8_next(s + i, len - i, &used);

		i += used;
		if (cp >= 0x10000)
		{
			cp -= 0x10000;
			h = 31 * h + (0xD800 + (cp >> 10));
			h = 31 * h + (0xDC00 + (cp & 0x3FF));
		}
		else
			h = 31 * h + cp;
	}
	return h ^ (h >> 16);
}

/*
 * Table capacity after inserting the n keys whose spread hashes are in the
 * low 32 bits of pairs[].order_key: doubling whenever the size passes 0.75
 * of the capacity, and also whenever a bucket of a table smaller than 64
 * slots reaches 9 entries (HashMap.treeifyBin resizes instead of building a
 * tree there).  Such tables hold at most 24 entries, so counting the bucket
 * afresh at each insertion is cheap.
 */
static uint32_t
hstoretext_table_size(const HstorePair *pairs, int n)
{
	uint32_t	cap = JAVA_MAP_INITIAL_CAPACITY;
	int			i;
	int			j;

	for (i = 0; i < n; i++)
	{
		if (cap < JAVA_MAP_MIN_TREEIFY_CAPACITY)
		{
			uint32_t	bucket = (uint32_t) pairs[i].order_key & (cap - 1);
			int			binlen = 0;

			for (j = 0; j < i; j++)
				binlen += ((uint32_t) pairs[j].order_key & (cap - 1)) == bucket;
			if (binlen >= JAVA_MAP_TREEIFY_THRESHOLD)
				cap *= 2;
		}
		if ((uint32_t) (i + 1) > cap / 4 * 3)
			cap *= 2;
	}
	return cap;
}

static int
hstoretext_cmp_order(const void *a, const void *b)
{
	uint64_t	ka = ((const HstorePair *) a)->order_key;
	uint64_t	kb = ((const HstorePair *) b)->order_key;

	return ka < kb ? -1 : ka > kb;
}

void
hstoretext_java_order(HstorePair *pairs, int n)
{
	uint32_t	cap;
	int			i;

	for (i = 0; i < n; i++)
		pairs[i].order_key = hstoretext_java_hash(pairs[i].key,
												  pairs[i].keylen);
	cap = hstoretext_table_size(pairs, n);

	/* bucket first, then insertion position: every key is distinct */
	for (i = 0; i < n; i++)
		pairs[i].order_key =
			(uint64_t) ((uint32_t) pairs[i].order_key & (cap - 1)) << 32 |
			(uint32_t) i;
	qsort(pairs, n, sizeof(HstorePair), hstoretext_cmp_order);
}
