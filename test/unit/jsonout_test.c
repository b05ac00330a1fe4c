/*-------------------------------------------------------------------------
 *
 * jsonout_test.c
 *		Unit tests of jsonout.c: Jackson's string escaping as Kafka's
 *		JsonConverter writes it, and Java's Double/Float.toString.
 *
 * The expected texts were produced by Jackson 2.21 and by
 * Double.toString / Float.toString of JDK 25 (the JDK 19+ algorithm that
 * Debezium 3.x runs on) for the same values.
 *
 * test/unit/jsonout_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonout.h"

/* Escape in with jsonout_escape and compare with the expected body. */
static void
check_escape(const char *in, size_t len, const char *expected)
{
	char		out[JSONOUT_ESCAPE_MAX(64) + 1];
	size_t		n;

	assert_true(len <= 64);
	n = jsonout_escape(in, len, out);
	out[n] = '\0';
	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_escape_quotes_and_backslash(void **state)
{
	check_escape("a\"b\\c/d", 7, "a\\\"b\\\\c/d");
	check_escape("", 0, "");
}

static void
test_escape_control_chars(void **state)
{
	check_escape("\b\t\n\f\r", 5, "\\b\\t\\n\\f\\r");
	/* NUL inside the text, other controls in upper-case hex */
	check_escape("x\0y\x01\x0b\x1f", 6, "x\\u0000y\\u0001\\u000B\\u001F");
	/* DEL and space are not escaped */
	check_escape("\x7f ", 2, "\x7f ");
}

static void
test_escape_utf8(void **state)
{
	/* 2- and 3-byte sequences (including U+2028) are copied as they are */
	check_escape("\xc3\xa9\xe4\xb8\xad\xe2\x80\xa8", 8,
				 "\xc3\xa9\xe4\xb8\xad\xe2\x80\xa8");
	/* U+1F600 becomes its surrogate pair, as Jackson's UTF-8 generator writes it */
	check_escape("<\xf0\x9f\x98\x80>", 6, "<\\uD83D\\uDE00>");
	/* U+1D11E, U+10FFFF */
	check_escape("\xf0\x9d\x84\x9e\xf4\x8f\xbf\xbf", 8,
				 "\\uD834\\uDD1E\\uDBFF\\uDFFF");
	/* a truncated 4-byte sequence is copied, not misread */
	check_escape("\xf0\x9f\x98", 3, "\xf0\x9f\x98");
}

static void
test_escape_nested(void **state)
{
	char		out[64];
	size_t		n;

	n = jsonout_escape_nested("k\xf0\x9f\x98\x80\x01\"", 7, out);
	out[n] = '\0';
	assert_string_equal(out, "k\xf0\x9f\x98\x80\\u0001\\\"");
}

static void
test_needs_escape(void **state)
{
	assert_false(jsonout_needs_escape("plain text \xc3\xa9 /", 15));
	assert_false(jsonout_needs_escape("", 0));
	assert_true(jsonout_needs_escape("a\"", 2));
	assert_true(jsonout_needs_escape("a\\", 2));
	assert_true(jsonout_needs_escape("a\n", 2));
	assert_true(jsonout_needs_escape("x\0", 2));
	assert_true(jsonout_needs_escape("\xf0\x9f\x98\x80", 4));
}

static void
check_double(double v, const char *expected)
{
	char		out[JSONOUT_NUMBER_MAX];
	size_t		n = jsonout_double(v, out);

	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static double
double_from_bits(uint64_t bits)
{
	double		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

static void
test_double_plain_range(void **state)
{
	check_double(1.0, "1.0");
	check_double(0.001, "0.001");
	check_double(9999999.0, "9999999.0");
	check_double(100.0, "100.0");
	check_double(123.456, "123.456");
	check_double(3.3, "3.3");
	check_double(4.44, "4.44");
	check_double(1234.12, "1234.12");
	check_double(0.125, "0.125");
	check_double(2.5, "2.5");
	check_double(0.1 + 0.2, "0.30000000000000004");
	check_double(-42.0, "-42.0");
	/* largest double below 1e7 */
	check_double(double_from_bits(UINT64_C(0x416312cfffffffff)), "9999999.999999998");
}

static void
test_double_scientific(void **state)
{
	check_double(1.0E-4, "1.0E-4");
	check_double(1.0E7, "1.0E7");
	check_double(1.2345678901234567E19, "1.2345678901234567E19");
	check_double(-1.5E-5, "-1.5E-5");
	check_double(123456789012.0, "1.23456789012E11");
	check_double(1.0E16, "1.0E16");
	check_double(9007199254740993.0, "9.007199254740992E15");
	/* largest double below 0.001 */
	check_double(double_from_bits(UINT64_C(0x3f50624dd2f1a9fb)), "9.999999999999998E-4");
}

static void
test_double_shortest(void **state)
{
	/* JDK 17 printed 9.999999999999999E22 and 1.9999999999999998E23 */
	check_double(1.0E23, "1.0E23");
	check_double(2.0E23, "2.0E23");
	/* 2^-44: JDK 17 printed one digit too many */
	check_double(ldexp(1.0, -44), "5.684341886080802E-14");
}

static void
test_double_extremes(void **state)
{
	/* Double.MIN_VALUE: two digits are always considered */
	check_double(double_from_bits(1), "4.9E-324");
	check_double(double_from_bits(UINT64_C(0x0010000000000000)), "2.2250738585072014E-308");
	check_double(1.7976931348623157E308, "1.7976931348623157E308");
	check_double(-0.0, "-0.0");
	check_double(0.0, "0.0");
	check_double(NAN, "NaN");
	check_double(INFINITY, "Infinity");
	check_double(-INFINITY, "-Infinity");
}

/*
 * Independent checks on many values: the text reads back to the same
 * double, is in Java's layout, and has no superfluous trailing zero.
 */
static void
test_double_round_trip(void **state)
{
	uint64_t	x = UINT64_C(0x9E3779B97F4A7C15);
	int			i;

	for (i = 0; i < 20000; i++)
	{
		char		out[JSONOUT_NUMBER_MAX];
		double		v;
		double		back;
		char	   *e;
		char	   *dot;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = double_from_bits(x);
		if (isnan(v) || isinf(v))
			continue;
		jsonout_double(v, out);
		back = strtod(out, NULL);
		assert_true(memcmp(&back, &v, sizeof(v)) == 0);

		dot = strchr(out, '.');
		assert_non_null(dot);
		e = strchr(out, 'E');
		if (fabs(v) >= 1e-3 && fabs(v) < 1e7)
			assert_null(e);
		else
		{
			assert_non_null(e);
			/* one digit before the point */
			assert_true(dot - out == (out[0] == '-' ? 2 : 1));
			/* trailing zero only as the lone fraction digit */
			assert_true(e[-1] != '0' || e - dot == 2);
		}
	}
}

static void
check_float(float v, const char *expected)
{
	char		out[JSONOUT_NUMBER_MAX];
	size_t		n = jsonout_float(v, out);

	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_float(void **state)
{
	float		min_value;
	uint32_t	one = 1;

	memcpy(&min_value, &one, sizeof(min_value));
	check_float(3.4028235E38f, "3.4028235E38");
	check_float(min_value, "1.4E-45");
	check_float(1.17549435E-38f, "1.1754944E-38");
	check_float(0.1f, "0.1");
	check_float(0.3f, "0.3");
	check_float(3.3f, "3.3");
	check_float(1.1f * 1.1f, "1.21");
	check_float(0.001f, "0.001");
	check_float(9999999.0f, "9999999.0");
	check_float(1.0E7f, "1.0E7");
	check_float(1.0E10f, "1.0E10");
	check_float(16777216.0f, "1.6777216E7");
	check_float(33554436.0f, "3.3554436E7");
	check_float(-0.0f, "-0.0");
	check_float(NAN, "NaN");
	check_float(-INFINITY, "-Infinity");
}

static void
test_integers(void **state)
{
	char		out[32];

	assert_int_equal(jsonout_int64(0, out), 1);
	assert_string_equal(out, "0");
	jsonout_int64(-1, out);
	assert_string_equal(out, "-1");
	assert_int_equal(jsonout_int64(INT64_MIN, out), 20);
	assert_string_equal(out, "-9223372036854775808");
	jsonout_int64(INT64_MAX, out);
	assert_string_equal(out, "9223372036854775807");
	assert_int_equal(jsonout_uint64(UINT64_MAX, out), 20);
	assert_string_equal(out, "18446744073709551615");
	jsonout_uint64(1000, out);
	assert_string_equal(out, "1000");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_quotes_and_backslash),
		cmocka_unit_test(test_escape_control_chars),
		cmocka_unit_test(test_escape_utf8),
		cmocka_unit_test(test_escape_nested),
		cmocka_unit_test(test_needs_escape),
		cmocka_unit_test(test_double_plain_range),
		cmocka_unit_test(test_double_scientific),
		cmocka_unit_test(test_double_shortest),
		cmocka_unit_test(test_double_extremes),
		cmocka_unit_test(test_double_round_trip),
		cmocka_unit_test(test_float),
		cmocka_unit_test(test_integers),
	};

	return cmocka_run_group_tests_name("jsonout", tests, NULL, NULL);
}
