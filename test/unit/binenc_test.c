/*-------------------------------------------------------------------------
 *
 * binenc_test.c
 *		Unit tests of binenc.c: base64 (java.util.Base64 standard and URL
 *		encoders), lower-case hex and Debezium's BIT/VARBIT bytes.
 *
 * The bit vectors are those of Debezium's own tests
 * (AbstractRecordsProducerTest.schemaAndValuesForBinTypes).
 *
 * test/unit/binenc_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/binenc.h"

static void
check_base64(const char *in, size_t len, int url_safe, const char *expected)
{
	char		out[64];
	size_t		n;

	n = binenc_base64((const uint8_t *) in, len, out, url_safe);
	assert_int_equal(n, BINENC_BASE64_LEN(len));
	out[n] = '\0';
	assert_string_equal(out, expected);
}

/* RFC 4648 section 10 */
static void
test_base64_rfc4648(void **state)
{
	check_base64("", 0, 0, "");
	check_base64("f", 1, 0, "Zg==");
	check_base64("fo", 2, 0, "Zm8=");
	check_base64("foo", 3, 0, "Zm9v");
	check_base64("foob", 4, 0, "Zm9vYg==");
	check_base64("fooba", 5, 0, "Zm9vYmE=");
	check_base64("foobar", 6, 0, "Zm9vYmFy");
	check_base64("foobar", 6, 1, "Zm9vYmFy");
}

static void
test_base64_alphabets(void **state)
{
	check_base64("\xfb\xff", 2, 0, "+/8=");
	check_base64("\xfb\xff", 2, 1, "-_8=");
	check_base64("\xfb\xef\xbe", 3, 0, "++++");
	check_base64("\xff\xff\xff", 3, 1, "____");
	check_base64("\x01\x02\x03", 3, 0, "AQID");
	check_base64("\x00", 1, 0, "AA==");
	/* Debezium's unavailable-value placeholder as bytes */
	check_base64("__debezium_unavailable_value", 28, 0,
				 "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==");
}

static void
test_hex(void **state)
{
	const uint8_t in[] = {0x00, 0x01, 0xab, 0xff, 0x10};
	char		out[16];
	size_t		n;

	n = binenc_hex(in, sizeof(in), out);
	assert_int_equal(n, BINENC_HEX_LEN(sizeof(in)));
	out[n] = '\0';
	assert_string_equal(out, "0001abff10");
	assert_int_equal(binenc_hex(in, 0, out), 0);
}

static void
check_bits(const char *bits, size_t min_bytes, const uint8_t *expected,
		   size_t expected_len)
{
	uint8_t		out[16];
	size_t		n;

	memset(out, 0xAA, sizeof(out));
	n = binenc_bits_le(bits, strlen(bits), min_bytes, out);
	assert_int_equal(n, expected_len);
	if (expected_len > 0)
		assert_memory_equal(out, expected, expected_len);
}

static void
test_bits(void **state)
{
	const uint8_t b101[] = {0x05};
	const uint8_t b11[] = {0x03};
	const uint8_t b7[] = {0x40};
	const uint8_t b24[] = {0x01, 0x02, 0x03};
	const uint8_t b64[] = {0, 0, 0, 0, 0, 0, 0, 0x80};
	const uint8_t b33[] = {0x01, 0x02, 0x23, 0xDA, 0x01};
	const uint8_t zeros[] = {0, 0};
	const uint8_t padded[] = {0x05, 0, 0};

	check_bits("101", 0, b101, 1);
	check_bits("11", 0, b11, 1);
	/* '1'::bit(7) is stored as 1000000 */
	check_bits("1000000", 0, b7, 1);
	check_bits("000000110000001000000001", 0, b24, 3);
	check_bits("1000000000000000000000000000000000000000000000000000000000000000",
			   0, b64, 8);
	check_bits("111011010001000110000001000000001", 0, b33, 5);
	/* all zeros: BitSet.toByteArray gives nothing, unless padded */
	check_bits("00", 0, NULL, 0);
	check_bits("0000000000", 2, zeros, 2);
	check_bits("", 0, NULL, 0);
	/* padding to a minimum width, little-endian so zeros go last */
	check_bits("101", 3, padded, 3);
	/* leading zeros do not add bytes */
	check_bits("0000000000000101", 0, b101, 1);
}

/* Decoding gives back every length of input, and refuses what is not base64. */
static void
test_unbase64(void **state)
{
	uint8_t		in[64];
	char		text[BINENC_BASE64_LEN(64)];
	uint8_t		back[64];
	size_t		n;

	for (n = 0; n < sizeof(in); n++)
		in[n] = (uint8_t) (n * 37 + 11);
	for (n = 0; n <= sizeof(in); n++)
	{
		size_t		tlen = binenc_base64(in, n, text, 0);

		assert_int_equal(binenc_unbase64(text, tlen, back), (long) n);
		assert_memory_equal(back, in, n);
	}
	assert_int_equal(binenc_unbase64("AA==", 4, back), 1);
	assert_int_equal(back[0], 0);
	assert_int_equal(binenc_unbase64("AAA", 3, back), -1);	/* not whole groups */
	assert_int_equal(binenc_unbase64("A===", 4, back), -1);
	assert_int_equal(binenc_unbase64("AA==AAAA", 8, back), -1);	/* padding inside */
	assert_int_equal(binenc_unbase64("AA-_", 4, back), -1);	/* URL-safe alphabet */
	assert_int_equal(binenc_unbase64("", 0, back), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64_rfc4648),
		cmocka_unit_test(test_base64_alphabets),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_unbase64),
	};

	return cmocka_run_group_tests_name("binenc", tests, NULL, NULL);
}
