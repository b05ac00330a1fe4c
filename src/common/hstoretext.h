/*-------------------------------------------------------------------------
 *
 * hstoretext.h
 *		Parse hstore's text form and order its pairs as Debezium emits them.
 *
 * Debezium reads hstore values through pgjdbc's HStoreConverter into a
 * java.util.HashMap and writes them in that map's iteration order, both in
 * hstore.handling.mode=json (a JSON text) and =map (a Connect map).  To give
 * the same bytes we parse the text form here and reproduce HashMap's order:
 * String.hashCode over UTF-16 code units, the spread (h ^ h >>> 16), the
 * table size after the resizes that n insertions cause (16, doubling past a
 * 0.75 load factor), bucket index order, insertion order within a bucket.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/hstoretext.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_HSTORETEXT_H
#define CDC_KAFKA_HSTORETEXT_H

#include <stddef.h>
#include <stdint.h>

/* One key/value pair; value is NULL for an SQL NULL.  Strings are unescaped
 * and NUL-terminated, pointing into the caller's scratch buffer. */
typedef struct HstorePair
{
	const char *key;
	size_t		keylen;
	const char *value;
	size_t		valuelen;
	uint64_t	order_key;		/* private to hstoretext_java_order */
} HstorePair;

/*
 * Parse text such as "a"=>"1", "b c"=>NULL (hstore_out's form) into pairs.
 * scratch must hold 2 * len + 2 bytes;
 * pairs must hold maxpairs entries (len / 6 + 1 is always enough).
 * Returns the number of pairs, or -1 if the text is malformed.
 */
extern int	hstoretext_parse(const char *text, size_t len, char *scratch,
							 HstorePair *pairs, int maxpairs);

/*
 * Reorder pairs[0..n-1] (in hstore's own order, i.e. the order HashMap saw
 * them inserted) into java.util.HashMap's iteration order.  Keys must be
 * distinct (hstore guarantees it).  Buckets that Java would turn into trees
 * (9+ colliding keys in a table of 64+ slots) keep insertion order here.
 */
extern void hstoretext_java_order(HstorePair *pairs, int n);

#endif							/* CDC_KAFKA_HSTORETEXT_H */
