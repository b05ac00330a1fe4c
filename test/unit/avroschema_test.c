/*-------------------------------------------------------------------------
 *
 * avroschema_test.c
 *		Unit tests of avroschema.c: Connect schema JSON -> the Avro schema
 *		Apicurio's AvroConverter 2.6.13.Final registers.
 *
 * The three real cases (a key, a value with Decimal, VariableScaleDecimal,
 * a repeated record and Source, a key with both decimals) are Debezium
 * 3.6.1's JsonConverter schemas and the schemas the converter registered
 * for the same records in the capture of test/registry/probe/run.sh,
 * written compactly.  The small cases follow AvroData's and Avro's code.
 * The whole capture is checked by avroschema_check (make avroschemacheck).
 *
 * test/unit/avroschema_test.c
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

#include "common/avroschema.h"

/* conf.public.numeric_types key: Connect schema, then the registered Avro schema */
static const char NUMERIC_TYPES_KEY_CONNECT[] =
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,"
	"\"default\":0,\"field\":\"id\"}],\"optional\":false,\"name\":\"conf.pub"
	"lic.numeric_types.Key\"}";

static const char NUMERIC_TYPES_KEY_AVRO[] =
	"{\"type\":\"record\",\"name\":\"Key\",\"namespace\":\"conf.public.numer"
	"ic_types\",\"fields\":[{\"name\":\"id\",\"type\":{\"type\":\"int\",\"conne"
	"ct.default\":0},\"default\":0}],\"connect.name\":\"conf.public.num"
	"eric_types.Key\"}";

/* conf.public.decimal_types value: Connect schema, then the registered Avro schema */
static const char DECIMAL_TYPES_VALUE_CONNECT[] =
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type"
	"\":\"int32\",\"optional\":false,\"default\":0,\"field\":\"id\"},{\"type\""
	":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.da"
	"ta.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.d"
	"ecimal.precision\":\"3\"},\"field\":\"d\"},{\"type\":\"bytes\",\"optiona"
	"l\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"vers"
	"ion\":1,\"parameters\":{\"scale\":\"0\",\"connect.decimal.precision\""
	":\"4\"},\"field\":\"dzs\"},{\"type\":\"bytes\",\"optional\":true,\"name\":"
	"\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"paramet"
	"ers\":{\"scale\":\"4\",\"connect.decimal.precision\":\"6\"},\"field\":\""
	"n\"},{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka"
	".connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"10"
	"\",\"connect.decimal.precision\":\"38\"},\"field\":\"nbig\"},{\"type\":"
	"\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":"
	"\"scale\"},{\"type\":\"bytes\",\"optional\":false,\"field\":\"value\"}],"
	"\"optional\":true,\"name\":\"io.debezium.data.VariableScaleDecima"
	"l\",\"version\":1,\"doc\":\"Variable scaled decimal\",\"field\":\"dvs\""
	"},{\"type\":\"bytes\",\"optional\":false,\"name\":\"org.apache.kafka."
	"connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"2\","
	"\"connect.decimal.precision\":\"3\"},\"field\":\"d_nn\"},{\"type\":\"by"
	"tes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.D"
	"ecimal\",\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.decim"
	"al.precision\":\"3\"},\"field\":\"d_int\"},{\"type\":\"struct\",\"fields"
	"\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"scale\"},{\"type\""
	":\"bytes\",\"optional\":false,\"field\":\"value\"}],\"optional\":true,"
	"\"name\":\"io.debezium.data.VariableScaleDecimal\",\"version\":1,\""
	"doc\":\"Variable scaled decimal\",\"field\":\"dvs_int\"}],\"optional"
	"\":true,\"name\":\"conf.public.decimal_types.Value\",\"field\":\"bef"
	"ore\"},{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":"
	"false,\"default\":0,\"field\":\"id\"},{\"type\":\"bytes\",\"optional\":t"
	"rue,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\""
	":1,\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"3\""
	"},\"field\":\"d\"},{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.a"
	"pache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{"
	"\"scale\":\"0\",\"connect.decimal.precision\":\"4\"},\"field\":\"dzs\"},"
	"{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.con"
	"nect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"4\",\"co"
	"nnect.decimal.precision\":\"6\"},\"field\":\"n\"},{\"type\":\"bytes\",\""
	"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal"
	"\",\"version\":1,\"parameters\":{\"scale\":\"10\",\"connect.decimal.pr"
	"ecision\":\"38\"},\"field\":\"nbig\"},{\"type\":\"struct\",\"fields\":[{\""
	"type\":\"int32\",\"optional\":false,\"field\":\"scale\"},{\"type\":\"byt"
	"es\",\"optional\":false,\"field\":\"value\"}],\"optional\":true,\"name"
	"\":\"io.debezium.data.VariableScaleDecimal\",\"version\":1,\"doc\":"
	"\"Variable scaled decimal\",\"field\":\"dvs\"},{\"type\":\"bytes\",\"op"
	"tional\":false,\"name\":\"org.apache.kafka.connect.data.Decimal\""
	",\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.decimal.prec"
	"ision\":\"3\"},\"field\":\"d_nn\"},{\"type\":\"bytes\",\"optional\":true,"
	"\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\""
	"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"3\"},\"f"
	"ield\":\"d_int\"},{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"o"
	"ptional\":false,\"field\":\"scale\"},{\"type\":\"bytes\",\"optional\":f"
	"alse,\"field\":\"value\"}],\"optional\":true,\"name\":\"io.debezium.d"
	"ata.VariableScaleDecimal\",\"version\":1,\"doc\":\"Variable scaled"
	" decimal\",\"field\":\"dvs_int\"}],\"optional\":true,\"name\":\"conf.p"
	"ublic.decimal_types.Value\",\"field\":\"after\"},{\"type\":\"struct\""
	",\"fields\":[{\"type\":\"string\",\"optional\":false,\"field\":\"versio"
	"n\"},{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},{"
	"\"type\":\"string\",\"optional\":false,\"field\":\"name\"},{\"type\":\"in"
	"t64\",\"optional\":false,\"field\":\"ts_ms\"},{\"type\":\"string\",\"opt"
	"ional\":true,\"name\":\"io.debezium.data.Enum\",\"version\":1,\"para"
	"meters\":{\"allowed\":\"true,first,first_in_data_collection,last"
	"_in_data_collection,last,false,incremental\"},\"default\":\"fals"
	"e\",\"field\":\"snapshot\"},{\"type\":\"string\",\"optional\":false,\"fi"
	"eld\":\"db\"},{\"type\":\"string\",\"optional\":true,\"field\":\"sequenc"
	"e\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_us\"},{\"type\""
	":\"int64\",\"optional\":true,\"field\":\"ts_ns\"},{\"type\":\"string\",\""
	"optional\":false,\"field\":\"schema\"},{\"type\":\"string\",\"optional"
	"\":false,\"field\":\"table\"},{\"type\":\"int64\",\"optional\":true,\"fi"
	"eld\":\"txId\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"},"
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"xmin\"},{\"type\":\"str"
	"ing\",\"optional\":true,\"field\":\"origin\"},{\"type\":\"int64\",\"opti"
	"onal\":true,\"field\":\"origin_lsn\"}],\"optional\":false,\"name\":\"i"
	"o.debezium.connector.postgresql.Source\",\"version\":1,\"field\":"
	"\"source\"},{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optio"
	"nal\":false,\"field\":\"id\"},{\"type\":\"int64\",\"optional\":false,\"f"
	"ield\":\"total_order\"},{\"type\":\"int64\",\"optional\":false,\"field"
	"\":\"data_collection_order\"}],\"optional\":true,\"name\":\"event.bl"
	"ock\",\"version\":1,\"field\":\"transaction\"},{\"type\":\"string\",\"op"
	"tional\":false,\"field\":\"op\"},{\"type\":\"int64\",\"optional\":true,"
	"\"field\":\"ts_ms\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts"
	"_us\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ns\"}],\"opt"
	"ional\":false,\"name\":\"conf.public.decimal_types.Envelope\",\"ve"
	"rsion\":2}";

static const char DECIMAL_TYPES_VALUE_AVRO[] =
	"{\"type\":\"record\",\"name\":\"Envelope\",\"namespace\":\"conf.public."
	"decimal_types\",\"fields\":[{\"name\":\"before\",\"type\":[\"null\",{\"t"
	"ype\":\"record\",\"name\":\"Value\",\"fields\":[{\"name\":\"id\",\"type\":{"
	"\"type\":\"int\",\"connect.default\":0},\"default\":0},{\"name\":\"d\",\""
	"type\":[\"null\",{\"type\":\"bytes\",\"scale\":2,\"precision\":3,\"conne"
	"ct.version\":1,\"connect.parameters\":{\"scale\":\"2\",\"connect.dec"
	"imal.precision\":\"3\"},\"connect.name\":\"org.apache.kafka.connec"
	"t.data.Decimal\",\"logicalType\":\"decimal\"}],\"default\":null},{\""
	"name\":\"dzs\",\"type\":[\"null\",{\"type\":\"bytes\",\"scale\":0,\"precis"
	"ion\":4,\"connect.version\":1,\"connect.parameters\":{\"scale\":\"0\""
	",\"connect.decimal.precision\":\"4\"},\"connect.name\":\"org.apache"
	".kafka.connect.data.Decimal\",\"logicalType\":\"decimal\"}],\"defa"
	"ult\":null},{\"name\":\"n\",\"type\":[\"null\",{\"type\":\"bytes\",\"scale"
	"\":4,\"precision\":6,\"connect.version\":1,\"connect.parameters\":{"
	"\"scale\":\"4\",\"connect.decimal.precision\":\"6\"},\"connect.name\":"
	"\"org.apache.kafka.connect.data.Decimal\",\"logicalType\":\"decim"
	"al\"}],\"default\":null},{\"name\":\"nbig\",\"type\":[\"null\",{\"type\":"
	"\"bytes\",\"scale\":10,\"precision\":38,\"connect.version\":1,\"conne"
	"ct.parameters\":{\"scale\":\"10\",\"connect.decimal.precision\":\"38"
	"\"},\"connect.name\":\"org.apache.kafka.connect.data.Decimal\",\"l"
	"ogicalType\":\"decimal\"}],\"default\":null},{\"name\":\"dvs\",\"type\""
	":[\"null\",{\"type\":\"record\",\"name\":\"VariableScaleDecimal\",\"nam"
	"espace\":\"io.debezium.data\",\"fields\":[{\"name\":\"scale\",\"type\":"
	"\"int\"},{\"name\":\"value\",\"type\":\"bytes\"}],\"connect.doc\":\"Varia"
	"ble scaled decimal\",\"connect.version\":1,\"connect.name\":\"io.d"
	"ebezium.data.VariableScaleDecimal\"}],\"default\":null},{\"name\""
	":\"d_nn\",\"type\":{\"type\":\"bytes\",\"scale\":2,\"precision\":3,\"conn"
	"ect.version\":1,\"connect.parameters\":{\"scale\":\"2\",\"connect.de"
	"cimal.precision\":\"3\"},\"connect.name\":\"org.apache.kafka.conne"
	"ct.data.Decimal\",\"logicalType\":\"decimal\"}},{\"name\":\"d_int\",\""
	"type\":[\"null\",{\"type\":\"bytes\",\"scale\":2,\"precision\":3,\"conne"
	"ct.version\":1,\"connect.parameters\":{\"scale\":\"2\",\"connect.dec"
	"imal.precision\":\"3\"},\"connect.name\":\"org.apache.kafka.connec"
	"t.data.Decimal\",\"logicalType\":\"decimal\"}],\"default\":null},{\""
	"name\":\"dvs_int\",\"type\":[\"null\",\"io.debezium.data.VariableSca"
	"leDecimal\"],\"default\":null}],\"connect.name\":\"conf.public.dec"
	"imal_types.Value\"}],\"default\":null},{\"name\":\"after\",\"type\":["
	"\"null\",\"Value\"],\"default\":null},{\"name\":\"source\",\"type\":{\"ty"
	"pe\":\"record\",\"name\":\"Source\",\"namespace\":\"io.debezium.connec"
	"tor.postgresql\",\"fields\":[{\"name\":\"version\",\"type\":\"string\"}"
	",{\"name\":\"connector\",\"type\":\"string\"},{\"name\":\"name\",\"type\":"
	"\"string\"},{\"name\":\"ts_ms\",\"type\":\"long\"},{\"name\":\"snapshot\","
	"\"type\":[{\"type\":\"string\",\"connect.version\":1,\"connect.parame"
	"ters\":{\"allowed\":\"true,first,first_in_data_collection,last_i"
	"n_data_collection,last,false,incremental\"},\"connect.default\""
	":\"false\",\"connect.name\":\"io.debezium.data.Enum\"},\"null\"],\"de"
	"fault\":\"false\"},{\"name\":\"db\",\"type\":\"string\"},{\"name\":\"seque"
	"nce\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"ts_us"
	"\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"ts_ns\",\"ty"
	"pe\":[\"null\",\"long\"],\"default\":null},{\"name\":\"schema\",\"type\":"
	"\"string\"},{\"name\":\"table\",\"type\":\"string\"},{\"name\":\"txId\",\"t"
	"ype\":[\"null\",\"long\"],\"default\":null},{\"name\":\"lsn\",\"type\":[\""
	"null\",\"long\"],\"default\":null},{\"name\":\"xmin\",\"type\":[\"null\","
	"\"long\"],\"default\":null},{\"name\":\"origin\",\"type\":[\"null\",\"str"
	"ing\"],\"default\":null},{\"name\":\"origin_lsn\",\"type\":[\"null\",\"l"
	"ong\"],\"default\":null}],\"connect.version\":1,\"connect.name\":\"i"
	"o.debezium.connector.postgresql.Source\"}},{\"name\":\"transacti"
	"on\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"block\",\"namespac"
	"e\":\"event\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\""
	"total_order\",\"type\":\"long\"},{\"name\":\"data_collection_order\","
	"\"type\":\"long\"}],\"connect.version\":1,\"connect.name\":\"event.bl"
	"ock\"}],\"default\":null},{\"name\":\"op\",\"type\":\"string\"},{\"name\""
	":\"ts_ms\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"ts_"
	"us\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"ts_ns\",\""
	"type\":[\"null\",\"long\"],\"default\":null}],\"connect.version\":2,\""
	"connect.name\":\"conf.public.decimal_types.Envelope\"}";

/* conf.public.keys_numeric_key key: Connect schema, then the registered Avro schema */
static const char KEYS_NUMERIC_KEY_KEY_CONNECT[] =
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":[{\"type"
	"\":\"int32\",\"optional\":false,\"field\":\"scale\"},{\"type\":\"bytes\","
	"\"optional\":false,\"field\":\"value\"}],\"optional\":false,\"name\":\""
	"io.debezium.data.VariableScaleDecimal\",\"version\":1,\"doc\":\"Va"
	"riable scaled decimal\",\"field\":\"k\"}],\"optional\":false,\"name\""
	":\"conf.public.keys_numeric_key.Key\"}";

static const char KEYS_NUMERIC_KEY_KEY_AVRO[] =
	"{\"type\":\"record\",\"name\":\"Key\",\"namespace\":\"conf.public.keys_"
	"numeric_key\",\"fields\":[{\"name\":\"k\",\"type\":{\"type\":\"record\",\""
	"name\":\"VariableScaleDecimal\",\"namespace\":\"io.debezium.data\","
	"\"fields\":[{\"name\":\"scale\",\"type\":\"int\"},{\"name\":\"value\",\"typ"
	"e\":\"bytes\"}],\"connect.doc\":\"Variable scaled decimal\",\"connec"
	"t.version\":1,\"connect.name\":\"io.debezium.data.VariableScaleD"
	"ecimal\"}}],\"connect.name\":\"conf.public.keys_numeric_key.Key\""
	"}";

/* Optional with defaults: [T, "null"]; int8; NaN; bytes as ISO-8859-1. */
static const char DEFAULTS_CONNECT[] =
	"{\"type\":\"struct\",\"fields\":["
	"{\"type\":\"int8\",\"optional\":true,\"default\":5,\"field\":\"a\"},"
	"{\"type\":\"float\",\"optional\":true,\"default\":\"NaN\",\"field\":\"f\"},"
	"{\"type\":\"double\",\"optional\":true,\"default\":1.0E300,\"field\":\"d\"},"
	"{\"type\":\"bytes\",\"optional\":false,\"default\":\"AJY=\",\"field\":\"b\"},"
	"{\"type\":\"string\",\"optional\":true,\"default\":\"a\\tb\",\"field\":\"s\"}],"
	"\"optional\":false,\"name\":\"x.y.R\"}";
static const char DEFAULTS_AVRO[] =
	"{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"x.y\",\"fields\":["
	"{\"name\":\"a\",\"type\":[{\"type\":\"int\",\"connect.default\":5,"
	"\"connect.type\":\"int8\"},\"null\"],\"default\":5},"
	"{\"name\":\"f\",\"type\":[{\"type\":\"float\",\"connect.default\":\"NaN\"},"
	"\"null\"],\"default\":\"NaN\"},"
	"{\"name\":\"d\",\"type\":[{\"type\":\"double\",\"connect.default\":1.0E300},"
	"\"null\"],\"default\":1.0E300},"
	"{\"name\":\"b\",\"type\":{\"type\":\"bytes\",\"connect.default\":\"\\u0000\xc2\x96\"},"
	"\"default\":\"\\u0000\xc2\x96\"},"
	"{\"name\":\"s\",\"type\":[{\"type\":\"string\",\"connect.default\":\"a\\tb\"},"
	"\"null\"],\"default\":\"a\\tb\"}],"
	"\"connect.name\":\"x.y.R\"}";

/*
 * Arrays, maps (string keys: an Avro map; other keys: MapEntry records) and
 * nameless structs (ConnectDefault; an equal one again is a reference).
 */
static const char CONTAINERS_CONNECT[] =
	"{\"type\":\"struct\",\"fields\":["
	"{\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":true},"
	"\"optional\":true,\"field\":\"tags\"},"
	"{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
	"\"values\":{\"type\":\"int64\",\"optional\":false},\"optional\":false,\"field\":\"m\"},"
	"{\"type\":\"map\",\"keys\":{\"type\":\"int32\",\"optional\":false},"
	"\"values\":{\"type\":\"string\",\"optional\":true},\"optional\":false,\"field\":\"im\"},"
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"z\"}],"
	"\"optional\":true,\"field\":\"anon\"},"
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"z\"}],"
	"\"optional\":false,\"field\":\"anon2\"},"
	"{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"optional\":false,\"field\":\"z\"}],"
	"\"optional\":false,\"field\":\"anon3\"}],"
	"\"optional\":false,\"name\":\"T\"}";
static const char CONTAINERS_AVRO[] =
	"{\"type\":\"record\",\"name\":\"T\",\"fields\":["
	"{\"name\":\"tags\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"]}],"
	"\"default\":null},"
	"{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
	"{\"name\":\"im\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\","
	"\"name\":\"MapEntry\",\"namespace\":\"io.confluent.connect.avro\",\"fields\":["
	"{\"name\":\"key\",\"type\":\"int\"},"
	"{\"name\":\"value\",\"type\":[\"null\",\"string\"],\"default\":null}]}}},"
	"{\"name\":\"anon\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"ConnectDefault\","
	"\"namespace\":\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"z\",\"type\":\"int\"}]}],"
	"\"default\":null},"
	"{\"name\":\"anon2\",\"type\":\"io.confluent.connect.avro.ConnectDefault\"},"
	"{\"name\":\"anon3\",\"type\":{\"type\":\"record\",\"name\":\"ConnectDefault2\","
	"\"namespace\":\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"z\",\"type\":\"long\"}]}}],"
	"\"connect.name\":\"T\"}";

/* Every allocation of a test, freed at its end. */
typedef struct Arena
{
	void	  **ptrs;
	size_t		n;
	size_t		cap;
} Arena;

static Arena arena;

static void *
arena_alloc(void *arg, size_t size)
{
	Arena	   *a = arg;

	if (a->n == a->cap)
	{
		a->cap = a->cap ? a->cap * 2 : 256;
		a->ptrs = realloc(a->ptrs, a->cap * sizeof(void *));
	}
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

static void
check_derive(const char *connect, const char *expected)
{
	char		err[300];
	size_t		len = 0;
	char	   *out = avroschema_derive(connect, strlen(connect), arena_alloc,
										&arena, &len, err, sizeof(err));

	if (out == NULL)
		fail_msg("derivation failed: %s", err);
	assert_int_equal(len, strlen(out));
	assert_string_equal(out, expected);
}

static void
check_error(const char *connect, const char *expected)
{
	char		err[300];
	size_t		len;

	assert_null(avroschema_derive(connect, strlen(connect), arena_alloc, &arena,
								  &len, err, sizeof(err)));
	assert_string_equal(err, expected);
}

static void
test_key(void **state)
{
	check_derive(NUMERIC_TYPES_KEY_CONNECT, NUMERIC_TYPES_KEY_AVRO);
	check_derive(KEYS_NUMERIC_KEY_KEY_CONNECT, KEYS_NUMERIC_KEY_KEY_AVRO);
}

static void
test_envelope(void **state)
{
	check_derive(DECIMAL_TYPES_VALUE_CONNECT, DECIMAL_TYPES_VALUE_AVRO);
}

static void
test_defaults(void **state)
{
	check_derive(DEFAULTS_CONNECT, DEFAULTS_AVRO);
}

static void
test_containers(void **state)
{
	check_derive(CONTAINERS_CONNECT, CONTAINERS_AVRO);
}

/* The tree keeps what a value encoder needs. */
static void
test_tree(void **state)
{
	char		err[300];
	JsonTree   *t = jsontree_parse(DECIMAL_TYPES_VALUE_CONNECT,
								   strlen(DECIMAL_TYPES_VALUE_CONNECT), 100,
								   arena_alloc, &arena, err, sizeof(err));
	AvroSchema *a = avroschema_from_connect(t, arena_alloc, &arena, err, sizeof(err));
	AvroSchema *before,
			   *row;

	assert_non_null(a);
	assert_int_equal(a->type, AVROSCHEMA_RECORD);
	assert_string_equal(a->fullname, "conf.public.decimal_types.Envelope");
	before = a->fields[0].type;
	assert_int_equal(before->type, AVROSCHEMA_UNION);
	assert_true(before->optional);
	assert_int_equal(before->value_branch, 1);
	row = before->branches[1];
	/* after is the same record as before */
	assert_ptr_equal(a->fields[1].type->branches[1], row);
	assert_string_equal(row->fields[1].type->branches[1]->logical, "decimal");
	assert_int_equal(row->fields[1].type->branches[1]->scale, 2);
	assert_int_equal(row->fields[1].type->branches[1]->precision, 3);
	assert_int_equal(row->fields[1].type->branches[1]->connect_type,
					 AVROSCHEMA_CONNECT_BYTES);
}

static void
test_errors(void **state)
{
	check_error("{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,"
				"\"field\":\"Mixed Name\"}],\"optional\":false,\"name\":\"a.b.Value\"}",
				"invalid Avro name for field \"Mixed Name\" of a.b.Value: "
				"Illegal character in: Mixed Name");
	check_error("{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,"
				"\"field\":\"1id\"}],\"optional\":false,\"name\":\"a.b.Value\"}",
				"invalid Avro name for field \"1id\" of a.b.Value: "
				"Illegal initial character: 1id");
	check_error("{\"type\":\"struct\",\"fields\":[],\"optional\":false,\"name\":\"a.b-c\"}",
				"invalid Avro name for record \"b-c\": Illegal character in: b-c");
	check_error("{\"type\":\"uint8\",\"optional\":false}",
				"Connect schema has no known \"type\"");
	check_error("{\"type\":\"array\",\"optional\":false}",
				"Connect schema has no \"items\" schema");
	check_error("{\"type\":", "invalid JSON: unexpected end of input at byte 8");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_key, teardown),
		cmocka_unit_test_teardown(test_envelope, teardown),
		cmocka_unit_test_teardown(test_defaults, teardown),
		cmocka_unit_test_teardown(test_containers, teardown),
		cmocka_unit_test_teardown(test_tree, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
	};

	return cmocka_run_group_tests_name("avroschema", tests, NULL, NULL);
}
