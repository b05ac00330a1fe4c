/*
 * position_test.c
 *		cmocka tests of src/common/position.c: which records a committed
 *		position covers, and the offsets record value round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/position.h"

static void
test_covers_complete(void **state)
{
	StreamPosition pos = {0x2000, POSITION_COMPLETE};

	(void) state;
	assert_true(position_covers(&pos, 0x1000, 0));
	assert_true(position_covers(&pos, 0x2000, 0));
	assert_true(position_covers(&pos, 0x2000, 99999));
	assert_false(position_covers(&pos, 0x2001, 0));
}

static void
test_covers_split(void **state)
{
	StreamPosition pos = {0x2000, 4};

	(void) state;
	assert_true(position_covers(&pos, 0x1fff, 100));
	assert_true(position_covers(&pos, 0x2000, 0));
	assert_true(position_covers(&pos, 0x2000, 4));
	assert_false(position_covers(&pos, 0x2000, 5));
	assert_false(position_covers(&pos, 0x3000, 0));
}

static void
test_covers_nothing(void **state)
{
	StreamPosition pos = {0, POSITION_COMPLETE};

	(void) state;
	assert_false(position_covers(&pos, 1, 0));
}

static void
test_round_trip(void **state)
{
	const char	snap[] = "16384 pending 12 x7b317d\n16390 done 3\n";
	const char	incr[] = "job 7 rows 10 done f key {\"a\\\"b\",é}";
	PositionRecord rec = {
		.transactional_id = "cdc_kafka-7301234567890123456-16384-cdc_kafka_db",
		.pos = {0x16B374D848ULL, 17},
		.seq = 42,
		.ts_ms = 1700000000123LL,
		.snapshot = snap,
		.snapshot_len = strlen(snap),
		.incremental = incr,
		.incremental_len = strlen(incr),
	};
	char	   *buf = malloc(position_format_size(&rec));
	size_t		len = position_format(&rec, buf);
	char	   *out = malloc(len);
	PositionRecord back;

	(void) state;
	assert_int_equal(len, strlen(buf));
	assert_non_null(strstr(buf, "\"lsn\":\"16/B374D848\",\"index\":17,\"seq\":42"));
	assert_int_equal(position_parse(buf, len, &back, out), 0);
	assert_int_equal(back.pos.lsn, 0x16B374D848ULL);
	assert_int_equal(back.pos.index, 17);
	assert_int_equal(back.seq, 42);
	assert_int_equal(back.ts_ms, 1700000000123LL);
	assert_int_equal(back.snapshot_len, strlen(snap));
	assert_memory_equal(back.snapshot, snap, strlen(snap));
	assert_int_equal(back.incremental_len, strlen(incr));
	assert_memory_equal(back.incremental, incr, strlen(incr));
	free(buf);
	free(out);
}

static void
test_without_progress(void **state)
{
	PositionRecord rec = {.transactional_id = "x", .pos = {5, POSITION_COMPLETE}, .seq = 1};
	char		buf[256];
	char		out[256];
	PositionRecord back;
	size_t		len = position_format(&rec, buf);

	(void) state;
	assert_int_equal(position_parse(buf, len, &back, out), 0);
	assert_int_equal(back.pos.index, POSITION_COMPLETE);
	assert_null(back.snapshot);
	assert_null(back.incremental);
}

static void
test_rejects_garbage(void **state)
{
	const char *bad[] = {
		"", "{}", "null", "{\"lsn\":\"0/1\"}",
		"{\"lsn\":\"0/1\",\"index\":-2,\"seq\":1,\"ts_ms\":1}",
		"{\"lsn\":\"0/1\",\"index\":-1,\"seq\":1,\"ts_ms\":1,\"snapshot\":\"4g\"}",
		"{\"lsn\":\"0/1\",\"index\":-1,\"seq\":1,\"ts_ms\":1,\"snapshot\":\"414\"}",
	};
	char		out[256];
	PositionRecord back;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(position_parse(bad[i], strlen(bad[i]), &back, out), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_covers_complete),
		cmocka_unit_test(test_covers_split),
		cmocka_unit_test(test_covers_nothing),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_without_progress),
		cmocka_unit_test(test_rejects_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
