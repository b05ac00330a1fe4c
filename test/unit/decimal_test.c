/*-------------------------------------------------------------------------
 *
 * decimal_test.c
 *		Unit tests of decimal.c: numeric text to BigInteger.toByteArray
 *		bytes of the unscaled value, rescaling and stripping, and
 *		BigDecimal.toPlainString.
 *
 * Long values are checked against bytes computed here by a different
 * method: dividing the decimal digit string by 256 repeatedly, and for
 * negative values taking the complement of (magnitude - 1).
 *
 * test/unit/decimal_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/decimal.h"

#define LONG_DIGITS 1200

static void
check_bytes(const char *text, int scale, const uint8_t *expected,
			size_t expected_len, int expected_scale)
{
	uint8_t		out[DECIMAL_BYTES_MAX(64)];
	size_t		n = 0;
	int			scale_out = -99;

	assert_int_equal(decimal_unscaled_bytes(text, scale, out, &n, &scale_out),
					 DECIMAL_OK);
	assert_int_equal(n, expected_len);
	assert_memory_equal(out, expected, expected_len);
	assert_int_equal(scale_out, expected_scale);
}

static void
test_small_integers(void **state)
{
	check_bytes("0", 0, (const uint8_t *) "\x00", 1, 0);
	check_bytes("-0", 0, (const uint8_t *) "\x00", 1, 0);
	check_bytes("1", 0, (const uint8_t *) "\x01", 1, 0);
	check_bytes("127", 0, (const uint8_t *) "\x7f", 1, 0);
	check_bytes("128", 0, (const uint8_t *) "\x00\x80", 2, 0);
	check_bytes("255", 0, (const uint8_t *) "\x00\xff", 2, 0);
	check_bytes("256", 0, (const uint8_t *) "\x01\x00", 2, 0);
	check_bytes("-1", 0, (const uint8_t *) "\xff", 1, 0);
	check_bytes("-128", 0, (const uint8_t *) "\x80", 1, 0);
	check_bytes("-129", 0, (const uint8_t *) "\xff\x7f", 2, 0);
	check_bytes("-255", 0, (const uint8_t *) "\xff\x01", 2, 0);
	check_bytes("-256", 0, (const uint8_t *) "\xff\x00", 2, 0);
	check_bytes("-32768", 0, (const uint8_t *) "\x80\x00", 2, 0);
	check_bytes("-32769", 0, (const uint8_t *) "\xff\x7f\xff", 3, 0);
	check_bytes("2147483648", 0, (const uint8_t *) "\x00\x80\x00\x00\x00", 5, 0);
	check_bytes("000042", 0, (const uint8_t *) "\x2a", 1, 0);
}

/* The worked values of Debezium's numeric(5,2) documentation. */
static void
test_scaled_values(void **state)
{
	check_bytes("123.45", 2, (const uint8_t *) "\x30\x39", 2, 2);
	check_bytes("-123.45", 2, (const uint8_t *) "\xcf\xc7", 2, 2);
	check_bytes("1.00", 2, (const uint8_t *) "\x64", 1, 2);
	check_bytes("0.00", 2, (const uint8_t *) "\x00", 1, 2);
	/* rescaling pads: 1.5 at scale 3 is 1500 */
	check_bytes("1.5", 3, (const uint8_t *) "\x05\xdc", 2, 3);
	check_bytes("12", 2, (const uint8_t *) "\x04\xb0", 2, 2);
	/* dropping zero digits is allowed */
	check_bytes("1.500", 1, (const uint8_t *) "\x0f", 1, 1);
	check_bytes("1.500", DECIMAL_KEEP_SCALE, (const uint8_t *) "\x05\xdc", 2, 3);
	check_bytes("-0.001", 3, (const uint8_t *) "\xff", 1, 3);
}

/* VariableScaleDecimal: stripTrailingZeros, never below scale 0. */
static void
test_strip(void **state)
{
	check_bytes("1.500", DECIMAL_STRIP_SCALE, (const uint8_t *) "\x0f", 1, 1);
	check_bytes("100.000", DECIMAL_STRIP_SCALE, (const uint8_t *) "\x64", 1, 0);
	check_bytes("1000", DECIMAL_STRIP_SCALE, (const uint8_t *) "\x03\xe8", 2, 0);
	check_bytes("0.000", DECIMAL_STRIP_SCALE, (const uint8_t *) "\x00", 1, 0);
	check_bytes("-0.50", DECIMAL_STRIP_SCALE, (const uint8_t *) "\xfb", 1, 1);
	check_bytes("1.5", DECIMAL_STRIP_SCALE, (const uint8_t *) "\x0f", 1, 1);
}

static void
test_statuses(void **state)
{
	uint8_t		out[DECIMAL_BYTES_MAX(32)];
	char		text[64];
	size_t		n;
	int			s;

	assert_int_equal(decimal_unscaled_bytes("NaN", 2, out, &n, &s), DECIMAL_NAN);
	assert_int_equal(decimal_unscaled_bytes("Infinity", 2, out, &n, &s),
					 DECIMAL_POS_INFINITY);
	assert_int_equal(decimal_unscaled_bytes("-Infinity", 2, out, &n, &s),
					 DECIMAL_NEG_INFINITY);
	assert_int_equal(decimal_unscaled_bytes("1.25", 1, out, &n, &s),
					 DECIMAL_NEEDS_ROUNDING);
	assert_int_equal(decimal_unscaled_bytes("1.001", 0, out, &n, &s),
					 DECIMAL_NEEDS_ROUNDING);
	assert_int_equal(decimal_unscaled_bytes("", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes("-", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes(".", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes("1e5", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes("1.2.3", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes("12a", 0, out, &n, &s), DECIMAL_BAD_INPUT);
	assert_int_equal(decimal_unscaled_bytes("1", -3, out, &n, &s), DECIMAL_BAD_INPUT);

	assert_int_equal(decimal_plain_string("NaN", 2, text, &n), DECIMAL_NAN);
	assert_int_equal(decimal_plain_string("-Infinity", 0, text, &n),
					 DECIMAL_NEG_INFINITY);
	assert_int_equal(decimal_plain_string("9.99", 1, text, &n),
					 DECIMAL_NEEDS_ROUNDING);
}

static void
check_plain(const char *text, int scale, const char *expected)
{
	char		out[128];
	size_t		n = 0;

	assert_int_equal(decimal_plain_string(text, scale, out, &n), DECIMAL_OK);
	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_plain_string(void **state)
{
	check_plain("-123.4500", 2, "-123.45");
	check_plain("-123.45", 4, "-123.4500");
	check_plain("0", 2, "0.00");
	check_plain("-0.00", 2, "0.00");
	check_plain("1000", 0, "1000");
	check_plain("1000", DECIMAL_STRIP_SCALE, "1000");
	check_plain("100.000", DECIMAL_STRIP_SCALE, "100");
	check_plain("0.0100", DECIMAL_STRIP_SCALE, "0.01");
	check_plain("007.50", DECIMAL_KEEP_SCALE, "7.50");
	check_plain("-0.5", 1, "-0.5");
	check_plain(".5", 1, "0.5");
	check_plain("12345678901234567890.123456789", 9,
				"12345678901234567890.123456789");
}

/* Next pseudo-random digit, deterministic. */
static int
next_digit(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (int) ((*seed >> 16) % 10);
}

/*
 * Big-endian magnitude bytes of a decimal digit string, by long division
 * by 256 on the digits; returns the count (0 for zero).
 */
static size_t
magnitude_by_division(const char *digits, uint8_t *out, size_t outsize)
{
	char	   *num = strdup(digits);
	size_t		len = strlen(num);
	size_t		n = 0;
	size_t		start = 0;

	for (;;)
	{
		unsigned	rem = 0;
		size_t		i;

		while (start < len && num[start] == '0')
			start++;
		if (start == len)
			break;
		for (i = start; i < len; i++)
		{
			unsigned	cur = rem * 10 + (unsigned) (num[i] - '0');

			num[i] = (char) ('0' + cur / 256);
			rem = cur % 256;
		}
		assert_true(n < outsize);
		out[outsize - 1 - n++] = (uint8_t) rem;
	}
	memmove(out, out + outsize - n, n);
	free(num);
	return n;
}

/* Decrement a positive decimal digit string in place. */
static void
decrement(char *digits)
{
	size_t		i = strlen(digits);

	while (i-- > 0)
	{
		if (digits[i] != '0')
		{
			digits[i]--;
			return;
		}
		digits[i] = '9';
	}
}

/*
 * Expected toByteArray of +digits or -digits: the magnitude with a sign
 * byte if needed, or the complement of (magnitude - 1).
 */
static size_t
expected_bytes(const char *digits, int negative, uint8_t *out, size_t outsize)
{
	char	   *m1 = strdup(digits);
	size_t		n;
	size_t		i;

	if (!negative)
	{
		n = magnitude_by_division(digits, out + 1, outsize - 1);
		if (n == 0 || (out[1] & 0x80))
		{
			out[0] = 0;
			free(m1);
			return n + 1;
		}
		memmove(out, out + 1, n);
		free(m1);
		return n;
	}
	decrement(m1);
	n = magnitude_by_division(m1, out + 1, outsize - 1);
	free(m1);
	for (i = 1; i <= n; i++)
		out[i] = (uint8_t) ~out[i];
	if (n == 0 || !(out[1] & 0x80))
	{
		out[0] = 0xFF;
		return n + 1;
	}
	memmove(out, out + 1, n);
	return n;
}

static void
check_long_value(uint32_t seed, int negative, size_t intlen, size_t fraclen,
				 int scale)
{
	char		text[LONG_DIGITS + 8];
	char		unscaled[LONG_DIGITS + 64];
	uint8_t		expected[LONG_DIGITS];
	uint8_t		got[DECIMAL_BYTES_MAX(LONG_DIGITS + 64)];
	char	   *p = text;
	size_t		i;
	size_t		n;
	size_t		expected_n;
	int			scale_out;

	if (negative)
		*p++ = '-';
	for (i = 0; i < intlen; i++)
		*p++ = (char) ('0' + next_digit(&seed));
	*p++ = '.';
	for (i = 0; i < fraclen; i++)
		*p++ = (char) ('0' + next_digit(&seed));
	*p = '\0';

	/* the unscaled digits: everything but sign and point, padded to scale */
	p = unscaled;
	for (i = negative; text[i] != '\0'; i++)
		if (text[i] != '.')
			*p++ = text[i];
	for (i = fraclen; i < (size_t) scale; i++)
		*p++ = '0';
	*p = '\0';

	expected_n = expected_bytes(unscaled, negative, expected, sizeof(expected));
	assert_int_equal(decimal_unscaled_bytes(text, scale, got, &n, &scale_out),
					 DECIMAL_OK);
	assert_int_equal(scale_out, scale);
	assert_int_equal(n, expected_n);
	assert_memory_equal(got, expected, n);
}

static void
test_long_values(void **state)
{
	/* about 1000 digits, both signs, kept and padded scales */
	check_long_value(1, 0, 700, 300, 300);
	check_long_value(2, 1, 700, 300, 300);
	check_long_value(3, 0, 1000, 10, 40);
	check_long_value(4, 1, 999, 1, 1);
	check_long_value(5, 1, 1, 1000, 1000);
	check_long_value(6, 0, 37, 2, 2);
	check_long_value(7, 1, 38, 0, 0);
}

/* -(2^(8k-1)) and neighbours: where the sign byte comes and goes. */
static void
test_power_of_two_edges(void **state)
{
	check_bytes("-9223372036854775808", 0,
				(const uint8_t *) "\x80\x00\x00\x00\x00\x00\x00\x00", 8, 0);
	check_bytes("-9223372036854775809", 0,
				(const uint8_t *) "\xff\x7f\xff\xff\xff\xff\xff\xff\xff", 9, 0);
	check_bytes("9223372036854775808", 0,
				(const uint8_t *) "\x00\x80\x00\x00\x00\x00\x00\x00\x00", 9, 0);
	check_bytes("18446744073709551616", 0,
				(const uint8_t *) "\x01\x00\x00\x00\x00\x00\x00\x00\x00", 9, 0);
}

/*
 * The text numeric_out would print for base-10000 digits: every digit
 * group written out, the point after the group worth 10000^0.
 */
static void
base10000_text(const int16_t *digits, int ndigits, int weight, int negative,
			   char *out)
{
	int			first = weight > 0 ? weight : 0;
	int			last = weight - ndigits + 1 < 0 ? weight - ndigits + 1 : 0;
	int			pos;
	char	   *p = out;

	if (negative)
		*p++ = '-';
	for (pos = first; pos >= last; pos--)
	{
		int			i = weight - pos;
		int			group = (i >= 0 && i < ndigits) ? digits[i] : 0;

		if (pos == -1)
			*p++ = '.';
		p += sprintf(p, "%04d", group);
	}
	*p = '\0';
}

/*
 * Compare the digit path with the text path on one value and scale;
 * returns whether the digit path took it.
 */
static int
check_base10000(const int16_t *digits, int ndigits, int weight, int negative,
				int scale)
{
	char		text[4 * (DECIMAL_B10000_MAX_DIGITS + 40) + 8];
	uint8_t		want[DECIMAL_BYTES_MAX(sizeof(text) + 40)];
	uint8_t		got[DECIMAL_B10000_BYTES_MAX];
	size_t		want_n = 0;
	size_t		got_n = 0;
	int			want_scale = -99;
	int			got_scale = -99;
	DecimalStatus want_st;
	DecimalStatus got_st;

	base10000_text(digits, ndigits, weight, negative, text);
	want_st = decimal_unscaled_bytes(text, scale, want, &want_n, &want_scale);
	got_st = decimal_base10000_bytes(digits, ndigits, weight, negative, scale,
									 got, &got_n, &got_scale);
	if (got_st == DECIMAL_BAD_INPUT)
	{
		/*
		 * Only when the digits alone may pass 63 bits (5 groups can), or
		 * the rescaled value does (the bound is conservative by 10^4)
		 */
		assert_true(ndigits == DECIMAL_B10000_MAX_DIGITS ||
					(want_st == DECIMAL_OK && want_n >= 8));
		return 0;
	}
	assert_int_equal(got_st, want_st);
	if (want_st != DECIMAL_OK)
		return 1;
	assert_int_equal(got_scale, want_scale);
	assert_int_equal(got_n, want_n);
	assert_memory_equal(got, want, want_n);
	return 1;
}

static void
test_base10000_edges(void **state)
{
	const int16_t zero[] = {0};
	const int16_t one[] = {1};
	const int16_t cents[] = {1234, 5600};
	const int16_t big[] = {922, 3372, 368, 5477, 5807};
	const int16_t top[] = {92, 2337, 2036, 8547, 7580};

	check_base10000(zero, 0, 0, 0, 2);
	check_base10000(zero, 0, 0, 1, DECIMAL_STRIP_SCALE);
	check_base10000(one, 1, 0, 1, 0);
	check_base10000(one, 1, -1, 0, 4);
	check_base10000(one, 1, -1, 0, 3);	/* needs rounding */
	check_base10000(one, 1, 3, 1, DECIMAL_STRIP_SCALE);
	check_base10000(cents, 2, 0, 1, 2);
	check_base10000(cents, 2, 0, 1, 1);
	check_base10000(cents, 2, 0, 0, DECIMAL_STRIP_SCALE);
	check_base10000(big, 5, 4, 0, 0);	/* 2^63 - 1: text path */
	check_base10000(big, 5, 4, 1, 0);
	assert_true(check_base10000(top, 5, 4, 0, 0));	/* below the bound */
	assert_true(check_base10000(top, 5, 4, 1, 0));
	assert_true(check_base10000(top, 5, 2, 1, 8));
	check_base10000(cents, 2, 4, 0, 0);
}

/* Random values of up to 10 digit groups, either sign, many scales. */
static void
test_base10000_random(void **state)
{
	unsigned	seed = 12345;
	int			direct = 0;
	int			n;

	for (n = 0; n < 20000; n++)
	{
		int16_t		digits[DECIMAL_B10000_MAX_DIGITS];
		int			ndigits;
		int			weight;
		int			i;

		seed = seed * 1103515245 + 12345;
		ndigits = (seed >> 16) % (DECIMAL_B10000_MAX_DIGITS + 1);
		seed = seed * 1103515245 + 12345;
		weight = (int) ((seed >> 16) % 9) - 4;
		for (i = 0; i < ndigits; i++)
		{
			seed = seed * 1103515245 + 12345;
			digits[i] = (int16_t) ((seed >> 8) % 10000);
			/* trailing zero groups and zeros in the last group are common */
			if ((seed >> 24) % 4 == 0)
				digits[i] = (int16_t) (digits[i] / 100 * 100);
		}
		direct += check_base10000(digits, ndigits, weight, (seed >> 30) & 1,
								  (int) ((seed >> 4) % 12) - 1);
	}
	/* most values fit: the digit path itself is what is compared */
	assert_true(direct > 10000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_integers),
		cmocka_unit_test(test_scaled_values),
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_plain_string),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_power_of_two_edges),
		cmocka_unit_test(test_base10000_edges),
		cmocka_unit_test(test_base10000_random),
	};

	return cmocka_run_group_tests_name("decimal", tests, NULL, NULL);
}
