/*-------------------------------------------------------------------------
 *
 * nameadjust_test.c
 *		Unit tests of nameadjust.c against the names Debezium 3.6.1's
 *		SchemaNameAdjuster gives (AVRO, AVRO_UNICODE and their field namers).
 *
 * test/unit/nameadjust_test.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/nameadjust.h"

static void
check(const char *in, NameAdjustMode mode, bool field, const char *expected)
{
	char		out[NAMEADJUST_MAX_LEN(64)];
	size_t		n = nameadjust_apply(in, mode, field, out);

	assert_string_equal(out, expected);
	assert_int_equal(n, strlen(expected));
}

static void
test_none(void **state)
{
	check("a b.c-d", NAMEADJUST_NONE, false, "a b.c-d");
	check("é", NAMEADJUST_NONE, true, "é");
}

static void
test_avro(void **state)
{
	check("conf.public.my-table.Value", NAMEADJUST_AVRO, false, "conf.public.my_table.Value");
	check("a.b", NAMEADJUST_AVRO, true, "a_b");
	check("_x9", NAMEADJUST_AVRO, true, "_x9");
	/* a leading digit stays after its '_' */
	check("1col", NAMEADJUST_AVRO, true, "_1col");
	check("-col", NAMEADJUST_AVRO, true, "_col");
	/* one '_' per UTF-16 unit: two for a character outside the BMP */
	check("caf\xc3\xa9", NAMEADJUST_AVRO, true, "caf_");
	check("x\xf0\x9f\x98\x80y", NAMEADJUST_AVRO, true, "x__y");
	check("", NAMEADJUST_AVRO, true, "");
}

static void
test_avro_unicode(void **state)
{
	check("my_col", NAMEADJUST_AVRO_UNICODE, true, "my_u005fcol");
	check("_a", NAMEADJUST_AVRO_UNICODE, true, "_u005fa");
	check("1a", NAMEADJUST_AVRO_UNICODE, true, "_u0031a");
	check("a.b", NAMEADJUST_AVRO_UNICODE, true, "a_u002eb");
	check("a.b-c", NAMEADJUST_AVRO_UNICODE, false, "a.b_u002dc");
	/* Integer.toHexString, "00" in front of 1 or 2 digits only */
	check("a\nb", NAMEADJUST_AVRO_UNICODE, true, "a_u00ab");
	check("caf\xc3\xa9", NAMEADJUST_AVRO_UNICODE, true, "caf_u00e9");
	check("\xce\xb1", NAMEADJUST_AVRO_UNICODE, true, "_u3b1");
	check("\xe2\x82\xac", NAMEADJUST_AVRO_UNICODE, true, "_u20ac");
	check("\xf0\x9f\x98\x80", NAMEADJUST_AVRO_UNICODE, true, "_ud83d_ude00");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_avro),
		cmocka_unit_test(test_avro_unicode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
