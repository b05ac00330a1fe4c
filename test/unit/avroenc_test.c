/*-------------------------------------------------------------------------
 *
 * avroenc_test.c
 *		Unit tests of avroenc.c: Kafka Connect values as JsonConverter
 *		writes them, encoded as Avro binary with libavro.
 *
 * The expected bytes are worked out here from the Avro specification
 * (zig-zag varints, length-prefixed strings and bytes, union branch
 * indexes, array blocks, little-endian floats).  test/unit/avroenc_check.py
 * compares whole records with Debezium's own Avro output.
 *
 * test/unit/avroenc_test.c
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

#include "common/avroenc.h"

/* Every node of every test's trees, freed at the end of each test. */
static void *nodes[4096];
static int	nnodes;

static void *
test_alloc(void *arg, size_t size)
{
	void	   *p = calloc(1, size);

	assert_non_null(p);
	assert_true(nnodes < 4096);
	nodes[nnodes++] = p;
	return p;
}

static int
free_nodes(void **state)
{
	while (nnodes > 0)
		free(nodes[--nnodes]);
	return 0;
}

/* Encode json under schema; returns the length, the bytes in out. */
static long
encode(const char *schema, const char *json, char *out, size_t cap, char *err)
{
	AvroEnc    *enc = avroenc_create(schema, strlen(schema), err, 256);
	JsonTree   *value;
	long		n;

	assert_non_null(enc);
	value = jsontree_parse(json, strlen(json), JSONTREE_MAX_DEPTH, test_alloc,
						   NULL, err, 256);
	assert_non_null(value);
	n = avroenc_encode(enc, value, out, cap, err, 256);
	avroenc_free(enc);
	return n;
}

static void
check(const char *schema, const char *json, const char *want, size_t want_len)
{
	char		out[256];
	char		err[256] = "";
	long		n = encode(schema, json, out, sizeof(out), err);

	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, (long) want_len);
	assert_memory_equal(out, want, want_len);
}

static const char record_schema[] =
"{\"type\":\"record\",\"name\":\"Value\",\"namespace\":\"conf.public.t\",\"fields\":["
"{\"name\":\"a\",\"type\":{\"type\":\"int\",\"connect.type\":\"int16\"}},"
"{\"name\":\"b\",\"type\":[\"null\",\"string\"],\"default\":null},"
"{\"name\":\"c\",\"type\":{\"type\":\"bytes\",\"scale\":2,\"precision\":5,"
"\"connect.default\":\"\\u0000\\u0096\",\"logicalType\":\"decimal\"},\"default\":\"\\u0000\\u0096\"},"
"{\"name\":\"d\",\"type\":{\"type\":\"array\",\"items\":[\"null\",\"long\"]}},"
"{\"name\":\"e\",\"type\":[{\"type\":\"float\",\"connect.default\":1.5},\"null\"],\"default\":1.5}]}";

static void
test_record(void **state)
{
	/* 1; branch 1 "hi"; 2 bytes 00 96; [1, null, -1]; branch 0 1.5f */
	check(record_schema,
		  "{\"a\":1,\"b\":\"hi\",\"c\":\"AJY=\",\"d\":[1,null,-1],\"e\":1.5}",
		  "\x02" "\x02\x04hi" "\x04\x00\x96" "\x06\x02\x02\x00\x02\x01\x00"
		  "\x00\x00\x00\xc0\x3f", 20);
	/* nulls take the null branch, wherever it is in the union */
	check(record_schema,
		  "{\"a\":-2,\"b\":null,\"c\":\"\",\"d\":[],\"e\":null}",
		  "\x03" "\x00" "\x00" "\x00" "\x02", 5);
}

static void
test_special_floats(void **state)
{
	char		out[16];
	char		err[256];
	long		n;

	n = encode("\"double\"", "\"NaN\"", out, sizeof(out), err);
	assert_int_equal(n, 8);
	assert_memory_equal(out, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);
	check("\"double\"", "\"-Infinity\"", "\x00\x00\x00\x00\x00\x00\xf0\xff", 8);
	check("\"float\"", "\"Infinity\"", "\x00\x00\x80\x7f", 4);
}

static void
test_maps_and_pairs(void **state)
{
	/* a Connect map with string keys */
	check("{\"type\":\"map\",\"values\":\"int\"}", "{\"k\":3}",
		  "\x02\x02k\x06\x00", 5);
	/* non-string keys: AvroData's array of pairs, JsonConverter's [k, v] */
	check("{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\","
		  "\"namespace\":\"io.confluent.connect.avro\",\"fields\":["
		  "{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\",\"type\":\"string\"}]}}",
		  "[[1,\"x\"],[2,\"y\"]]",
		  "\x04\x02\x02x\x04\x02y\x00", 8);
}

/* Java's Avro takes any Unicode letter in a name; libavro only ASCII. */
static void
test_unicode_names(void **state)
{
	check("{\"type\":\"record\",\"name\":\"Value\",\"fields\":["
		  "{\"name\":\"kolonne_\\u00f8\",\"type\":\"string\"},"
		  "{\"name\":\"\xe5\x88\x97\",\"type\":\"boolean\"}]}",
		  "{\"kolonne_\xc3\xb8\":\"x\",\"\xe5\x88\x97\":true}",
		  "\x02x\x01", 3);
}

static void
test_mismatches(void **state)
{
	char		out[64];
	char		err[256] = "";

	assert_int_equal(encode(record_schema,
							"{\"a\":\"1\",\"b\":null,\"c\":\"\",\"d\":[],\"e\":null}",
							out, sizeof(out), err), -1);
	assert_non_null(strstr(err, "field \"a\": expected an integer, got a string"));
	assert_int_equal(encode(record_schema,
							"{\"a\":1,\"b\":null,\"c\":\"AJY\",\"d\":[],\"e\":null}",
							out, sizeof(out), err), -1);
	assert_non_null(strstr(err, "field \"c\": expected base64 bytes"));
	assert_int_equal(encode(record_schema, "{\"a\":1}", out, sizeof(out), err), -1);
	assert_non_null(strstr(err, "every field"));
	assert_int_equal(encode("\"int\"", "4294967296", out, sizeof(out), err), -1);
	assert_non_null(strstr(err, "a 32-bit integer"));
	/* a buffer too small: the size needed, nothing written */
	out[0] = 'z';
	assert_int_equal(encode("\"string\"", "\"hello\"", out, 3, err), 6);
	assert_int_equal(out[0], 'z');
}

static void
test_bad_schema(void **state)
{
	char		err[256] = "";

	assert_null(avroenc_create("{\"type\":\"nope\"}", 15, err, sizeof(err)));
	assert_non_null(strstr(err, "Avro schema refused"));
	assert_null(avroenc_create("{", 1, err, sizeof(err)));
	assert_true(err[0] != '\0');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_record, free_nodes),
		cmocka_unit_test_teardown(test_special_floats, free_nodes),
		cmocka_unit_test_teardown(test_maps_and_pairs, free_nodes),
		cmocka_unit_test_teardown(test_unicode_names, free_nodes),
		cmocka_unit_test_teardown(test_mismatches, free_nodes),
		cmocka_unit_test_teardown(test_bad_schema, free_nodes),
	};

	return cmocka_run_group_tests_name("avroenc", tests, NULL, NULL);
}
