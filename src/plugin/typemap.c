/*-------------------------------------------------------------------------
 *
 * typemap.c
 *		PostgreSQL types to Kafka Connect schemas and JSON values, as the
 *		Debezium PostgreSQL connector maps them.
 *
 * typemap_column_init decides once per column (when relinfo.c builds a
 * relation's cache entry) how its values are written and renders the
 * column's Connect field schema.  typemap_write_value is then the hot path:
 * a switch on the precomputed kind that writes one value straight into the
 * output buffer, reading most types from their on-disk form rather than
 * through their output functions.  The conversions themselves (dates,
 * decimals, base64, ...) live in the pure modules (temporal.c, decimal.c,
 * binenc.c, jsonout.c, hstoretext.c).
 *
 * A type Debezium has no mapping for is written as its text form with a
 * plain string schema, so that no column is ever silently missing; with
 * include_unknown_datatypes, as Debezium's include.unknown.datatypes writes
 * it: that text as binary data, in the binary handling mode.
 *
 * src/plugin/typemap.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_enum.h"
#include "common/md5.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/genam.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/catcache.h"
#include "utils/cash.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/geo_decls.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "pgtime.h"
#include "utils/datetime.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
#include "utils/varbit.h"

#include "common/binenc.h"
#include "common/decimal.h"
#include "common/hstoretext.h"
#include "common/jsonout.h"
#include "common/temporal.h"
#include "common/nameadjust.h"
#include "plugin/bufappend.h"
#include "plugin/options.h"
#include "plugin/textenc.h"
#include "plugin/typemap.h"

/* Debezium's precision for types declared without one (timestamp, time). */
#define DEFAULT_TIME_PRECISION	6

/* ---- column set-up ------------------------------------------------------ */

/*
 * True if typid is the type named typname.  hstore, ltree and citext come
 * from extensions, so they have no fixed OID and are known by name.
 */
static bool
is_extension_type(Oid typid, const char *typname)
{
	HeapTuple	tup;
	bool		result = false;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_type typ = (Form_pg_type) GETSTRUCT(tup);

		result = strcmp(NameStr(typ->typname), typname) == 0;
		ReleaseSysCache(tup);
	}
	return result;
}

/* Fraction digits of time/timestamp types; no typmod means 6. */
static int
time_precision(int32 typmod)
{
	return typmod < 0 ? DEFAULT_TIME_PRECISION : typmod;
}

static void
numeric_typmod(CdcColumn *col)
{
	if (col->typmod >= (int32) VARHDRSZ)
	{
		int32		tm = col->typmod - VARHDRSZ;

		col->precision = (tm >> 16) & 0xffff;
		/* the scale is an 11-bit signed field since PostgreSQL 15 */
		col->scale = ((tm & 0x7ff) ^ 1024) - 1024;
	}
	else
	{
		col->precision = 0;
		col->scale = -1;
	}
}

/* Kinds for types identified by OID alone. */
static bool
builtin_kind(CdcColumn *col)
{
	switch (col->basetypid)
	{
		case BOOLOID:
			col->kind = CDC_VK_BOOL;
			break;
		case INT2OID:
			col->kind = CDC_VK_INT16;
			break;
		case INT4OID:
			col->kind = CDC_VK_INT32;
			break;
		case INT8OID:
			col->kind = CDC_VK_INT64;
			break;
		case OIDOID:
			col->kind = CDC_VK_OID;
			break;
		case FLOAT4OID:
			col->kind = CDC_VK_FLOAT32;
			break;
		case FLOAT8OID:
			col->kind = CDC_VK_FLOAT64;
			break;
		case NUMERICOID:
			col->kind = CDC_VK_NUMERIC;
			numeric_typmod(col);
			break;
		case CASHOID:
			col->kind = CDC_VK_MONEY;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			col->kind = CDC_VK_TEXT;
			break;
		case UUIDOID:
			col->kind = CDC_VK_UUID;
			break;
		case BYTEAOID:
			col->kind = CDC_VK_BYTEA;
			break;
		case DATEOID:
			col->kind = CDC_VK_DATE;
			break;
		case TIMEOID:
			col->kind = CDC_VK_TIME;
			col->precision = time_precision(col->typmod);
			break;
		case TIMETZOID:
			col->kind = CDC_VK_TIMETZ;
			break;
		case TIMESTAMPOID:
			col->kind = CDC_VK_TIMESTAMP;
			col->precision = time_precision(col->typmod);
			break;
		case TIMESTAMPTZOID:
			col->kind = CDC_VK_TIMESTAMPTZ;
			col->precision = col->typmod < 0 ? -1 : col->typmod;
			break;
		case INTERVALOID:
			col->kind = CDC_VK_INTERVAL;
			break;
		case BITOID:
			col->precision = col->typmod < 0 ? 1 : col->typmod;
			col->kind = col->precision == 1 ? CDC_VK_BIT : CDC_VK_BITS;
			break;
		case VARBITOID:
			col->precision = col->typmod < 0 ? INT32_MAX : col->typmod;
			col->kind = col->precision == 1 ? CDC_VK_BIT : CDC_VK_BITS;
			break;
		case POINTOID:
			col->kind = CDC_VK_POINT;
			break;
		default:
			return false;
	}
	return true;
}

/* Semantic schema name for a type written as text, or NULL. */
static const char *
text_semantic_name(Oid typid, char typtype)
{
	switch (typid)
	{
		case JSONOID:
		case JSONBOID:
			return "io.debezium.data.Json";
		case XMLOID:
			return "io.debezium.data.Xml";
		case TSVECTOROID:
			return "io.debezium.data.Tsvector";
		default:
			break;
	}
	if (typtype == TYPTYPE_ENUM)
		return "io.debezium.data.Enum";
	if (is_extension_type(typid, "ltree"))
		return "io.debezium.data.Ltree";
	return NULL;
}

/* The enum's labels in sort order, comma-separated: its "allowed" parameter. */
static char *
enum_allowed(Oid enumtypid)
{
	CatCList   *list = SearchSysCacheList1(ENUMTYPOIDNAME,
										   ObjectIdGetDatum(enumtypid));
	int			n = list->n_members;
	HeapTuple  *tups = palloc(sizeof(HeapTuple) * (n + 1));
	StringInfoData buf;

	for (int i = 0; i < n; i++)
		tups[i] = &list->members[i]->tuple;
	/* insertion sort by enumsortorder: enums are short */
	for (int i = 1; i < n; i++)
	{
		HeapTuple	t = tups[i];
		float4		key = ((Form_pg_enum) GETSTRUCT(t))->enumsortorder;
		int			j = i - 1;

		while (j >= 0 && ((Form_pg_enum) GETSTRUCT(tups[j]))->enumsortorder > key)
		{
			tups[j + 1] = tups[j];
			j--;
		}
		tups[j + 1] = t;
	}
	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s%s", i > 0 ? "," : "",
						 NameStr(((Form_pg_enum) GETSTRUCT(tups[i]))->enumlabel));
	ReleaseSysCacheList(list);
	return buf.data;
}

static void append_schema(StringInfo buf, const CdcColumn *col,
						  const CdcOptions *opts);
static void render_schema(CdcColumn *col, const CdcOptions *opts);

/*
 * Can the type's text form depend on a setting (DateStyle, IntervalStyle,
 * TimeZone, extra_float_digits, bytea_output, search_path)?  Only the text
 * types, json, xml and enums are known not to: anything else (ranges of
 * dates, geometric types of floats, composites of anything, reg* names)
 * is printed under fixed settings.
 */
static bool
output_reads_settings(Oid typid)
{
	switch (typid)
	{
		case JSONOID:
		case JSONBOID:
		case XMLOID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case TSVECTOROID:
			return false;
		default:
			return get_typtype(typid) != TYPTYPE_ENUM;
	}
}

/* Types whose text form names objects as search_path makes them visible. */
static bool
output_reads_search_path(Oid typid)
{
	switch (typid)
	{
		case REGCLASSOID:
		case REGTYPEOID:
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case REGCOLLATIONOID:
			return true;
		default:
			return false;
	}
}

/*
 * Is typid (a type written through its output function) one Debezium
 * 3.6.1 has no schema for?  Those are the types pgjdbc reports as OTHER,
 * STRUCT or DISTINCT that Debezium's converters do not name: geometric
 * types but point, tsquery, pg_lsn, txid_snapshot, composites, reg*, ...
 */
static bool
debezium_unknown_type(Oid typid)
{
	static const char *const extension_types[] = {
		"hstore", "ltree", "citext", "isbn", "geometry", "geography",
		"vector", "halfvec", "sparsevec", NULL
	};

	switch (typid)
	{
		case JSONOID:
		case JSONBOID:
		case XMLOID:
		case TSVECTOROID:
		case NAMEOID:
		case CHAROID:
		case INETOID:
		case CIDROID:
		case MACADDROID:
		case MACADDR8OID:
		case INT4RANGEOID:
		case INT8RANGEOID:
		case NUMRANGEOID:
		case TSRANGEOID:
		case TSTZRANGEOID:
		case DATERANGEOID:
			return false;
		default:
			break;
	}
	if (get_typtype(typid) == TYPTYPE_ENUM)
		return false;
	for (int i = 0; extension_types[i] != NULL; i++)
		if (is_extension_type(typid, extension_types[i]))
			return false;
	return true;
}

/*
 * Arrays Debezium drops whatever include.unknown.datatypes says (its
 * DBZ-459 list); cdc_kafka writes them as arrays of their element.
 */
static bool
debezium_dropped_array(Oid arraytypid)
{
	switch (arraytypid)
	{
		case MONEYARRAYOID:
		case NAMEARRAYOID:
		case INTERVALARRAYOID:
		case VARBITARRAYOID:
		case XMLARRAYOID:
		case POINTARRAYOID:
		case REFCURSORARRAYOID:
			return true;
		default:
			return false;
	}
}

/*
 * With include_unknown_datatypes, an array whose element type Debezium
 * cannot map, or whose element type is a domain (Debezium looks through
 * domains for columns but not for array elements), is an array of binary
 * text with required items.
 */
static void
unknown_array_element(CdcColumn *col, Oid elemtype, const CdcOptions *opts)
{
	CdcColumn  *elem = col->element;

	if (!opts->include_unknown_datatypes || debezium_dropped_array(col->basetypid))
		return;
	if (elem->kind != CDC_VK_UNKNOWN && get_typtype(elemtype) != TYPTYPE_DOMAIN)
		return;
	elem->kind = CDC_VK_UNKNOWN;
	elem->optional = false;
	elem->canonical_output = output_reads_settings(elem->basetypid);
	render_schema(elem, opts);
}

/*
 * Decide the kind of an array column and set up its element, which is
 * always optional in the schema (Debezium's items are nullable).
 */
static bool
array_kind(CdcColumn *col, const CdcOptions *opts)
{
	Oid			elemtype = get_element_type(col->basetypid);

	if (!OidIsValid(elemtype) || col->typlen != -1)
		return false;
	col->kind = CDC_VK_ARRAY;
	col->element = palloc0(sizeof(CdcColumn));
	/* Debezium's enum arrays alone have required items */
	typemap_column_init(col->element, col->name, 0, elemtype, col->typmod,
						get_typtype(elemtype) == TYPTYPE_ENUM, opts);
	unknown_array_element(col, elemtype, opts);
	return true;
}

/*
 * A column's field name under field.name.adjustment.mode.  An adjusted name
 * is ASCII, so it is written like a name in the server's encoding.
 */
static char *
field_name(const char *name, const CdcOptions *opts)
{
	char	   *utf8;
	char	   *out;

	if (opts->field_name_mode == NAMEADJUST_NONE)
		return pstrdup(name);
	utf8 = textenc_name_utf8(name);
	out = palloc(NAMEADJUST_MAX_LEN(strlen(utf8)));
	nameadjust_apply(utf8, opts->field_name_mode, true, out);
	return out;
}

/*
 * Set up col for a column of type typid/typmod: its kind, the data needed
 * to write values, and its rendered field schema.
 */
void
typemap_column_init(CdcColumn *col, const char *name, AttrNumber attnum,
					Oid typid, int32 typmod, bool notnull,
					const CdcOptions *opts)
{
	Oid			outfunc;
	bool		isvarlena;
	StringInfoData buf;

	col->name = pstrdup(name);
	col->field_name = field_name(name, opts);
	initStringInfo(&buf);
	textenc_append_json(&buf, col->field_name, strlen(col->field_name));
	bufappend_char(&buf, ':');
	col->name_json = buf.data;
	col->name_json_len = buf.len;
	col->attnum = attnum;
	col->typid = typid;
	col->typmod = typmod;
	col->optional = !notnull;
	col->scale = -1;
	col->basetypid = getBaseTypeAndTypmod(typid, &col->typmod);
	if (col->typmod < 0)
		col->typmod = typmod;
	get_typlenbyvalalign(col->basetypid, &col->typlen, &col->typbyval,
						 &col->typalign);

	if (!builtin_kind(col) && !array_kind(col, opts))
		col->kind = is_extension_type(col->basetypid, "hstore") ?
			CDC_VK_HSTORE : CDC_VK_OUTPUT_TEXT;
	if (col->kind == CDC_VK_OUTPUT_TEXT && opts->include_unknown_datatypes &&
		debezium_unknown_type(col->basetypid))
		col->kind = CDC_VK_UNKNOWN;

	col->canonical_output = (col->kind == CDC_VK_OUTPUT_TEXT ||
							 col->kind == CDC_VK_UNKNOWN) &&
		output_reads_settings(col->basetypid);
	getTypeOutputInfo(col->basetypid, &outfunc, &isvarlena);
	fmgr_info_cxt(outfunc, &col->outfunc, CurrentMemoryContext);

	render_schema(col, opts);
	col->default_json = NULL;
	col->fallback_json = NULL;
}

/* (Re)render col's field schema from its kind. */
static void
render_schema(CdcColumn *col, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	append_schema(&buf, col, opts);
	col->schema_json = buf.data;
}

/* ---- schemas -------------------------------------------------------------- */

static void
schema_open(StringInfo buf, const char *type, bool optional)
{
	appendStringInfo(buf, "{\"type\":\"%s\",\"optional\":%s", type,
					 optional ? "true" : "false");
}

static void
schema_named(StringInfo buf, const char *type, bool optional, const char *name)
{
	schema_open(buf, type, optional);
	appendStringInfo(buf, ",\"name\":\"%s\",\"version\":1", name);
}

static void
schema_decimal(StringInfo buf, bool optional, int scale, int precision)
{
	schema_named(buf, "bytes", optional, "org.apache.kafka.connect.data.Decimal");
	appendStringInfo(buf, ",\"parameters\":{\"scale\":\"%d\"", scale);
	if (precision > 0)
		appendStringInfo(buf, ",\"connect.decimal.precision\":\"%d\"", precision);
	bufappend_char(buf, '}');
}

static void
schema_numeric(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
		schema_open(buf, "double", col->optional);
	else if (opts->decimal_mode == CDC_DECIMAL_STRING)
		schema_open(buf, "string", col->optional);
	else if (col->scale < 0)
	{
		appendStringInfoString(buf,
							   "{\"type\":\"struct\",\"fields\":["
							   "{\"type\":\"int32\",\"optional\":false,\"field\":\"scale\"},"
							   "{\"type\":\"bytes\",\"optional\":false,\"field\":\"value\"}],");
		appendStringInfo(buf, "\"optional\":%s,\"name\":\"io.debezium.data.VariableScaleDecimal\","
						 "\"version\":1,\"doc\":\"Variable scaled decimal\"",
						 col->optional ? "true" : "false");
	}
	else
		schema_decimal(buf, col->optional, col->scale, col->precision);
}

static void
schema_money(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
		schema_open(buf, "double", col->optional);
	else if (opts->decimal_mode == CDC_DECIMAL_STRING)
		schema_open(buf, "string", col->optional);
	else
		schema_decimal(buf, col->optional, opts->money_fraction_digits, 0);
}

static void
schema_time(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	if (opts->time_mode == CDC_TIME_CONNECT)
		schema_named(buf, "int32", col->optional, "org.apache.kafka.connect.data.Time");
	else if (opts->time_mode == CDC_TIME_ADAPTIVE && col->precision <= 3)
		schema_named(buf, "int32", col->optional, "io.debezium.time.Time");
	else
		schema_named(buf, "int64", col->optional, "io.debezium.time.MicroTime");
}

static void
schema_timestamp(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	if (opts->time_mode == CDC_TIME_CONNECT)
		schema_named(buf, "int64", col->optional, "org.apache.kafka.connect.data.Timestamp");
	else if (col->precision <= 3)
		schema_named(buf, "int64", col->optional, "io.debezium.time.Timestamp");
	else
		schema_named(buf, "int64", col->optional, "io.debezium.time.MicroTimestamp");
}

static void
schema_binary(StringInfo buf, bool optional, const CdcOptions *opts)
{
	schema_open(buf, opts->binary_mode == CDC_BINARY_BYTES ? "bytes" : "string",
				optional);
}

static void
schema_text(StringInfo buf, const CdcColumn *col)
{
	char		typtype = get_typtype(col->basetypid);
	const char *name = text_semantic_name(col->basetypid, typtype);

	if (name == NULL)
	{
		schema_open(buf, "string", col->optional);
		return;
	}
	schema_named(buf, "string", col->optional, name);
	if (typtype == TYPTYPE_ENUM)
	{
		char	   *allowed = enum_allowed(col->basetypid);

		BUFAPPEND_LITERAL(buf, ",\"parameters\":{\"allowed\":");
		textenc_append_json(buf, allowed, strlen(allowed));
		bufappend_char(buf, '}');
	}
}

static void
schema_point(StringInfo buf, bool optional)
{
	appendStringInfo(buf,
					 "{\"type\":\"struct\",\"fields\":["
					 "{\"type\":\"double\",\"optional\":false,\"field\":\"x\"},"
					 "{\"type\":\"double\",\"optional\":false,\"field\":\"y\"},"
					 "{\"type\":\"bytes\",\"optional\":true,\"field\":\"wkb\"},"
					 "{\"type\":\"int32\",\"optional\":true,\"field\":\"srid\"}],"
					 "\"optional\":%s,\"name\":\"io.debezium.data.geometry.Point\","
					 "\"version\":1,\"doc\":\"Geometry (POINT)\"",
					 optional ? "true" : "false");
}

static void
schema_hstore(StringInfo buf, bool optional, const CdcOptions *opts)
{
	if (opts->hstore_mode == CDC_HSTORE_JSON)
		schema_named(buf, "string", optional, "io.debezium.data.Json");
	else
		appendStringInfo(buf,
						 "{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
						 "\"values\":{\"type\":\"string\",\"optional\":true},\"optional\":%s",
						 optional ? "true" : "false");
}

static void
schema_array(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	BUFAPPEND_LITERAL(buf, "{\"type\":\"array\",\"items\":");
	appendStringInfoString(buf, col->element->schema_json);
	appendStringInfo(buf, ",\"optional\":%s", col->optional ? "true" : "false");
}

/* Everything of the field schema that comes before "default". */
static void
append_schema(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	bool		opt = col->optional;

	switch (col->kind)
	{
		case CDC_VK_BOOL:
		case CDC_VK_BIT:
			schema_open(buf, "boolean", opt);
			break;
		case CDC_VK_INT16:
			schema_open(buf, "int16", opt);
			break;
		case CDC_VK_INT32:
			schema_open(buf, "int32", opt);
			break;
		case CDC_VK_INT64:
		case CDC_VK_OID:
			schema_open(buf, "int64", opt);
			break;
		case CDC_VK_FLOAT32:
			schema_open(buf, "float", opt);
			break;
		case CDC_VK_FLOAT64:
			schema_open(buf, "double", opt);
			break;
		case CDC_VK_NUMERIC:
			schema_numeric(buf, col, opts);
			break;
		case CDC_VK_MONEY:
			schema_money(buf, col, opts);
			break;
		case CDC_VK_TEXT:
		case CDC_VK_OUTPUT_TEXT:
			schema_text(buf, col);
			break;
		case CDC_VK_UUID:
			schema_named(buf, "string", opt, "io.debezium.data.Uuid");
			break;
		case CDC_VK_BYTEA:
		case CDC_VK_UNKNOWN:
			schema_binary(buf, opt, opts);
			break;
		case CDC_VK_DATE:
			schema_named(buf, "int32", opt, opts->time_mode == CDC_TIME_CONNECT ?
						 "org.apache.kafka.connect.data.Date" : "io.debezium.time.Date");
			break;
		case CDC_VK_TIME:
			schema_time(buf, col, opts);
			break;
		case CDC_VK_TIMETZ:
			schema_named(buf, "string", opt, "io.debezium.time.ZonedTime");
			break;
		case CDC_VK_TIMESTAMP:
			schema_timestamp(buf, col, opts);
			break;
		case CDC_VK_TIMESTAMPTZ:
			schema_named(buf, "string", opt, "io.debezium.time.ZonedTimestamp");
			break;
		case CDC_VK_INTERVAL:
			if (opts->interval_mode == CDC_INTERVAL_STRING)
				schema_named(buf, "string", opt, "io.debezium.time.Interval");
			else
				schema_named(buf, "int64", opt, "io.debezium.time.MicroDuration");
			break;
		case CDC_VK_BITS:
			schema_named(buf, "bytes", opt, "io.debezium.data.Bits");
			appendStringInfo(buf, ",\"parameters\":{\"length\":\"%d\"}", col->precision);
			break;
		case CDC_VK_HSTORE:
			schema_hstore(buf, opt, opts);
			break;
		case CDC_VK_POINT:
			schema_point(buf, opt);
			break;
		case CDC_VK_ARRAY:
			schema_array(buf, col, opts);
			break;
	}
	/* array items are complete schemas; fields get "default"/"field" later */
	if (col->attnum == 0)
		bufappend_char(buf, '}');
}

/*
 * Write the column's complete field schema: the precomputed part, the
 * default (when the column has one Debezium can parse) and the field name.
 */
void
typemap_write_field_schema(StringInfo buf, const CdcColumn *col, bool with_default)
{
	appendStringInfoString(buf, col->schema_json);
	if (with_default && col->default_json != NULL)
	{
		BUFAPPEND_LITERAL(buf, ",\"default\":");
		appendStringInfoString(buf, col->default_json);
	}
	BUFAPPEND_LITERAL(buf, ",\"field\":");
	textenc_append_json(buf, col->field_name, strlen(col->field_name));
	bufappend_char(buf, '}');
}

/* ---- values ----------------------------------------------------------------- */

static void
write_int64(StringInfo buf, int64 v)
{
	char		tmp[JSONOUT_NUMBER_MAX];

	bufappend_bytes(buf, tmp, jsonout_int64(v, tmp));
}

/* Jackson quotes the non-finite values JsonConverter writes. */
static void
write_double(StringInfo buf, double v)
{
	char		tmp[JSONOUT_NUMBER_MAX];
	size_t		len = jsonout_double(v, tmp);

	if (isnan(v) || isinf(v))
		textenc_append_json(buf, tmp, len);
	else
		bufappend_bytes(buf, tmp, len);
}

static void
write_float(StringInfo buf, float v)
{
	char		tmp[JSONOUT_NUMBER_MAX];
	size_t		len = jsonout_float(v, tmp);

	if (isnan(v) || isinf(v))
		textenc_append_json(buf, tmp, len);
	else
		bufappend_bytes(buf, tmp, len);
}

/* Bytes as JsonConverter writes BYTES: a base64 string. */
static void
write_base64(StringInfo buf, const uint8 *data, size_t len, bool url_safe)
{
	size_t		n = BINENC_BASE64_LEN(len);

	enlargeStringInfo(buf, n + 2);
	buf->data[buf->len++] = '"';
	buf->len += binenc_base64(data, len, buf->data + buf->len, url_safe);
	buf->data[buf->len++] = '"';
	buf->data[buf->len] = '\0';
}

static void
write_hex(StringInfo buf, const uint8 *data, size_t len)
{
	enlargeStringInfo(buf, BINENC_HEX_LEN(len) + 2);
	buf->data[buf->len++] = '"';
	buf->len += binenc_hex(data, len, buf->data + buf->len);
	buf->data[buf->len++] = '"';
	buf->data[buf->len] = '\0';
}

/* bytea and logical-message content, by binary.handling.mode. */
static void
write_binary(StringInfo buf, const uint8 *data, size_t len, const CdcOptions *opts)
{
	switch (opts->binary_mode)
	{
		case CDC_BINARY_BYTES:
		case CDC_BINARY_BASE64:
			write_base64(buf, data, len, false);
			break;
		case CDC_BINARY_BASE64_URL_SAFE:
			write_base64(buf, data, len, true);
			break;
		case CDC_BINARY_HEX:
			write_hex(buf, data, len);
			break;
	}
}

void
typemap_write_binary(StringInfo buf, const char *data, size_t len,
					 const CdcOptions *opts)
{
	write_binary(buf, (const uint8 *) data, len, opts);
}

static void
special_numeric_error(const CdcColumn *col, const char *text)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("numeric value \"%s\" of column \"%s\" cannot be written with decimal_handling_mode \"precise\"",
					text, col->name),
			 errhint("Use decimal_handling_mode \"double\" or \"string\", which can represent NaN and infinities.")));
}

/*
 * The header word of a stored numeric (numeric.c's on-disk format, which
 * pg_upgrade keeps as is and so cannot change): the top two bits say short
 * (10), special NaN/infinity (11) or long (00 positive, 01 negative).  A
 * short header also holds the sign and a 7-bit weight; a long one is
 * followed by an int16 weight.  The digits, base-10000 int16s, come next.
 */
#define CDC_NUMERIC_FORM_MASK		0xC000
#define CDC_NUMERIC_FORM_SHORT		0x8000
#define CDC_NUMERIC_FORM_SPECIAL	0xC000
#define CDC_NUMERIC_LONG_NEG		0x4000
#define CDC_NUMERIC_SHORT_NEG		0x2000
#define CDC_NUMERIC_SHORT_WEIGHT_NEG 0x0040
#define CDC_NUMERIC_SHORT_WEIGHT	0x003F

/*
 * The base-10000 digits, weight and sign of a finite stored numeric, read
 * in place: numeric_out and parsing its text cost several times more.
 * Returns false for NaN and infinities and when there are more digits than
 * the digit path takes.
 */
static bool
numeric_stored_digits(struct varlena *stored, int16 *digits, int *ndigits,
					  int *weight, bool *negative)
{
	const char *p = VARDATA_ANY(stored);
	size_t		len = VARSIZE_ANY_EXHDR(stored);
	uint16		head;
	size_t		skip;
	int			i;

	memcpy(&head, p, sizeof(head));
	if ((head & CDC_NUMERIC_FORM_MASK) == CDC_NUMERIC_FORM_SPECIAL)
		return false;
	if ((head & CDC_NUMERIC_FORM_MASK) == CDC_NUMERIC_FORM_SHORT)
	{
		*negative = (head & CDC_NUMERIC_SHORT_NEG) != 0;
		*weight = (head & CDC_NUMERIC_SHORT_WEIGHT_NEG) ?
			(int) (head & CDC_NUMERIC_SHORT_WEIGHT) - (CDC_NUMERIC_SHORT_WEIGHT + 1) :
			(int) (head & CDC_NUMERIC_SHORT_WEIGHT);
		skip = sizeof(uint16);
	}
	else
	{
		int16		w;

		*negative = (head & CDC_NUMERIC_LONG_NEG) != 0;
		memcpy(&w, p + sizeof(uint16), sizeof(w));
		*weight = w;
		skip = 2 * sizeof(uint16);
	}
	*ndigits = (int) ((len - skip) / sizeof(int16));
	if (*ndigits > DECIMAL_B10000_MAX_DIGITS)
		return false;
	for (i = 0; i < *ndigits; i++)
		memcpy(&digits[i], p + skip + i * sizeof(int16), sizeof(int16));
	return true;
}

/*
 * Write the unscaled bytes straight from the stored digits when they fit
 * the digit path.  Returns false, writing nothing, for anything else (NaN,
 * infinities, wide values, values needing rounding), which the text path
 * then handles and reports.
 */
static bool
write_decimal_bytes_direct(StringInfo buf, const CdcColumn *col, Datum value)
{
	struct varlena *stored = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	int16		digits[DECIMAL_B10000_MAX_DIGITS];
	uint8		bytes[DECIMAL_B10000_BYTES_MAX];
	int			ndigits;
	int			weight;
	bool		negative;
	size_t		nbytes;
	int			scale;
	bool		ok;

	ok = numeric_stored_digits(stored, digits, &ndigits, &weight, &negative) &&
		decimal_base10000_bytes(digits, ndigits, weight, negative,
								col->scale < 0 ? DECIMAL_STRIP_SCALE : col->scale,
								bytes, &nbytes, &scale) == DECIMAL_OK;
	if ((Pointer) stored != DatumGetPointer(value))
		pfree(stored);
	if (!ok)
		return false;
	if (col->scale < 0)
		appendStringInfo(buf, "{\"scale\":%d,\"value\":", scale);
	write_base64(buf, bytes, nbytes, false);
	if (col->scale < 0)
		bufappend_char(buf, '}');
	return true;
}

static void
write_decimal_bytes(StringInfo buf, const CdcColumn *col, const char *text)
{
	size_t		cap = DECIMAL_BYTES_MAX(strlen(text) + Max(col->scale, 0));
	uint8	   *bytes = palloc(cap);
	size_t		nbytes;
	int			scale;
	DecimalStatus st;

	st = decimal_unscaled_bytes(text, col->scale < 0 ? DECIMAL_STRIP_SCALE : col->scale,
								bytes, &nbytes, &scale);
	if (st != DECIMAL_OK)
		special_numeric_error(col, text);
	if (col->scale < 0)
	{
		appendStringInfo(buf, "{\"scale\":%d,\"value\":", scale);
		write_base64(buf, bytes, nbytes, false);
		bufappend_char(buf, '}');
	}
	else
		write_base64(buf, bytes, nbytes, false);
	pfree(bytes);
}

/* SpecialValueDecimal's names for the values BigDecimal cannot hold. */
static const char *
special_numeric_name(const char *text)
{
	if (strcmp(text, "NaN") == 0)
		return "NAN";
	if (strcmp(text, "Infinity") == 0)
		return "POSITIVE_INFINITY";
	if (strcmp(text, "-Infinity") == 0)
		return "NEGATIVE_INFINITY";
	return NULL;
}

static void
write_numeric(StringInfo buf, const CdcColumn *col, Datum value, const CdcOptions *opts)
{
	char	   *text;

	if (opts->decimal_mode == CDC_DECIMAL_PRECISE &&
		write_decimal_bytes_direct(buf, col, value))
		return;
	text = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	if (opts->decimal_mode == CDC_DECIMAL_PRECISE)
		write_decimal_bytes(buf, col, text);
	else if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
		write_double(buf, strtod(text, NULL));
	else
	{
		const char *special = special_numeric_name(text);

		if (special != NULL)
			textenc_append_json(buf, special, strlen(special));
		else
			textenc_append_json(buf, text, strlen(text));
	}
	pfree(text);
}

/*
 * Fraction digits of the money type under the lc_monetary configured for
 * this session (server, database, role: what a walsender serving Debezium
 * runs with), never one SET in it: decoding through the SQL functions must
 * not change with the session.  A stored money value means nothing without
 * some lc_monetary; PostgreSQL's own output uses the same one.
 */
static int
money_locale_digits(void)
{
	static char configured_locale[NAMEDATALEN * 2] = "";
	static int	configured_digits = -1;
	const char *configured = GetConfigOptionResetString("lc_monetary");

	if (configured_digits < 0 || strcmp(configured, configured_locale) != 0)
	{
		char	   *current = pstrdup(setlocale(LC_MONETARY, NULL));
		int			digits = CHAR_MAX;

		if (setlocale(LC_MONETARY, configured) != NULL)
			digits = localeconv()->frac_digits;
		if (setlocale(LC_MONETARY, current) == NULL)
			elog(WARNING, "cdc_kafka could not restore LC_MONETARY \"%s\"", current);
		pfree(current);
		strlcpy(configured_locale, configured, sizeof(configured_locale));
		configured_digits = (digits < 0 || digits > 10) ? 2 : digits;
	}
	return configured_digits;
}

/* The decimal text of cash with digits fraction digits: exact, any size. */
static void
cash_text(Cash cash, int digits, char *out, size_t outlen)
{
	uint64		mag = cash < 0 ? -(uint64) cash : (uint64) cash;
	char		raw[32];
	int			len = snprintf(raw, sizeof(raw), UINT64_FORMAT, mag);
	int			intlen = len - digits;
	char	   *p = out;

	if (cash < 0)
		*p++ = '-';
	if (intlen <= 0)
	{
		*p++ = '0';
		if (digits > 0)
			*p++ = '.';
		for (int i = intlen; i < 0; i++)
			*p++ = '0';
		memcpy(p, raw, len);
		p += len;
	}
	else
	{
		memcpy(p, raw, intlen);
		p += intlen;
		if (digits > 0)
		{
			*p++ = '.';
			memcpy(p, raw + intlen, digits);
			p += digits;
		}
	}
	*p = '\0';
	Assert(p < out + outlen);
}

/*
 * Debezium parses money's text into a BigDecimal of the locale's fraction
 * digits: string mode writes it as is, double mode as a double, and precise
 * mode rescales it to money.fraction.digits, rounding half up.
 */
static void
write_money(StringInfo buf, Cash cash, const CdcOptions *opts)
{
	int			digits = money_locale_digits();
	int			target = opts->money_fraction_digits;
	char		text[64];
	uint8		bytes[32];
	size_t		nbytes;

	cash_text(cash, digits, text, sizeof(text));
	if (opts->decimal_mode == CDC_DECIMAL_STRING)
		textenc_append_json(buf, text, strlen(text));
	else if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
		write_double(buf, strtod(text, NULL));
	else
	{
		if (target < digits)
		{
			/* round half up on the magnitude, then write it at the target scale */
			uint64		mag = cash < 0 ? -(uint64) cash : (uint64) cash;
			uint64		div = 1;

			for (int i = target; i < digits; i++)
				div *= 10;
			mag = (mag + div / 2) / div;
			cash_text(cash < 0 ? -(int64) mag : (int64) mag, target, text, sizeof(text));
		}
		decimal_unscaled_bytes(text, target, bytes, &nbytes, NULL);
		write_base64(buf, bytes, nbytes, false);
	}
}

static void
write_uuid(StringInfo buf, Datum value)
{
	const unsigned char *u = DatumGetUUIDP(value)->data;
	static const char hex[] = "0123456789abcdef";
	char		out[38];
	int			p = 0;

	out[p++] = '"';
	for (int i = 0; i < UUID_LEN; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[p++] = '-';
		out[p++] = hex[u[i] >> 4];
		out[p++] = hex[u[i] & 0xF];
	}
	out[p++] = '"';
	bufappend_bytes(buf, out, p);
}

static void
write_text_datum(StringInfo buf, Datum value)
{
	struct varlena *t = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

	textenc_append_json(buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);
}

/*
 * The text form of a value whose output function may read a setting
 * (ranges of dates and timestamps, composites, geometric types, types
 * without a mapping), produced under fixed settings: ISO dates, UTC,
 * "postgres" intervals, shortest exact floats, hex bytea, and for the reg*
 * types a search_path of pg_catalog alone (names outside it qualified) and
 * identifiers quoted only where needed.
 * The session's settings are put back even on error.
 */
static char *
canonical_output(const CdcColumn *col, Datum value)
{
	static pg_tz *utc = NULL;
	int			save_style = DateStyle;
	int			save_order = DateOrder;
	int			save_interval = IntervalStyle;
	int			save_digits = extra_float_digits;
	int			save_bytea = bytea_output;
	pg_tz	   *save_tz = session_timezone;
	volatile int guc_level = -1;
	char	   *volatile text = NULL;

	if (utc == NULL)
		utc = pg_tzset("UTC");
	if (output_reads_search_path(col->basetypid))
	{
		guc_level = NewGUCNestLevel();
		(void) set_config_option("search_path", "pg_catalog", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
		(void) set_config_option("quote_all_identifiers", "off", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	}
	DateStyle = USE_ISO_DATES;
	DateOrder = DATEORDER_MDY;
	IntervalStyle = INTSTYLE_POSTGRES;
	extra_float_digits = 1;
	bytea_output = BYTEA_OUTPUT_HEX;
	session_timezone = utc;
	PG_TRY();
	{
		text = OutputFunctionCall((FmgrInfo *) &col->outfunc, value);
	}
	PG_FINALLY();
	{
		DateStyle = save_style;
		DateOrder = save_order;
		IntervalStyle = save_interval;
		extra_float_digits = save_digits;
		bytea_output = save_bytea;
		session_timezone = save_tz;
	}
	PG_END_TRY();
	if (guc_level >= 0)
		AtEOXact_GUC(true, guc_level);
	return text;
}

static void
write_output_text(StringInfo buf, const CdcColumn *col, Datum value)
{
	char	   *text = col->canonical_output ? canonical_output(col, value) :
		OutputFunctionCall((FmgrInfo *) &col->outfunc, value);

	textenc_append_json(buf, text, strlen(text));
	pfree(text);
}

/* ---- include.unknown.datatypes ------------------------------------------ */

static void
append_java_double(StringInfo buf, double v)
{
	char		tmp[JSONOUT_NUMBER_MAX];

	bufappend_bytes(buf, tmp, jsonout_double(v, tmp));
}

static void
append_java_point(StringInfo buf, const Point *pt)
{
	bufappend_char(buf, '(');
	append_java_double(buf, pt->x);
	bufappend_char(buf, ',');
	append_java_double(buf, pt->y);
	bufappend_char(buf, ')');
}

static void
append_java_points(StringInfo buf, const Point *pts, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			bufappend_char(buf, ',');
		append_java_point(buf, &pts[i]);
	}
}

/*
 * Debezium reads the geometric types (but point) into pgjdbc's PGbox,
 * PGcircle, ... and takes their getValue(): the shape re-printed with
 * Java's Double.toString ("(3.0,4.0),(1.0,2.0)" for PostgreSQL's
 * "(3,4),(1,2)").  Returns false for any other type.
 */
static bool
java_geometry_text(StringInfo buf, Oid typid, Datum value)
{
	switch (typid)
	{
		case BOXOID:
			{
				BOX		   *b = DatumGetBoxP(value);

				append_java_point(buf, &b->high);
				bufappend_char(buf, ',');
				append_java_point(buf, &b->low);
				return true;
			}
		case CIRCLEOID:
			{
				CIRCLE	   *c = DatumGetCircleP(value);

				bufappend_char(buf, '<');
				append_java_point(buf, &c->center);
				bufappend_char(buf, ',');
				append_java_double(buf, c->radius);
				bufappend_char(buf, '>');
				return true;
			}
		case LINEOID:
			{
				LINE	   *l = DatumGetLineP(value);

				bufappend_char(buf, '{');
				append_java_double(buf, l->A);
				bufappend_char(buf, ',');
				append_java_double(buf, l->B);
				bufappend_char(buf, ',');
				append_java_double(buf, l->C);
				bufappend_char(buf, '}');
				return true;
			}
		case LSEGOID:
			bufappend_char(buf, '[');
			append_java_points(buf, DatumGetLsegP(value)->p, 2);
			bufappend_char(buf, ']');
			return true;
		case PATHOID:
			{
				PATH	   *p = DatumGetPathP(value);

				bufappend_char(buf, p->closed ? '(' : '[');
				append_java_points(buf, p->p, p->npts);
				bufappend_char(buf, p->closed ? ')' : ']');
				return true;
			}
		case POLYGONOID:
			{
				POLYGON    *p = DatumGetPolygonP(value);

				bufappend_char(buf, '(');
				append_java_points(buf, p->p, p->npts);
				bufappend_char(buf, ')');
				return true;
			}
		default:
			return false;
	}
}

/*
 * A value of a type Debezium cannot map, under include_unknown_datatypes:
 * the text Debezium receives for it (as UTF-8) written as binary data.  An
 * array element whose type is a domain reaches Debezium as the element's
 * plain text, without the geometric types' re-printing.
 */
static void
write_unknown(StringInfo buf, const CdcColumn *col, Datum value,
			  const CdcOptions *opts)
{
	StringInfoData text;
	const char *utf8;
	size_t		len;

	initStringInfo(&text);
	if ((col->attnum == 0 && col->typid != col->basetypid) ||
		!java_geometry_text(&text, col->basetypid, value))
	{
		char	   *out = col->canonical_output ? canonical_output(col, value) :
			OutputFunctionCall((FmgrInfo *) &col->outfunc, value);

		appendStringInfoString(&text, out);
		pfree(out);
	}
	utf8 = textenc_to_utf8(text.data, text.len, &len);
	write_binary(buf, (const uint8 *) utf8, len, opts);
	if (utf8 != text.data)
		pfree((char *) utf8);
	pfree(text.data);
}

static void
write_bytea(StringInfo buf, Datum value, const CdcOptions *opts)
{
	bytea	   *b = DatumGetByteaPP(value);

	write_binary(buf, (uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), opts);
}

static void
write_time(StringInfo buf, const CdcColumn *col, TimeADT t, const CdcOptions *opts)
{
	if (opts->time_mode == CDC_TIME_CONNECT ||
		(opts->time_mode == CDC_TIME_ADAPTIVE && col->precision <= 3))
		write_int64(buf, temporal_time_millis(t));
	else
		write_int64(buf, temporal_time_micros(t));
}

static void
write_timestamp(StringInfo buf, const CdcColumn *col, Timestamp ts,
				const CdcOptions *opts)
{
	if (opts->time_mode == CDC_TIME_CONNECT || col->precision <= 3)
		write_int64(buf, temporal_timestamp_millis(ts));
	else
		write_int64(buf, temporal_timestamp_micros(ts));
}

static void
write_temporal_text(StringInfo buf, const char *text, size_t len)
{
	bufappend_char(buf, '"');
	bufappend_bytes(buf, text, len);
	bufappend_char(buf, '"');
}

static void
write_interval(StringInfo buf, const Interval *iv, const CdcOptions *opts)
{
	char		text[TEMPORAL_TEXT_MAX];

	if (opts->interval_mode == CDC_INTERVAL_NUMERIC)
		write_int64(buf, temporal_interval_micros(iv->month, iv->day, iv->time));
	else
		write_temporal_text(buf, text,
							temporal_interval_iso(iv->month, iv->day, iv->time, text));
}

/* bit(1) and varbit(1) are booleans in Debezium. */
static void
write_bit(StringInfo buf, Datum value)
{
	VarBit	   *vb = DatumGetVarBitP(value);
	bool		set = VARBITLEN(vb) > 0 && (VARBITS(vb)[0] & 0x80) != 0;

	appendStringInfoString(buf, set ? "true" : "false");
}

static void
write_bits(StringInfo buf, const CdcColumn *col, Datum value)
{
	char	   *text = OutputFunctionCall((FmgrInfo *) &col->outfunc, value);
	size_t		nbits = strlen(text);
	uint8	   *bytes = palloc(BINENC_BITS_BYTES(nbits) + 1);
	size_t		nbytes = binenc_bits_le(text, nbits, 0, bytes);

	write_base64(buf, bytes, nbytes, false);
	pfree(bytes);
	pfree(text);
}

static void
append_nested_string(StringInfo buf, const char *s, size_t len)
{
	enlargeStringInfo(buf, JSONOUT_ESCAPE_MAX(len) + 2);
	buf->data[buf->len++] = '"';
	buf->len += jsonout_escape_nested(s, len, buf->data + buf->len);
	buf->data[buf->len++] = '"';
	buf->data[buf->len] = '\0';
}

/*
 * The pairs of an hstore as a JSON object, in java.util.HashMap's order.
 * nested: the object becomes the text of a JSON string (json mode), which
 * Debezium builds with a generator that leaves supplementary characters raw.
 */
static void
append_hstore_object(StringInfo buf, const char *text, bool nested)
{
	size_t		len = strlen(text);
	char	   *scratch = palloc(2 * len + 2);
	int			maxpairs = len / 6 + 1;
	HstorePair *pairs = palloc(sizeof(HstorePair) * maxpairs);
	int			n = hstoretext_parse(text, len, scratch, pairs, maxpairs);
	void		(*append) (StringInfo, const char *, size_t) =
		nested ? append_nested_string : textenc_append_json_utf8;

	if (n < 0)
		elog(ERROR, "could not parse hstore value \"%s\"", text);
	hstoretext_java_order(pairs, n);
	bufappend_char(buf, '{');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			bufappend_char(buf, ',');
		append(buf, pairs[i].key, pairs[i].keylen);
		bufappend_char(buf, ':');
		if (pairs[i].value == NULL)
			BUFAPPEND_LITERAL(buf, "null");
		else
			append(buf, pairs[i].value, pairs[i].valuelen);
	}
	bufappend_char(buf, '}');
}

/* The pairs are parsed, ordered and written as UTF-8, converted once. */
static void
write_hstore(StringInfo buf, const CdcColumn *col, Datum value, const CdcOptions *opts)
{
	char	   *text = OutputFunctionCall((FmgrInfo *) &col->outfunc, value);
	size_t		len;
	const char *utf8 = textenc_to_utf8(text, strlen(text), &len);

	if (opts->hstore_mode == CDC_HSTORE_MAP)
		append_hstore_object(buf, utf8, false);
	else
	{
		StringInfoData json;

		initStringInfo(&json);
		append_hstore_object(&json, utf8, true);
		textenc_append_json_utf8(buf, json.data, json.len);
		pfree(json.data);
	}
	pfree(text);
}

static void
put_le_double(uint8 *p, double v)
{
	uint64		bits;

	memcpy(&bits, &v, sizeof(bits));
	for (int i = 0; i < 8; i++)
		p[i] = (uint8) (bits >> (8 * i));
}

/* io.debezium.data.geometry.Point, with its 21-byte little-endian WKB. */
static void
write_point(StringInfo buf, Datum value)
{
	Point	   *pt = DatumGetPointP(value);
	uint8		wkb[21] = {1, 1, 0, 0, 0};

	put_le_double(wkb + 5, pt->x);
	put_le_double(wkb + 13, pt->y);
	BUFAPPEND_LITERAL(buf, "{\"x\":");
	write_double(buf, pt->x);
	BUFAPPEND_LITERAL(buf, ",\"y\":");
	write_double(buf, pt->y);
	BUFAPPEND_LITERAL(buf, ",\"wkb\":");
	write_base64(buf, wkb, sizeof(wkb), false);
	BUFAPPEND_LITERAL(buf, ",\"srid\":null}");
}

static void
write_array(StringInfo buf, const CdcColumn *col, Datum value, const CdcOptions *opts)
{
	ArrayType  *arr = DatumGetArrayTypeP(value);
	const CdcColumn *elem = col->element;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(arr, elem->basetypid, elem->typlen, elem->typbyval,
					  elem->typalign, &elems, &nulls, &n);
	/* a null in a required-items array makes Debezium drop the whole value */
	if (!elem->optional && array_contains_nulls(arr))
	{
		BUFAPPEND_LITERAL(buf, "null");
		return;
	}
	bufappend_char(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			bufappend_char(buf, ',');
		if (nulls[i])
			BUFAPPEND_LITERAL(buf, "null");
		else
			typemap_write_value(buf, elem, elems[i], opts);
	}
	bufappend_char(buf, ']');
}

/* Write one non-null value of col as its JSON payload. */
void
typemap_write_value(StringInfo buf, const CdcColumn *col, Datum value,
					const CdcOptions *opts)
{
	char		text[TEMPORAL_TEXT_MAX];

	switch (col->kind)
	{
		case CDC_VK_BOOL:
			appendStringInfoString(buf, DatumGetBool(value) ? "true" : "false");
			break;
		case CDC_VK_INT16:
			write_int64(buf, DatumGetInt16(value));
			break;
		case CDC_VK_INT32:
			write_int64(buf, DatumGetInt32(value));
			break;
		case CDC_VK_INT64:
			write_int64(buf, DatumGetInt64(value));
			break;
		case CDC_VK_OID:
			write_int64(buf, (int64) DatumGetObjectId(value));
			break;
		case CDC_VK_FLOAT32:
			write_float(buf, DatumGetFloat4(value));
			break;
		case CDC_VK_FLOAT64:
			write_double(buf, DatumGetFloat8(value));
			break;
		case CDC_VK_NUMERIC:
			write_numeric(buf, col, value, opts);
			break;
		case CDC_VK_MONEY:
			write_money(buf, DatumGetCash(value), opts);
			break;
		case CDC_VK_TEXT:
			write_text_datum(buf, value);
			break;
		case CDC_VK_OUTPUT_TEXT:
			write_output_text(buf, col, value);
			break;
		case CDC_VK_UNKNOWN:
			write_unknown(buf, col, value, opts);
			break;
		case CDC_VK_UUID:
			write_uuid(buf, value);
			break;
		case CDC_VK_BYTEA:
			write_bytea(buf, value, opts);
			break;
		case CDC_VK_DATE:
			write_int64(buf, temporal_date_days(DatumGetDateADT(value)));
			break;
		case CDC_VK_TIME:
			write_time(buf, col, DatumGetTimeADT(value), opts);
			break;
		case CDC_VK_TIMETZ:
			{
				TimeTzADT  *tz = DatumGetTimeTzADTP(value);

				write_temporal_text(buf, text,
									temporal_zoned_time(tz->time, tz->zone, text));
				break;
			}
		case CDC_VK_TIMESTAMP:
			write_timestamp(buf, col, DatumGetTimestamp(value), opts);
			break;
		case CDC_VK_TIMESTAMPTZ:
			write_temporal_text(buf, text,
								temporal_zoned_timestamp(DatumGetTimestampTz(value),
														 col->precision, text));
			break;
		case CDC_VK_INTERVAL:
			write_interval(buf, DatumGetIntervalP(value), opts);
			break;
		case CDC_VK_BIT:
			write_bit(buf, value);
			break;
		case CDC_VK_BITS:
			write_bits(buf, col, value);
			break;
		case CDC_VK_HSTORE:
			write_hstore(buf, col, value, opts);
			break;
		case CDC_VK_POINT:
			write_point(buf, value);
			break;
		case CDC_VK_ARRAY:
			write_array(buf, col, value, opts);
			break;
	}
}

/*
 * Debezium's placeholder for an unchanged TOASTed array, chosen by the
 * array's type name: text-like arrays get [placeholder], bytea[] the
 * placeholder's bytes, integer[], date[] and bigint[] one number per byte
 * of it (Java's signed bytes), uuid[] the name-based UUID of those bytes;
 * any other array gets the placeholder string where an array belongs.
 * Connect rejects a value that does not fit the field's schema, and
 * Debezium then leaves the field null (a warning in its log).
 */
static void
write_array_placeholder(StringInfo buf, const CdcColumn *col, const CdcOptions *opts)
{
	const char *ph = opts->placeholder;
	int			len = opts->placeholder_len;

	switch (col->element->typid)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case JSONOID:
		case JSONBOID:
			bufappend_char(buf, '[');
			textenc_append_json(buf, ph, len);
			bufappend_char(buf, ']');
			break;
		case BYTEAOID:
			/* byte[] items fit only the "bytes" schema of binary mode bytes */
			if (opts->binary_mode != CDC_BINARY_BYTES)
				BUFAPPEND_LITERAL(buf, "null");
			else
			{
				bufappend_char(buf, '[');
				write_binary(buf, (const uint8 *) ph, len, opts);
				bufappend_char(buf, ']');
			}
			break;
		case DATEOID:
			/* Integer items do not fit Kafka's Date (time mode connect) */
			if (opts->time_mode == CDC_TIME_CONNECT)
			{
				BUFAPPEND_LITERAL(buf, "null");
				break;
			}
			/* FALLTHROUGH */
		case INT4OID:
		case INT8OID:
			bufappend_char(buf, '[');
			for (int i = 0; i < len; i++)
			{
				if (i > 0)
					bufappend_char(buf, ',');
				write_int64(buf, (int8) ph[i]);
			}
			bufappend_char(buf, ']');
			break;
		case UUIDOID:
			{
				pg_uuid_t	u;
				const char *errstr = NULL;

				/* java.util.UUID.nameUUIDFromBytes: MD5, version 3, IETF variant */
				if (!pg_md5_binary(ph, len, u.data, &errstr))
					elog(ERROR, "could not compute MD5 of the placeholder: %s", errstr);
				u.data[6] = (u.data[6] & 0x0f) | 0x30;
				u.data[8] = (u.data[8] & 0x3f) | 0x80;
				bufappend_char(buf, '[');
				write_uuid(buf, UUIDPGetDatum(&u));
				bufappend_char(buf, ']');
				break;
			}
		default:
			BUFAPPEND_LITERAL(buf, "null");
			break;
	}
}

/*
 * An unchanged TOASTed value that decoding cannot read: Debezium's
 * placeholder in the shape of the column's type.
 */
void
typemap_write_placeholder(StringInfo buf, const CdcColumn *col,
						  const CdcOptions *opts)
{
	const char *ph = opts->placeholder;
	int			len = opts->placeholder_len;

	switch (col->kind)
	{
		case CDC_VK_BYTEA:
		case CDC_VK_UNKNOWN:
			/* Debezium's base64 converters do not take the placeholder: null */
			if (opts->binary_mode == CDC_BINARY_HEX)
				textenc_append_json(buf, ph, len);
			else if (opts->binary_mode == CDC_BINARY_BYTES)
				write_binary(buf, (const uint8 *) ph, len, opts);
			else
				BUFAPPEND_LITERAL(buf, "null");
			break;
		case CDC_VK_HSTORE:
			bufappend_char(buf, '{');
			textenc_append_json(buf, ph, len);
			bufappend_char(buf, ':');
			textenc_append_json(buf, ph, len);
			bufappend_char(buf, '}');
			break;
		case CDC_VK_ARRAY:
			write_array_placeholder(buf, col, opts);
			break;
		default:
			textenc_append_json(buf, ph, len);
			break;
	}
}
