/*-------------------------------------------------------------------------
 *
 * hstoretext_test.c
 *		Unit tests of hstoretext.c: parsing hstore_out's text and putting
 *		the pairs in java.util.HashMap's iteration order.
 *
 * The input texts are hstore_out output of PostgreSQL 15; the expected
 * orders are what pgjdbc 42.7.11's HStoreConverter.fromString map iterates
 * in on JDK 25.
 *
 * test/unit/hstoretext_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/hstoretext.h"

#define MAX_TEXT 1024

/* Parse text into pairs (scratch sized per the header); returns the count. */
static int
parse(const char *text, char *scratch, HstorePair *pairs, int maxpairs)
{
	size_t		len = strlen(text);

	assert_true(2 * len + 2 <= 2 * MAX_TEXT + 2);
	return hstoretext_parse(text, len, scratch, pairs, maxpairs);
}

static void
test_parse_simple(void **state)
{
	char		scratch[2 * MAX_TEXT + 2];
	HstorePair	pairs[8];

	assert_int_equal(parse("\"key\"=>\"val\"", scratch, pairs, 8), 1);
	assert_string_equal(pairs[0].key, "key");
	assert_int_equal(pairs[0].keylen, 3);
	assert_string_equal(pairs[0].value, "val");
	assert_int_equal(pairs[0].valuelen, 3);

	assert_int_equal(parse("\"key1\"=>\"val1\", \"key2\"=>NULL", scratch, pairs, 8), 2);
	assert_string_equal(pairs[0].key, "key1");
	assert_string_equal(pairs[0].value, "val1");
	assert_string_equal(pairs[1].key, "key2");
	assert_null(pairs[1].value);
}

static void
test_parse_escapes(void **state)
{
	char		scratch[2 * MAX_TEXT + 2];
	HstorePair	pairs[8];

	assert_int_equal(parse("\"q\\\"uote\"=>\"back\\\\slash\", \"NULL\"=>\"NULL\", "
						   "\"\"=>\"\", \"a=>b, c\"=>\" x \"",
						   scratch, pairs, 8), 4);
	assert_string_equal(pairs[0].key, "q\"uote");
	assert_string_equal(pairs[0].value, "back\\slash");
	assert_int_equal(pairs[0].valuelen, 10);
	/* a quoted NULL is a string */
	assert_string_equal(pairs[1].key, "NULL");
	assert_non_null(pairs[1].value);
	assert_string_equal(pairs[1].value, "NULL");
	assert_string_equal(pairs[2].key, "");
	assert_int_equal(pairs[2].keylen, 0);
	assert_non_null(pairs[2].value);
	assert_int_equal(pairs[2].valuelen, 0);
	assert_string_equal(pairs[3].key, "a=>b, c");
	assert_string_equal(pairs[3].value, " x ");
}

static void
test_parse_empty_and_malformed(void **state)
{
	char		scratch[2 * MAX_TEXT + 2];
	HstorePair	pairs[2];

	assert_int_equal(parse("", scratch, pairs, 2), 0);
	assert_int_equal(parse("  ", scratch, pairs, 2), 0);
	assert_int_equal(parse("\"a\"=>", scratch, pairs, 2), -1);
	assert_int_equal(parse("\"a\"=\"b\"", scratch, pairs, 2), -1);
	assert_int_equal(parse("\"a", scratch, pairs, 2), -1);
	assert_int_equal(parse("\"a\\", scratch, pairs, 2), -1);
	assert_int_equal(parse("\"a\"=>\"b\",", scratch, pairs, 2), -1);
	assert_int_equal(parse("\"a\"=>\"b\" \"c\"=>\"d\"", scratch, pairs, 2), -1);
	assert_int_equal(parse("a=>b", scratch, pairs, 2), -1);
	/* more pairs than room */
	assert_int_equal(parse("\"a\"=>\"1\", \"b\"=>\"2\", \"c\"=>\"3\"", scratch, pairs, 2), -1);
}

/* Parse text, order it the Java way, and compare the keys. */
static void
check_order(const char *text, const char *const *expected, int n)
{
	char		scratch[2 * MAX_TEXT + 2];
	HstorePair	pairs[MAX_TEXT / 6 + 1];
	int			i;

	assert_int_equal(parse(text, scratch, pairs, MAX_TEXT / 6 + 1), n);
	hstoretext_java_order(pairs, n);
	for (i = 0; i < n; i++)
		assert_string_equal(pairs[i].key, expected[i]);
}

static void
test_order_small(void **state)
{
	const char *const one[] = {"key"};
	const char *const special[] = {"key_#1", "key 2"};

	check_order("\"key\"=>\"val\"", one, 1);
	/* Debezium's hstore_table_with_special row */
	check_order("\"key 2\"=>\" ##123 78\", \"key_#1\"=>\"val 1\"", special, 2);
	check_order("", NULL, 0);
}

/* Thirteen keys: the table has grown from 16 to 32 slots. */
static void
test_order_after_resize(void **state)
{
	const char *const expected[] = {
		"zip", "a", "country", "b", "c", "d", "e", "city", "f", "phone",
		"name", "age", "email"
	};

	check_order("\"a\"=>\"1\", \"b\"=>\"2\", \"c\"=>\"3\", \"d\"=>\"4\", \"e\"=>\"5\", "
				"\"f\"=>\"6\", \"age\"=>\"1\", \"zip\"=>\"2\", \"city\"=>\"y\", "
				"\"name\"=>\"x\", \"email\"=>\"e\", \"phone\"=>\"p\", \"country\"=>\"z\"",
				expected, 13);
}

/* Hashes over UTF-16: 2-, 3- and 4-byte UTF-8, surrogate pairs included. */
static void
test_order_unicode(void **state)
{
	const char *const expected[] = {
		"\xe4\xb8\xad\xe6\x96\x87", "q\"uote", "plain", "back\\slash",
		"\xf0\x9f\x98\x80", "\xf0\x9d\x84\x9ex", "\xc3\xa9"
	};

	check_order("\"\xc3\xa9\"=>NULL, \"\xf0\x9f\x98\x80\"=>\"1\", \"plain\"=>\"4\", "
				"\"\xf0\x9d\x84\x9ex\"=>\"3\", \"q\\\"uote\"=>\"5\", "
				"\"\xe4\xb8\xad\xe6\x96\x87\"=>\"2\", \"back\\\\slash\"=>\"6\"",
				expected, 7);
}

/*
 * Keys with characters outside the BMP, each two UTF-16 code units; with
 * characters after them, both surrogates reach the bucket bits.
 */
static void
test_order_supplementary(void **state)
{
	const char *const expected[] = {
		"\xf0\x9f\x98\x81" "abc", "\xf0\x9f\x98\x84" "12", "x\xf0\x9f\x98\x80",
		"\xf0\x9f\x98\x8e", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
		"\xf0\x9d\x84\x9e", "\xf0\x9f\x98\x86", "\xf0\x9f\xa4\xa3" "xyz",
		"\xf0\x9f\x98\x85", "\xf0\x9f\x98\x8b", "\xf0\x9f\x98\x8a",
		"\xf0\x9f\x98\x89", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x83",
		"a\xf0\x9f\x98\x80" "bcd", "\xf0\x9f\x98\x82"
	};

	check_order("\"\xf0\x9d\x84\x9e\"=>\"13\", \"\xf0\x9f\x98\x80\"=>\"1\", "
				"\"\xf0\x9f\x98\x82\"=>\"3\", \"\xf0\x9f\x98\x83\"=>\"5\", "
				"\"\xf0\x9f\x98\x85\"=>\"7\", \"\xf0\x9f\x98\x86\"=>\"8\", "
				"\"\xf0\x9f\x98\x89\"=>\"9\", \"\xf0\x9f\x98\x8a\"=>\"10\", "
				"\"\xf0\x9f\x98\x8b\"=>\"11\", \"\xf0\x9f\x98\x8e\"=>\"12\", "
				"\"x\xf0\x9f\x98\x80\"=>\"14\", \"\xf0\x9f\x98\x84" "12\"=>\"6\", "
				"\"\xf0\x9f\x98\x81" "abc\"=>\"2\", \"\xf0\x9f\xa4\xa3" "xyz\"=>\"4\", "
				"\"a\xf0\x9f\x98\x80" "bcd\"=>\"16\", "
				"\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"=>\"15\"",
				expected, 16);
}

/*
 * "Aa" and "BB" have the same String.hashCode, so these keys all land in
 * one bucket.  The ninth one makes HashMap double a 16-slot table instead
 * of building a tree, which moves "p" (hash 112) from slot 0 to slot 16,
 * behind the colliding keys in slot 9.
 */
static void
test_order_treeify_resize(void **state)
{
	const char *const eight[] = {
		"p", "AaAaAaAa", "AaAaAaBB", "AaAaBBAa", "AaAaBBBB", "AaBBAaAa",
		"AaBBAaBB", "AaBBBBAa", "AaBBBBBB"
	};
	const char *const nine[] = {
		"AaAaAaAa", "AaAaAaBB", "AaAaBBAa", "AaAaBBBB", "AaBBAaAa",
		"AaBBAaBB", "AaBBBBAa", "AaBBBBBB", "BBAaAaAa", "p"
	};

	check_order("\"p\"=>\"10\", \"AaAaAaAa\"=>\"1\", \"AaAaAaBB\"=>\"2\", "
				"\"AaAaBBAa\"=>\"3\", \"AaAaBBBB\"=>\"4\", \"AaBBAaAa\"=>\"5\", "
				"\"AaBBAaBB\"=>\"6\", \"AaBBBBAa\"=>\"7\", \"AaBBBBBB\"=>\"8\"",
				eight, 9);
	check_order("\"p\"=>\"10\", \"AaAaAaAa\"=>\"1\", \"AaAaAaBB\"=>\"2\", "
				"\"AaAaBBAa\"=>\"3\", \"AaAaBBBB\"=>\"4\", \"AaBBAaAa\"=>\"5\", "
				"\"AaBBAaBB\"=>\"6\", \"AaBBBBAa\"=>\"7\", \"AaBBBBBB\"=>\"8\", "
				"\"BBAaAaAa\"=>\"9\"",
				nine, 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_simple),
		cmocka_unit_test(test_parse_escapes),
		cmocka_unit_test(test_parse_empty_and_malformed),
		cmocka_unit_test(test_order_small),
		cmocka_unit_test(test_order_after_resize),
		cmocka_unit_test(test_order_unicode),
		cmocka_unit_test(test_order_supplementary),
		cmocka_unit_test(test_order_treeify_resize),
	};

	return cmocka_run_group_tests_name("hstoretext", tests, NULL, NULL);
}
