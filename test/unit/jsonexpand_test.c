/*-------------------------------------------------------------------------
 *
 * jsonexpand_test.c
 *		Unit tests of jsonexpand.c: the outbox EventRouter's
 *		table.expand.json.payload against Debezium 3.6.1 itself.
 *
 * The expected texts of the table below were produced by
 * test/unit/JsonExpandOracle.java: Debezium 3.6.1's JsonSchemaData
 * (toConnectSchema, toConnectData) on Jackson 2.21's ObjectMapper.readTree
 * of each input, written by Kafka 4.3's JsonConverter with schemas enabled,
 * i.e. {"schema":<schema>,"payload":<value>}; NULL where Debezium's
 * expansion throws (it keeps the string then).  The other tests build
 * inputs too long for the table; their outcomes come from the same oracle.
 *
 * test/unit/jsonexpand_test.c
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

#include "common/jsonexpand.h"

typedef struct Buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} Buf;

static void
buf_append(void *arg, const char *data, size_t len)
{
	Buf		   *b = arg;

	if (b->len + len + 1 > b->cap)
	{
		b->cap = (b->len + len + 1) * 2;
		b->data = realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

/* Everything allocated during one render, freed after it. */
typedef struct Arena
{
	void	  **ptrs;
	size_t		n;
	size_t		cap;
} Arena;

static void *
arena_alloc(void *arg, size_t size)
{
	Arena	   *a = arg;

	if (a->n == a->cap)
	{
		a->cap = a->cap ? a->cap * 2 : 64;
		a->ptrs = realloc(a->ptrs, a->cap * sizeof(void *));
	}
	return a->ptrs[a->n++] = malloc(size);
}

static int	last_schema_depth;
static int	last_value_depth;

/* The JsonConverter envelope of a render of json, or NULL when it fails. */
static char *
render(const char *json, size_t len, NameAdjustMode mode, bool null_bytes,
	   char *err, size_t errlen)
{
	Buf			schema = {0};
	Buf			value = {0};
	Arena		arena = {0};
	JsonExpandOut so = {buf_append, &schema};
	JsonExpandOut vo = {buf_append, &value};
	char	   *result = NULL;
	int			rc;

	rc = jsonexpand_render(json, len, "payload", null_bytes, mode,
						   arena_alloc, &arena, &so, &vo, err, errlen);
	if (rc == 0)
	{
		assert_non_null(schema.data);
		assert_non_null(value.data);
		result = malloc(schema.len + value.len + 32);
		sprintf(result, "{\"schema\":%s,\"payload\":%s}", schema.data, value.data);
		last_schema_depth = so.depth;
		last_value_depth = vo.depth;
	}
	else
		assert_int_equal(rc, -1);
	for (size_t i = 0; i < arena.n; i++)
		free(arena.ptrs[i]);
	free(arena.ptrs);
	free(schema.data);
	free(value.data);
	return result;
}

static void
check(const char *json, size_t len, NameAdjustMode mode, bool null_bytes,
	  const char *expected)
{
	char		err[256];
	char	   *got = render(json, len, mode, null_bytes, err, sizeof(err));

	if (expected == NULL)
	{
		if (got != NULL)
			fail_msg("expected a failure for %.200s, got %.300s", json, got);
		assert_true(strlen(err) > 0);
		assert_null(strchr(err, '\n'));
		return;
	}
	if (got == NULL)
		fail_msg("unexpected failure for %.200s: %s", json, err);
	assert_string_equal(got, expected);
	free(got);
}

typedef struct Case
{
	NameAdjustMode mode;
	bool		null_bytes;
	const char *json;
	const char *expected;
} Case;

/* Generated from the oracle's output (see the header comment). */
static const Case cases[] = {
	{NAMEADJUST_NONE, false,
		"{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false,\"e\":null}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"},{\"type\":\"string\",\"optional\":true,\"field\":\"b\"},{\"type\":\"boolean\",\"optional\":true,\"field\":\"c\"},{\"type\":\"boolean\",\"optional\":true,\"field\":\"d\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false}}"},
	{NAMEADJUST_NONE, true,
		"{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false,\"e\":null}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"},{\"type\":\"string\",\"optional\":true,\"field\":\"b\"},{\"type\":\"boolean\",\"optional\":true,\"field\":\"c\"},{\"type\":\"boolean\",\"optional\":true,\"field\":\"d\"},{\"type\":\"bytes\",\"optional\":true,\"field\":\"e\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false,\"e\":null}}"},
	{NAMEADJUST_NONE, false,
		"{\"o\":{\"p\":{\"q\":1}},\"r\":{}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"q\"}],\"optional\":true,\"name\":\"payload.o.p\",\"field\":\"p\"}],\"optional\":true,\"name\":\"payload.o\",\"field\":\"o\"},{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload.r\",\"field\":\"r\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"o\":{\"p\":{\"q\":1}},\"r\":{}}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":1,\"b\":2,\"a\":\"x\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"a\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":\"x\",\"b\":2}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":{\"x\":1},\"b\":2,\"a\":{\"y\":2}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"y\"}],\"optional\":true,\"name\":\"payload.a\",\"field\":\"a\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":{\"y\":2},\"b\":2}}"},
	{NAMEADJUST_NONE, false,
		"{\"i\":[1,2,3],\"s\":[\"a\",\"b\"],\"e\":[],\"n\":[null,1]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true,\"field\":\"i\"},{\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":true},\"optional\":true,\"field\":\"s\"},{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true,\"field\":\"n\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"i\":[1,2,3],\"s\":[\"a\",\"b\"],\"n\":[null,1]}}"},
	{NAMEADJUST_NONE, false,
		"{\"n\":[null]}",
		NULL},
	{NAMEADJUST_NONE, true,
		"{\"n\":[null]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"bytes\",\"optional\":true},\"optional\":true,\"field\":\"n\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"n\":[null]}}"},
	{NAMEADJUST_NONE, true,
		"{\"n\":[null,null],\"m\":[]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"bytes\",\"optional\":true},\"optional\":true,\"field\":\"n\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"n\":[null,null]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},{\"a\":2}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":1},{\"a\":2}]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},null,{\"a\":2}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":1},null,{\"a\":2}]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},null,{\"b\":2}]}",
		NULL},
	{NAMEADJUST_NONE, true,
		"{\"x\":[{\"a\":null},{\"a\":1}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":null},{\"a\":1}]}}"},
	{NAMEADJUST_NONE, true,
		"{\"x\":[{\"a\":1},{\"a\":null}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":1},{\"a\":null}]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},{\"a\":\"s\"}]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[1,2],[3]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[[1,2],[3]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[{\"a\":{\"b\":1}}],[{\"a\":{\"b\":2}}]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"a\",\"field\":\"a\"}],\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[[{\"a\":{\"b\":1}}],[{\"a\":{\"b\":2}}]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[{\"a\":1}],[{\"b\":2}]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[[{\"a\":1}],[{\"a\":null}]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[1],[\"a\"]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[],[1]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[1],[]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[[1],[]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[1,\"a\"]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[1,2147483648]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[1,1.5]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[1.5,9223372036854775808]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},2]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[true,false,null]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"boolean\",\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[true,false,null]}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":2147483647,\"b\":2147483648,\"c\":-2147483648,\"d\":-2147483649,\"e\":9223372036854775807,\"f\":-9223372036854775808}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"b\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"c\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"d\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"e\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"f\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":2147483647,\"b\":2147483648,\"c\":-2147483648,\"d\":-2147483649,\"e\":9223372036854775807,\"f\":-9223372036854775808}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":9223372036854775808}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":-9223372036854775809}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":0.1,\"b\":1e20,\"c\":-0.0,\"d\":1.5E-7,\"e\":-0,\"f\":1.0,\"g\":1E+2,\"h\":123456789.25,\"i\":1e7,\"j\":0.001}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"double\",\"optional\":true,\"field\":\"a\"},{\"type\":\"double\",\"optional\":true,\"field\":\"b\"},{\"type\":\"double\",\"optional\":true,\"field\":\"c\"},{\"type\":\"double\",\"optional\":true,\"field\":\"d\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"e\"},{\"type\":\"double\",\"optional\":true,\"field\":\"f\"},{\"type\":\"double\",\"optional\":true,\"field\":\"g\"},{\"type\":\"double\",\"optional\":true,\"field\":\"h\"},{\"type\":\"double\",\"optional\":true,\"field\":\"i\"},{\"type\":\"double\",\"optional\":true,\"field\":\"j\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":0.1,\"b\":1.0E20,\"c\":-0.0,\"d\":1.5E-7,\"e\":0,\"f\":1.0,\"g\":100.0,\"h\":1.2345678925E8,\"i\":1.0E7,\"j\":0.001}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":1e400,\"b\":-1e400,\"c\":1e-400}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"double\",\"optional\":true,\"field\":\"a\"},{\"type\":\"double\",\"optional\":true,\"field\":\"b\"},{\"type\":\"double\",\"optional\":true,\"field\":\"c\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":\"Infinity\",\"b\":\"-Infinity\",\"c\":0.0}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\fu\\u0001\\u001f\\u007f\\u00e9\\u20ac\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"q\\\"b\\\\s/n\\nt\\tr\\rb\\bf\\fu\\u0001\\u001F\x7f\xc3\xa9\xe2\x82\xac\"}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"\\ud83d\\ude00 x \\uD83D\\uDE00\",\"t\":\"\xf0\x9f\x98\x80\xc3\xa9\xe2\x82\xac\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"},{\"type\":\"string\",\"optional\":true,\"field\":\"t\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"\\uD83D\\uDE00 x \\uD83D\\uDE00\",\"t\":\"\\uD83D\\uDE00\xc3\xa9\xe2\x82\xac\"}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"\\ud800\",\"t\":\"\\udc00\\ud800\",\"u\":\"\\ud83d x\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"},{\"type\":\"string\",\"optional\":true,\"field\":\"t\"},{\"type\":\"string\",\"optional\":true,\"field\":\"u\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"\\uD800\",\"t\":\"\\uDC00\\uD800\",\"u\":\"\\uD83D x\"}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"\\u0000a\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"\\u0000a\"}}"},
	{NAMEADJUST_AVRO, false,
		"{\"a-b\":1,\"c\":{\"d.e\":2},\"ok\":3}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a_b\"},{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"d_e\"}],\"optional\":true,\"name\":\"payload.c\",\"field\":\"c\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"ok\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a_b\":null,\"c\":{\"d_e\":null},\"ok\":3}}"},
	{NAMEADJUST_AVRO, false,
		"{\"a-b\":1,\"a_b\":\"x\"}",
		NULL},
	{NAMEADJUST_AVRO, false,
		"{\"a_b\":\"x\",\"a-b\":1}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"a_b\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a_b\":\"x\"}}"},
	{NAMEADJUST_AVRO, false,
		"{\"a-b\":9223372036854775808}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"double\",\"optional\":true,\"field\":\"a_b\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a_b\":null}}"},
	{NAMEADJUST_AVRO_UNICODE, false,
		"{\"a_b\":1,\"\xc3\xa9\":2,\"\\ud83d\\ude00\":3,\"\\ud800\":4}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a_u005fb\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"_u00e9\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"_ud83d_ude00\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"_ud800\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a_u005fb\":null,\"_u00e9\":null,\"_ud83d_ude00\":null,\"_ud800\":null}}"},
	{NAMEADJUST_AVRO, false,
		"{\"1x\":{\"y-z\":{\"w\":1}}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"w\"}],\"optional\":true,\"name\":\"payload._1x.y_z\",\"field\":\"y_z\"}],\"optional\":true,\"name\":\"payload._1x\",\"field\":\"_1x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"_1x\":null}}"},
	{NAMEADJUST_NONE, false,
		"{\"\":{\"x\":{\"y\":1}},\" \":{\"z\":{\"w\":1}}}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":[[{\" \":{\"x\":{\"y\":1}}}]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"y\"}],\"optional\":true,\"name\":\"x\",\"field\":\"x\"}],\"optional\":true,\"name\":\" \",\"field\":\" \"}],\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":[[{\" \":{\"x\":{\"y\":1}}}]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":[[{\"\":{\"x\":{\"y\":1}}}]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":[[[{\"b\":1}]]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true},\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":[[[{\"b\":1}]]]}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":[{\"b\":[{\"c\":1}]}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"c\"}],\"optional\":true,\"name\":\"payload.a.b\"},\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload.a\"},\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":[{\"b\":[{\"c\":1}]}]}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":1} trailing garbage",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":1}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":1}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":1}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":1",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":1,}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":[1,]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{'a':1}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":01}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":-01}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":1.}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":.5}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":+1}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":1e}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":-}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":NaN}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":\"x\x09y\"}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":\"\\x\"}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":\"\\u12G4\"}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":1/*c*/}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":tru}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\":truex}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{a:1}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"a\" 1}",
		NULL},
	{NAMEADJUST_NONE, false,
		" {\"a\":1}",
		NULL},
	{NAMEADJUST_NONE, false,
		"x",
		NULL},
	{NAMEADJUST_NONE, false,
		"\"x\"",
		NULL},
	{NAMEADJUST_NONE, false,
		"[1,2]",
		NULL},
	{NAMEADJUST_NONE, false,
		"[]",
		NULL},
	{NAMEADJUST_NONE, false,
		"{}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":null}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":[]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_NONE, false,
		"{ \"a\" : [ 1 , 2 ] ,\x0a\x0d\x09\"b\" : { } }",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true,\"field\":\"a\"},{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload.b\",\"field\":\"b\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":[1,2],\"b\":{}}}"},
	{NAMEADJUST_NONE, false,
		"{\" \":{\"z\":{\"w\":1}}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"w\"}],\"optional\":true,\"name\":\"payload. .z\",\"field\":\"z\"}],\"optional\":true,\"name\":\"payload. \",\"field\":\" \"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\" \":{\"z\":{\"w\":1}}}}"},
	{NAMEADJUST_NONE, false,
		"{\"\":null}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_NONE, false,
		"{\"\":1}",
		NULL},
	{NAMEADJUST_NONE, true,
		"{\"\":null}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"\":[]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_AVRO, false,
		"{\"-\":1}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"_\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"_\":null}}"},
	{NAMEADJUST_AVRO, false,
		"{\"\":[]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[],\"optional\":true,\"name\":\"payload\"},\"payload\":{}}"},
	{NAMEADJUST_AVRO_UNICODE, false,
		"{\"x\":{\"a.b\":{\"c-d\":[{\"e f\":1}]}}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"e_u0020f\"}],\"optional\":true,\"name\":\"payload.x.a_u002eb.c_u002dd\"},\"optional\":true,\"field\":\"c_u002dd\"}],\"optional\":true,\"name\":\"payload.x.a_u002eb\",\"field\":\"a_u002eb\"}],\"optional\":true,\"name\":\"payload.x\",\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":{\"a_u002eb\":null}}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"\\ud83d\\u0041\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"\\uD83DA\"}}"},
	{NAMEADJUST_NONE, false,
		"{\"s\":\"\\ud83d\\ud83d\\ude00\"}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"\\uD83D\\uD83D\\uDE00\"}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":1},{\"a\":1,\"b\":null}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":1},{\"a\":1}]}}"},
	{NAMEADJUST_NONE, true,
		"{\"x\":[{\"a\":1},{\"a\":1,\"b\":null}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"},{\"type\":\"bytes\",\"optional\":true,\"field\":\"b\"}],\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":1,\"b\":null},{\"a\":1,\"b\":null}]}}"},
	{NAMEADJUST_NONE, true,
		"{\"x\":[{\"a\":1},{\"a\":1,\"b\":null}, null]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":[1]},{\"a\":[\"s\"]}]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":[1]},{\"a\":[]}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true,\"field\":\"a\"}],\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":[1]},{\"a\":[]}]}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[[1]],[[\"a\"]]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[1],[null]]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[[1],[null]]}}"},
	{NAMEADJUST_NONE, true,
		"{\"x\":[[null],[1]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[[\"a\"],[{\"b\":1}]]}",
		NULL},
	{NAMEADJUST_NONE, false,
		"{\"x\":[1.5,2.5e3,-1E-10]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"double\",\"optional\":true},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[1.5,2500.0,-1.0E-10]}}"},
	{NAMEADJUST_NONE, false,
		"{\"a\":{\"b\":[{\"c\":{\"d\":1}},{\"c\":{\"d\":2}}]}}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"d\"}],\"optional\":true,\"name\":\"payload.a.b.c\",\"field\":\"c\"}],\"optional\":true,\"name\":\"payload.a.b\"},\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload.a\",\"field\":\"a\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"a\":{\"b\":[{\"c\":{\"d\":1}},{\"c\":{\"d\":2}}]}}}"},
	{NAMEADJUST_NONE, false,
		"{\"x\":[{\"a\":[{\"b\":1}]},{\"a\":[{\"b\":1}]}]}",
		"{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload.x.a\"},\"optional\":true,\"field\":\"a\"}],\"optional\":true,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"x\":[{\"a\":[{\"b\":1}]},{\"a\":[{\"b\":1}]}]}}"},
};

static void
test_oracle_cases(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(cases[i].json, strlen(cases[i].json), cases[i].mode,
			  cases[i].null_bytes, cases[i].expected);
}

/*
 * Arrays of objects with different fields: we merge in array order, Debezium
 * in a HashSet's order (its oracle gave "b","a","c" for the first and the
 * second element's "a" for the other).  Not optional, as in Debezium.
 */
static void
test_merge_in_array_order(void **state)
{
	const char *a = "{\"x\":[{\"a\":1},{\"b\":\"s\"},{\"a\":2,\"c\":true}]}";
	const char *b = "{\"x\":[{\"a\":{\"b\":1}},{\"a\":{\"c\":1}}]}";

	check(a, strlen(a), NAMEADJUST_NONE, false,
		  "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":["
		  "{\"type\":\"int32\",\"optional\":true,\"field\":\"a\"},"
		  "{\"type\":\"string\",\"optional\":true,\"field\":\"b\"},"
		  "{\"type\":\"boolean\",\"optional\":true,\"field\":\"c\"}],"
		  "\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},"
		  "\"payload\":{\"x\":[{\"a\":1,\"b\":null,\"c\":null},{\"a\":null,\"b\":\"s\",\"c\":null},{\"a\":2,\"b\":null,\"c\":true}]}}");
	check(b, strlen(b), NAMEADJUST_NONE, false,
		  "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":["
		  "{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,\"field\":\"b\"}],\"optional\":true,\"name\":\"payload.x.a\",\"field\":\"a\"}],"
		  "\"optional\":false,\"name\":\"payload.x\"},\"optional\":true,\"field\":\"x\"}],\"optional\":true,\"name\":\"payload\"},"
		  "\"payload\":{\"x\":[{\"a\":{\"b\":1}},{\"a\":{\"b\":null}}]}}");
}

/* {"a": + n '[' + 1 + n ']' + } (closed) or n '[' alone (open). */
static char *
nested(int n, bool closed)
{
	char	   *s = malloc(2 * n + 17);
	size_t		len = 0;

	len += sprintf(s, "{\"a\":");
	memset(s + len, '[', n);
	len += n;
	if (closed)
	{
		s[len++] = '1';
		memset(s + len, ']', n);
		len += n;
		s[len++] = '}';
	}
	s[len] = '\0';
	return s;
}

/*
 * Jackson's nesting limit: 1000 levels, the top object being the first.  At
 * 1000 levels Debezium parses, then JsonConverter cannot write the record
 * (Jackson's write limit is 1000 too): the depths tell the caller.
 */
static void
test_depth(void **state)
{
	char	   *ok = nested(999, true);
	char	   *deep = nested(1000, true);
	char	   *open = nested(100000, false);
	char	   *got;
	char		err[128];

	got = render(ok, strlen(ok), NAMEADJUST_NONE, false, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(last_value_depth, 1000);
	/* struct, fields, field, then one "items" object per array level */
	assert_int_equal(last_schema_depth, 3 + 999);
	free(got);
	got = render("{\"a\":[1],\"b\":{}}", 16, NAMEADJUST_NONE, false, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(last_value_depth, 2);
	/* the empty struct's empty "fields" array counts */
	assert_int_equal(last_schema_depth, 4);
	free(got);
	check(deep, strlen(deep), NAMEADJUST_NONE, false, NULL);
	check(open, strlen(open), NAMEADJUST_NONE, false, NULL);
	free(ok);
	free(deep);
	free(open);
}

/* {"<key>":<prefix><n times digit><suffix>} */
static void
check_number(NameAdjustMode mode, const char *key, const char *prefix, int n,
			 char digit, const char *suffix, bool ok)
{
	char	   *s = malloc(n + 64);
	size_t		len = sprintf(s, "{\"%s\":%s", key, prefix);
	char		err[128];
	char	   *got;

	memset(s + len, digit, n);
	len += n;
	len += sprintf(s + len, "%s}", suffix);
	got = render(s, len, mode, false, err, sizeof(err));
	if (ok && got == NULL)
		fail_msg("%s%d x %c%s failed: %s", prefix, n, digit, suffix, err);
	if (!ok && got != NULL)
		fail_msg("%s%d x %c%s did not fail", prefix, n, digit, suffix);
	free(got);
	free(s);
}

/* Jackson's number length limit (1000 digits), as the oracle found it. */
static void
test_number_length(void **state)
{
	/* a big integer under a renamed field: never read, so only the limit fails */
	check_number(NAMEADJUST_AVRO, "a-b", "", 1000, '1', "", true);
	check_number(NAMEADJUST_AVRO, "a-b", "", 1001, '1', "", false);
	check_number(NAMEADJUST_AVRO, "a-b", "-", 1000, '1', "", true);
	check_number(NAMEADJUST_AVRO, "a-b", "-", 1001, '1', "", false);
	check_number(NAMEADJUST_NONE, "a", "0.", 1000, '1', "", true);
	check_number(NAMEADJUST_NONE, "a", "0.", 1001, '1', "", false);
	check_number(NAMEADJUST_NONE, "a", "-0.", 1000, '1', "", true);
	check_number(NAMEADJUST_NONE, "a", "1.", 999, '1', "", true);
	check_number(NAMEADJUST_NONE, "a", "1.", 1000, '1', "", false);
	check_number(NAMEADJUST_NONE, "a", "0e", 999, '0', "1", true);
	check_number(NAMEADJUST_NONE, "a", "0e", 1000, '0', "1", false);
	check_number(NAMEADJUST_NONE, "a", "0.5e", 997, '0', "1", true);
	check_number(NAMEADJUST_NONE, "a", "0.5e", 998, '0', "1", false);
	check_number(NAMEADJUST_NONE, "a", "0.5e-", 997, '0', "1", true);
	check_number(NAMEADJUST_NONE, "a", "0.5e-", 998, '0', "1", false);
	check_number(NAMEADJUST_NONE, "a", "1e-", 998, '0', "1", true);
	check_number(NAMEADJUST_NONE, "a", "1e-", 999, '0', "1", false);
	check_number(NAMEADJUST_NONE, "a", "", 1500, '1', ".5", false);
}

/* Strings and names longer than the escaping's pieces. */
static void
test_long_strings(void **state)
{
	size_t		n = 3000 * 2 + 4 + 2000;
	char	   *json = malloc(n + 64);
	char	   *expected = malloc(n + 16 + 512);
	size_t		len = sprintf(json, "{\"s\":\"");
	size_t		elen = sprintf(expected, "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}],\"optional\":true,\"name\":\"payload\"},\"payload\":{\"s\":\"");

	for (int i = 0; i < 3000; i++)
	{
		memcpy(json + len, "\xc3\xa9", 2);
		memcpy(expected + elen, "\xc3\xa9", 2);
		len += 2;
		elen += 2;
	}
	len += sprintf(json + len, "\xf0\x9f\x98\x80");
	elen += sprintf(expected + elen, "\\uD83D\\uDE00");
	memset(json + len, 'x', 2000);
	memset(expected + elen, 'x', 2000);
	len += 2000;
	elen += 2000;
	len += sprintf(json + len, "\"}");
	sprintf(expected + elen, "\"}}");
	check(json, len, NAMEADJUST_NONE, false, expected);
	free(json);
	free(expected);
}

/* The reason: one line, truncated to the buffer; the input need not end in NUL. */
static void
test_errors(void **state)
{
	char		err[16];
	char	   *got;

	got = render("abc", 3, NAMEADJUST_NONE, false, err, sizeof(err));
	assert_null(got);
	assert_string_equal(err, "Unable to parse");
	got = render("", 0, NAMEADJUST_NONE, false, err, sizeof(err));
	assert_null(got);
	/* len stops the text before its closing brace */
	got = render("{\"a\":1}", 6, NAMEADJUST_NONE, false, err, sizeof(err));
	assert_null(got);
	got = render("{\"a\":1}xyz", 7, NAMEADJUST_NONE, false, err, 0);
	assert_non_null(got);
	free(got);
}

/* jsonexpand_string: one whole string literal, escapes decoded; anything else -1. */
static void
test_string(void **state)
{
	Arena		arena = {0};
	char	   *out = NULL;
	const char *lit = "\"a\\\"\\u00e9\\ud83d\\ude00\\n\"";

	assert_int_equal(jsonexpand_string(lit, strlen(lit), arena_alloc, &arena, &out), 9);
	assert_string_equal(out, "a\"\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_int_equal(jsonexpand_string("\"\"", 2, arena_alloc, &arena, &out), 0);
	assert_string_equal(out, "");
	assert_int_equal(jsonexpand_string("null", 4, arena_alloc, &arena, &out), -1);
	assert_int_equal(jsonexpand_string("12", 2, arena_alloc, &arena, &out), -1);
	assert_int_equal(jsonexpand_string("\"a\" ", 4, arena_alloc, &arena, &out), -1);
	assert_int_equal(jsonexpand_string("\"a", 2, arena_alloc, &arena, &out), -1);
	assert_int_equal(jsonexpand_string("\"\\x\"", 4, arena_alloc, &arena, &out), -1);
	for (size_t i = 0; i < arena.n; i++)
		free(arena.ptrs[i]);
	free(arena.ptrs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_cases),
		cmocka_unit_test(test_merge_in_array_order),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_number_length),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
