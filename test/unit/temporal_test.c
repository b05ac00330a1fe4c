/*-------------------------------------------------------------------------
 *
 * temporal_test.c
 *		Unit tests of temporal.c: PostgreSQL's internal date/time values to
 *		Debezium's temporal numbers and texts.
 *
 * Inputs are internal values as PostgreSQL 15 stores them (taken with
 * date_send, timestamptz_send, timetz_send and interval_send); expected
 * outputs are what Debezium 3.6.1's own classes (DateTimeFormat,
 * PGInterval of pgjdbc 42.7.11, ZonedTimestamp, MicroDuration, Interval)
 * give for the same values' text output, or the values in Debezium's tests
 * (AbstractRecordsProducerTest.schemaAndValuesForDateTimeTypes).
 *
 * test/unit/temporal_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/temporal.h"

/* Defaults of 'infinity': Debezium 3.6.1 on date/timestamp columns (conformance 40-defaults) */
static void
test_default_infinity(void **state)
{
	assert_int_equal(temporal_default_date_infinity(1), 169560311);
	assert_int_equal(temporal_default_date_infinity(-1), -170999002);
	assert_true(temporal_default_timestamp_infinity_micros(1) == INT64_C(-9223372036853775810));
	assert_true(temporal_default_timestamp_infinity_micros(-1) == INT64_MIN);
}

static void
test_date(void **state)
{
	assert_int_equal(temporal_date_days(-10957), 0);	/* 1970-01-01 */
	assert_int_equal(temporal_date_days(0), 10957);	/* 2000-01-01 */
	assert_int_equal(temporal_date_days(6152), 17109);	/* 2016-11-04 */
	assert_int_equal(temporal_date_days(59), 11016);	/* 2000-02-29 */
	assert_int_equal(temporal_date_days(-36465), -25508);	/* 1900-03-01 */
	assert_int_equal(temporal_date_days(-730119), -719162);	/* 0001-01-01 */
	assert_int_equal(temporal_date_days(-730120), -719163);	/* 0001-12-31 BC */
	assert_int_equal(temporal_date_days(-2451545), -2440588);	/* 4714-11-24 BC */
	assert_int_equal(temporal_date_days(2145031948), 2145042905);	/* 5874897-12-31 */
	/* Debezium's sentinels: +infinity is the smaller one */
	assert_int_equal(temporal_date_days(TEMPORAL_DATE_POS_INFINITY), -2147472692);
	assert_int_equal(temporal_date_days(TEMPORAL_DATE_NEG_INFINITY), -2147472691);
}

static void
test_time(void **state)
{
	assert_int_equal(temporal_time_millis(0), 0);
	assert_int_equal(temporal_time_micros(0), 0);
	/* 13:51:30.123 */
	assert_int_equal(temporal_time_millis(INT64_C(49890123000)), 49890123);
	assert_int_equal(temporal_time_millis(INT64_C(49890123999)), 49890123);
	assert_int_equal(temporal_time_micros(INT64_C(86399999999)), INT64_C(86399999999));
	assert_int_equal(temporal_time_millis(INT64_C(86399999999)), 86399999);
	/* 24:00:00 */
	assert_int_equal(temporal_time_micros(INT64_C(86400000000)), INT64_C(86400000000));
	assert_int_equal(temporal_time_millis(INT64_C(86400000000)), 86400000);
}

static void
test_timestamp(void **state)
{
	const int64_t epoch = -TEMPORAL_PG_EPOCH_USECS;

	assert_int_equal(temporal_timestamp_micros(epoch), 0);
	assert_int_equal(temporal_timestamp_millis(epoch), 0);
	/* 2016-11-04T13:51:30.123456 */
	assert_int_equal(temporal_timestamp_micros(INT64_C(531582690123456)),
					 INT64_C(1478267490123456));
	assert_int_equal(temporal_timestamp_millis(INT64_C(531582690123456)),
					 INT64_C(1478267490123));
	/* 1936-10-25T22:10:12.608 */
	assert_int_equal(temporal_timestamp_micros(INT64_C(-1993859387392000)),
					 INT64_C(-1047174587392000));
	assert_int_equal(temporal_timestamp_millis(INT64_C(-1993859387392000)),
					 INT64_C(-1047174587392));
	/* 1969-12-31 23:59:59.9995: milliseconds are floored */
	assert_int_equal(temporal_timestamp_micros(epoch - 500), -500);
	assert_int_equal(temporal_timestamp_millis(epoch - 500), -1);
	assert_int_equal(temporal_timestamp_millis(epoch - 1000), -1);
	assert_int_equal(temporal_timestamp_millis(epoch - 1001), -2);
	/* 4713-12-31T23:59:59.999999 BC, Debezium's expectedMinTs */
	assert_int_equal(temporal_timestamp_micros(INT64_C(-211778582400000001)),
					 INT64_C(-210831897600000001));
	assert_int_equal(temporal_timestamp_millis(INT64_C(-211778582400000001)),
					 INT64_C(-210831897600001));
}

static void
test_timestamp_limits(void **state)
{
	assert_int_equal(temporal_timestamp_micros(TEMPORAL_TS_POS_INFINITY),
					 INT64_C(9223372036825200000));
	assert_int_equal(temporal_timestamp_micros(TEMPORAL_TS_NEG_INFINITY),
					 INT64_C(-9223372036832400000));
	assert_int_equal(temporal_timestamp_millis(TEMPORAL_TS_POS_INFINITY),
					 INT64_C(9223372036825200));
	assert_int_equal(temporal_timestamp_millis(TEMPORAL_TS_NEG_INFINITY),
					 INT64_C(-9223372036832400));
	/* 294247-01-10 04:00:54.775807 is Long.MAX_VALUE microseconds */
	assert_int_equal(temporal_timestamp_micros(INT64_C(9222425352054775807)),
					 INT64_MAX);
	/* past it Debezium's arithmetic wraps: one microsecond later */
	assert_int_equal(temporal_timestamp_micros(INT64_C(9222425352054775808)),
					 INT64_MIN);
	/* and 294276-12-31 23:59:59.999999 */
	assert_int_equal(temporal_timestamp_micros(INT64_C(9223371331199999999)),
					 INT64_C(-9223372036853775810));
	assert_int_equal(temporal_timestamp_millis(INT64_C(9223371331199999999)),
					 INT64_C(9224318015999999));
}

static void
check_zoned_timestamp(int64_t pg, int precision, const char *expected)
{
	char		out[TEMPORAL_TEXT_MAX];
	size_t		n = temporal_zoned_timestamp(pg, precision, out);

	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_zoned_timestamp(void **state)
{
	/* 2016-11-04T13:51:30.123456+02:00 */
	check_zoned_timestamp(INT64_C(531575490123456), 6, "2016-11-04T11:51:30.123456Z");
	check_zoned_timestamp(INT64_C(531575490123456), -1, "2016-11-04T11:51:30.123456Z");
	check_zoned_timestamp(-TEMPORAL_PG_EPOCH_USECS, 6, "1970-01-01T00:00:00.000000Z");
	check_zoned_timestamp(-TEMPORAL_PG_EPOCH_USECS - 500, 6, "1969-12-31T23:59:59.999500Z");
	check_zoned_timestamp(INT64_C(639057062000000), 6, "2020-04-01T11:51:02.000000Z");
	/* precision 0: ISO_OFFSET_DATE_TIME, fraction only when there is one */
	check_zoned_timestamp(INT64_C(639057062000000), 0, "2020-04-01T11:51:02Z");
	check_zoned_timestamp(INT64_C(531575490500000), 0, "2016-11-04T11:51:30.5Z");
	/* fixed widths truncate */
	check_zoned_timestamp(INT64_C(639057062000000), 3, "2020-04-01T11:51:02.000Z");
	check_zoned_timestamp(INT64_C(252455615999999999), 3, "9999-12-31T23:59:59.999Z");
	check_zoned_timestamp(INT64_C(252455615999999999), 1, "9999-12-31T23:59:59.9Z");
	check_zoned_timestamp(INT64_C(252455615999999999), 0, "9999-12-31T23:59:59.999999Z");
}

static void
test_zoned_timestamp_years(void **state)
{
	check_zoned_timestamp(INT64_C(252455616000000000), 6, "+10000-01-01T00:00:00.000000Z");
	/* 21016-11-04T13:51:30.123456+07:00 and with a zero fraction */
	check_zoned_timestamp(INT64_C(600113602290123456), 6, "+21016-11-04T06:51:30.123456Z");
	check_zoned_timestamp(INT64_C(600113602290000000), 6, "+21016-11-04T06:51:30.000000Z");
	check_zoned_timestamp(INT64_C(9223371331199999999), 6, "+294276-12-31T23:59:59.999999Z");
	/* 4714-12-31T23:59:59.999999Z BC is astronomical year -4713 */
	check_zoned_timestamp(INT64_C(-211810204800000001), 6, "-4713-12-31T23:59:59.999999Z");
	check_zoned_timestamp(INT64_C(-211813488000000000), 6, "-4713-11-24T00:00:00.000000Z");
	check_zoned_timestamp(INT64_C(-64496001599999995), 6, "-0044-03-15T12:00:00.000005Z");
	check_zoned_timestamp(INT64_C(-63108806400000000), 0, "0000-02-29T00:00:00Z");
	check_zoned_timestamp(TEMPORAL_TS_POS_INFINITY, 6, "infinity");
	check_zoned_timestamp(TEMPORAL_TS_NEG_INFINITY, 6, "-infinity");
}

static void
check_zoned_time(int64_t pg_time, int32_t zone, const char *expected)
{
	char		out[TEMPORAL_TEXT_MAX];
	size_t		n = temporal_zoned_time(pg_time, zone, out);

	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_zoned_time(void **state)
{
	/* 13:51:30.123789+02 and 13:51:30.123+02 */
	check_zoned_time(INT64_C(49890123789), -7200, "11:51:30.123789Z");
	check_zoned_time(INT64_C(49890123000), -7200, "11:51:30.123Z");
	check_zoned_time(INT64_C(49862000000), -7200, "11:51:02Z");
	check_zoned_time(0, 0, "00:00:00Z");
	/* 00:00:00-15:59 and 23:59:59.999999+15:59 cross midnight */
	check_zoned_time(0, 57540, "15:59:00Z");
	check_zoned_time(INT64_C(86399999999), -57540, "08:00:59.999999Z");
	/* 12:00:00.5-05:30 */
	check_zoned_time(INT64_C(43200500000), 19800, "17:30:00.5Z");
	/* java.time reads 24:00 as the next midnight */
	check_zoned_time(INT64_C(86400000000), 0, "00:00:00Z");
	check_zoned_time(INT64_C(86400000000), -7200, "22:00:00Z");
}

static void
check_interval(int32_t months, int32_t days, int64_t usecs,
			   int64_t expected_micros, const char *expected_iso)
{
	char		out[TEMPORAL_TEXT_MAX];
	size_t		n;

	assert_int_equal(temporal_interval_micros(months, days, usecs), expected_micros);
	n = temporal_interval_iso(months, days, usecs, out);
	assert_string_equal(out, expected_iso);
	assert_int_equal(n, strlen(expected_iso));
}

static void
test_interval(void **state)
{
	/* '1 year 2 mons 3 days 04:05:06.78', Debezium's own example */
	check_interval(14, 3, INT64_C(14706780000), INT64_C(37091106780000),
				   "P1Y2M3DT4H5M6.78S");
	check_interval(0, 0, 0, 0, "P0Y0M0DT0H0M0S");
	check_interval(0, -1, INT64_C(14706000001), INT64_C(-71693999999),
				   "P0Y0M-1DT4H5M6.000001S");
	check_interval(0, 0, -500000, -500000, "P0Y0M0DT0H0M-0.5S");
	check_interval(1, -1, 0, INT64_C(2543400000000), "P0Y1M-1DT0H0M0S");
	check_interval(-1, 1, 0, INT64_C(-2543400000000), "P0Y-1M1DT0H0M0S");
	check_interval(1200, 0, 1000000, INT64_C(3155760001000000), "P100Y0M0DT0H0M1S");
	check_interval(0, 0, INT64_C(86399999999), INT64_C(86399999999),
				   "P0Y0M0DT23H59M59.999999S");
	check_interval(0, 0, INT64_C(-2147482854775808), INT64_C(-2147482854775808),
				   "P0Y0M0DT-596523H0M-54.775808S");
}

/* Where Debezium's double arithmetic shows through. */
static void
test_interval_double_artefacts(void **state)
{
	/* the exact sums end in ...068 and ...019 */
	check_interval(27704, 907, INT64_C(6238690714068), INT64_C(72940582690714064),
				   "P2308Y8M907DT1732H58M10.714068S");
	check_interval(-18841, 632, 217981, INT64_C(-49493456999782024),
				   "P-1570Y-1M632DT0H0M0.217981S");
	/* 1.500949 s is 1.5009489999999999 as a double, cut to 9 digits */
	check_interval(-7146, 0, INT64_C(2319301500949), INT64_C(-18790231498499052),
				   "P-595Y-6M0DT644H15M1.500948999S");
	/* beyond Long's range the cast saturates */
	check_interval(INT32_MAX, 0, 0, INT64_MAX, "P178956970Y7M0DT0H0M0S");
	check_interval(INT32_MIN, 0, 0, INT64_MIN, "P-178956970Y-8M0DT0H0M0S");
	check_interval(0, INT32_MIN, 0, INT64_MIN, "P0Y0M-2147483648DT0H0M0S");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_timestamp_limits),
		cmocka_unit_test(test_zoned_timestamp),
		cmocka_unit_test(test_zoned_timestamp_years),
		cmocka_unit_test(test_zoned_time),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_default_infinity),
		cmocka_unit_test(test_interval_double_artefacts),
	};

	return cmocka_run_group_tests_name("temporal", tests, NULL, NULL);
}
