/*-------------------------------------------------------------------------
 *
 * jsontree_test.c
 *		Unit tests of jsontree.c: the strict JSON parser behind avroschema.c
 *		(and the Avro value encoder to come).
 *
 * test/unit/jsontree_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/jsontree.h"

/* Every allocation of a test, freed at its end. */
typedef struct Arena
{
	void	   *ptrs[4096];
	size_t		n;
} Arena;

static Arena arena;

static void *
arena_alloc(void *arg, size_t size)
{
	Arena	   *a = arg;

	assert_true(a->n < 4096);
	return a->ptrs[a->n++] = malloc(size ? size : 1);
}

static int
teardown(void **state)
{
	for (size_t i = 0; i < arena.n; i++)
		free(arena.ptrs[i]);
	arena.n = 0;
	return 0;
}

static JsonTree *
parse(const char *json, char *err)
{
	return jsontree_parse(json, strlen(json), 8, arena_alloc, &arena, err, 200);
}

static void
test_object_order_and_lookup(void **state)
{
	char		err[200];
	JsonTree   *t = parse(" {\"b\":1,\"a\":[true,false,null],\"b\":\"x\"} ", err);
	const JsonTree *a;

	assert_non_null(t);
	assert_int_equal(t->kind, JSONTREE_OBJECT);
	assert_int_equal(jsontree_length(t), 3);
	assert_memory_equal(jsontree_element(t, 0)->name, "b", 1);
	assert_memory_equal(jsontree_element(t, 1)->name, "a", 1);
	/* a repeated name: the last one, as Jackson keeps it */
	assert_true(jsontree_is_string(jsontree_member(t, "b"), "x"));
	a = jsontree_member(t, "a");
	assert_int_equal(jsontree_length(a), 3);
	assert_true(jsontree_element(a, 0)->boolean);
	assert_int_equal(jsontree_element(a, 1)->kind, JSONTREE_BOOL);
	assert_false(jsontree_element(a, 1)->boolean);
	assert_int_equal(jsontree_element(a, 2)->kind, JSONTREE_NULL);
	assert_null(jsontree_element(a, 3));
	assert_null(jsontree_member(t, "c"));
	assert_null(jsontree_member(a, "a"));
	assert_int_equal(jsontree_length(parse("[]", err)), 0);
	assert_int_equal(jsontree_length(parse("{}", err)), 0);
}

static void
test_strings(void **state)
{
	char		err[200];
	JsonTree   *t = parse("[\"plain\",\"a\\u0000b\",\"\\\"\\\\\\/\\b\\f\\n\\r\\t\","
						  "\"\\u00e9\\uD83D\\uDE00\",\"\xc3\xa9\xf0\x9f\x98\x80\"]", err);

	assert_non_null(t);
	assert_int_equal(t->items[0]->len, 5);
	assert_memory_equal(t->items[0]->str, "plain", 5);
	assert_int_equal(t->items[1]->len, 3);
	assert_memory_equal(t->items[1]->str, "a\0b", 3);
	assert_int_equal(t->items[2]->len, 8);
	assert_memory_equal(t->items[2]->str, "\"\\/\b\f\n\r\t", 8);
	/* escapes and raw UTF-8 give the same bytes */
	assert_int_equal(t->items[3]->len, 6);
	assert_memory_equal(t->items[3]->str, "\xc3\xa9\xf0\x9f\x98\x80", 6);
	assert_int_equal(t->items[4]->len, 6);
	assert_memory_equal(t->items[4]->str, t->items[3]->str, 6);
}

static void
test_numbers(void **state)
{
	char		err[200];
	JsonTree   *t = parse("[0,-7,9223372036854775807,-9223372036854775808,"
						  "9223372036854775808,1.5,-2e3,1E+300]", err);

	assert_non_null(t);
	assert_true(t->items[0]->is_int);
	assert_int_equal(t->items[0]->integer, 0);
	assert_int_equal(t->items[1]->integer, -7);
	assert_true(t->items[2]->is_int);
	assert_true(t->items[2]->integer == INT64_MAX);
	assert_true(t->items[3]->is_int);
	assert_true(t->items[3]->integer == INT64_MIN);
	assert_false(t->items[4]->is_int);
	assert_false(t->items[5]->is_int);
	assert_int_equal(t->items[6]->len, 4);
	assert_memory_equal(t->items[6]->str, "-2e3", 4);
	assert_int_equal(t->items[7]->kind, JSONTREE_NUMBER);
}

static void
check_error(const char *json, const char *expected)
{
	char		err[200];

	assert_null(parse(json, err));
	assert_string_equal(err, expected);
}

static void
test_errors(void **state)
{
	char		err[200];

	check_error("", "invalid JSON: unexpected end of input at byte 0");
	check_error("{\"a\":1,}", "invalid JSON: expected a member name at byte 7");
	check_error("[1 2]", "invalid JSON: expected ',' or ']' at byte 3");
	check_error("01", "invalid JSON: trailing characters at byte 1");
	check_error("-", "invalid JSON: bad number at byte 1");
	check_error("1.", "invalid JSON: bad number at byte 2");
	check_error("nul", "invalid JSON: unexpected character at byte 0");
	check_error("\"a\tb\"", "invalid JSON: control character in string at byte 2");
	check_error("\"abc", "invalid JSON: unterminated string at byte 4");
	check_error("\"\\x\"", "invalid JSON: bad escape at byte 2");
	check_error("\"\\uD800\"", "invalid JSON: lone high surrogate escape at byte 7");
	check_error("\"\\uDC00\"", "invalid JSON: lone low surrogate escape at byte 7");
	check_error("\"\xc3\"", "invalid JSON: invalid UTF-8 in string at byte 1");
	check_error("\"\xed\xa0\x80\"", "invalid JSON: invalid UTF-8 in string at byte 1");
	check_error("\"\xc0\xaf\"", "invalid JSON: invalid UTF-8 in string at byte 1");
	check_error("[[[[[[[[[]]]]]]]]]", "invalid JSON: nesting deeper than 8 at byte 8");
	/* exactly at the limit is fine */
	assert_non_null(parse("[[[[[[[[]]]]]]]]", err));
}

/* A value at the start of a longer text: where it ends, the rest untouched. */
static void
test_prefix(void **state)
{
	char		err[200];
	const char *text = "{\"schema\":{\"type\":\"int32\"},\"payload\":1}";
	size_t		used = 0;
	JsonTree   *t = jsontree_parse_prefix(text + 10, strlen(text) - 10, 8,
										  arena_alloc, &arena, &used, err, 200);

	assert_non_null(t);
	assert_int_equal(used, strlen("{\"type\":\"int32\"}"));
	assert_true(jsontree_is_string(jsontree_member(t, "type"), "int32"));
	assert_non_null(jsontree_parse_prefix(" 12,", 4, 8, arena_alloc, &arena,
										  &used, err, 200));
	assert_int_equal(used, 3);
	assert_null(jsontree_parse_prefix("{\"a\":", 5, 8, arena_alloc, &arena,
									  &used, err, 200));
	assert_true(err[0] != '\0');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_object_order_and_lookup, teardown),
		cmocka_unit_test_teardown(test_strings, teardown),
		cmocka_unit_test_teardown(test_numbers, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
		cmocka_unit_test_teardown(test_prefix, teardown),
	};

	return cmocka_run_group_tests_name("jsontree", tests, NULL, NULL);
}
