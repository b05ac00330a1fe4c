/*-------------------------------------------------------------------------
 *
 * colmask.c
 *		Debezium's column mappers: column.mask.with.<n>.chars,
 *		column.truncate.to.<n>.chars, column.mask.hash.*.
 *
 * Each option takes a regex list (colregex.c) of "schema.table.column".
 *
 * column_mask_with_<n>_chars (n in the name, as in Debezium's property): a
 * matching column's schema gets the parameter masked=true whatever its
 * type; its values, when Debezium's JDBC type for it is a character type
 * (text, varchar, char(n), "char", name), become n asterisks, null and
 * unchanged TOASTed values included, as Debezium's MaskStrings converter
 * replaces whatever it is given.
 *
 * column_truncate_to_<n>_chars: a matching column whose source length
 * (pgjdbc's precision, else display size; source_length) is unknown or
 * above n gets the parameter truncateLength=n; its values that are Java
 * Strings in Debezium (JSON strings other than bytes, bits and precise
 * decimals) are cut to n UTF-16 units, bytea values written as bytes to n
 * bytes.
 *
 * column_propagate_source_type, datatype_propagate_source_type (a regex
 * list of "schema.table.typname"): the schema parameters
 * __debezium.source.column.type, .length, .scale, .name.
 *
 * column_mask_hash_[v2_]<algorithm>_with_salt_<salt> (colhash.c): masked=true
 * as masks, and character values replaced by their hash, cut to the
 * column's length.
 *
 * Keys keep the columns' own values and schemas (Debezium's column mappers
 * shape values only), and a null written as the schema's default is not
 * mapped (JsonConverter puts the default in after the mapper).  Debezium's
 * ColumnMappers try every truncation rule, then every mask, then the
 * column and datatype propagations, then the v1 hashes, then the v2 ones;
 * the first rule that matches a column is the
 * only one applied to it (among rules of one kind, the first option given).
 * The worker's settings cdc_kafka.column_mask_with_chars and
 * cdc_kafka.column_truncate_to_chars list the options as
 * "<n>:<regex list>; ..." (colmask_setting_options).
 *
 * src/plugin/colmask.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "plugin/colhash.h"
#include "plugin/colmask.h"
#include "plugin/compat.h"
#include "plugin/optvalue.h"
#include "plugin/colregex.h"
#include "plugin/textenc.h"

/* The kinds of rules, in the order Debezium tries them. */
typedef enum ColMaskKind
{
	COLMASK_TRUNCATE,
	COLMASK_MASK,
	COLMASK_PROPAGATE,			/* column.propagate.source.type */
	COLMASK_PROPAGATE_DATATYPE, /* datatype.propagate.source.type */
	COLMASK_HASH,
	COLMASK_HASH_V2,
	COLMASK_NKINDS
} ColMaskKind;

struct ColMask
{
	ColMaskKind kind;
	List	   *patterns;
	int			chars;			/* n of the option's name */
	char	   *mask_json;		/* COLMASK_MASK: "***" as JSON */
	ColHash    *hash;			/* COLMASK_HASH, COLMASK_HASH_V2 */
};

#define MASK_PREFIX "column_mask_with_"
#define TRUNCATE_PREFIX "column_truncate_to_"
#define MASK_SUFFIX "_chars"

/*
 * If option is column_mask_with_<n>_chars, column_truncate_to_<n>_chars or
 * column_mask_hash_[v2_]<algorithm>_with_salt_<salt>, its rule appended to
 * masks; masks unchanged (the same pointer) if the name is none of them.
 */
List *
colmask_parse(List *masks, const char *option, const char *value)
{
	size_t		len = strlen(option);
	ColMaskKind kind;
	const char *prefix;
	const char *digits;
	size_t		ndigits;
	long		n;
	ColMask    *mask;

	if (strcmp(option, "column_propagate_source_type") == 0 ||
		strcmp(option, "datatype_propagate_source_type") == 0)
	{
		mask = palloc0(sizeof(ColMask));
		mask->kind = option[0] == 'c' ? COLMASK_PROPAGATE : COLMASK_PROPAGATE_DATATYPE;
		mask->patterns = colregex_compile(option, value);
		return lappend(masks, mask);
	}
	if (strncmp(option, COLHASH_PREFIX, strlen(COLHASH_PREFIX)) == 0)
	{
		mask = palloc0(sizeof(ColMask));
		mask->hash = colhash_parse(option);
		mask->kind = colhash_is_v2(mask->hash) ? COLMASK_HASH_V2 : COLMASK_HASH;
		mask->patterns = colregex_compile(option, value);
		return lappend(masks, mask);
	}
	if (strncmp(option, MASK_PREFIX, strlen(MASK_PREFIX)) == 0)
		kind = COLMASK_MASK, prefix = MASK_PREFIX;
	else if (strncmp(option, TRUNCATE_PREFIX, strlen(TRUNCATE_PREFIX)) == 0)
		kind = COLMASK_TRUNCATE, prefix = TRUNCATE_PREFIX;
	else
		return masks;
	digits = option + strlen(prefix);
	if (len <= strlen(prefix) + strlen(MASK_SUFFIX) ||
		strcmp(option + len - strlen(MASK_SUFFIX), MASK_SUFFIX) != 0 ||
		(ndigits = len - strlen(prefix) - strlen(MASK_SUFFIX)) > 6 ||
		strspn(digits, "0123456789") != ndigits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid option name \"%s\"", option),
				 errhint("Write %s<n>%s, n a whole number up to 999999.", prefix, MASK_SUFFIX)));
	n = strtol(digits, NULL, 10);
	mask = palloc0(sizeof(ColMask));
	mask->kind = kind;
	mask->patterns = colregex_compile(option, value);
	mask->chars = (int) n;
	if (kind == COLMASK_MASK)
	{
		mask->mask_json = palloc(n + 3);
		mask->mask_json[0] = '"';
		memset(mask->mask_json + 1, '*', n);
		mask->mask_json[n + 1] = '"';
		mask->mask_json[n + 2] = '\0';
	}
	return lappend(masks, mask);
}

/*
 * The settings cdc_kafka.column_mask_with_chars and
 * cdc_kafka.column_truncate_to_chars (truncate true): "<n>:<regex list>"
 * entries separated by ";", each the plugin option
 * column_mask_with_<n>_chars or column_truncate_to_<n>_chars, in their
 * order.  NULL if value is valid (then, if names is not NULL, the option
 * names and their values appended to names and lists), else what is wrong,
 * for a check hook (nothing is thrown).
 */
char *
colmask_setting_options(const char *value, bool truncate, List **names, List **lists)
{
	char	   *copy = pstrdup(value);
	char	   *save = NULL;
	List	   *seen = NIL;

	for (char *entry = strtok_r(copy, ";", &save); entry != NULL;
		 entry = strtok_r(NULL, ";", &save))
	{
		char	   *colon;
		char	   *digits;
		ListCell   *lc;

		entry = optvalue_java_trim(entry, strlen(entry));
		if (entry[0] == '\0')
			continue;
		colon = strchr(entry, ':');
		digits = colon ? optvalue_java_trim(entry, colon - entry) : "";
		if (digits[0] == '\0' || strlen(digits) > 6 || strspn(digits, "0123456789") != strlen(digits))
			return psprintf("Entry \"%s\" is not <n>:<regex list>, n a whole number up to 999999.", entry);
		digits = psprintf("%ld", strtol(digits, NULL, 10));
		foreach(lc, seen)
		{
			if (strcmp(lfirst(lc), digits) == 0)
				return psprintf("%s characters are given twice.", digits);
		}
		seen = lappend(seen, digits);
		if (list_length(seen) > COLMASK_MAX_SETTING_ENTRIES)
			return psprintf("At most %d entries.", COLMASK_MAX_SETTING_ENTRIES);
		if (colregex_split(colon + 1) == NIL)
			return psprintf("Entry \"%s\" has no regular expression.", entry);
		foreach(lc, colregex_split(colon + 1))
		{
			char	   *error = colregex_check(lfirst(lc));

			if (error != NULL)
				return psprintf("Invalid regular expression \"%s\": %s.", (char *) lfirst(lc), error);
		}
		if (names != NULL)
		{
			*names = lappend(*names, psprintf("%s%s" MASK_SUFFIX,
											  truncate ? TRUNCATE_PREFIX : MASK_PREFIX, digits));
			*lists = lappend(*lists, pstrdup(colon + 1));
		}
	}
	return NULL;
}

/*
 * A schema parameter, merged into col's own parameters (last in its schema)
 * and those added before; value in the database encoding.
 */
static void
add_parameter(CdcColumn *col, const char *key, const char *value)
{
	const char *schema = col->value_schema_json ? col->value_schema_json : col->schema_json;
	size_t		len = strlen(schema);
	StringInfoData buf;

	initStringInfo(&buf);
	if (len > 0 && schema[len - 1] == '}')
		appendStringInfo(&buf, "%.*s,\"%s\":", (int) (len - 1), schema, key);
	else
		appendStringInfo(&buf, "%s,\"parameters\":{\"%s\":", schema, key);
	textenc_append_json(&buf, value, strlen(value));
	appendStringInfoChar(&buf, '}');
	col->value_schema_json = buf.data;
}

/*
 * pgjdbc's TypeInfoCache.getPrecision, and getDisplaySize where that is 0
 * without a modifier (Debezium's PostgresType.getDefaultLength): the column
 * length Debezium knows from a relation message.
 */
static int
jdbc_display_size(Oid typid, int32 typmod)
{
	int			fraction = typmod == -1 ? 7 : typmod == 0 ? 0 : typmod == 1 ? 3 : typmod + 1;

	switch (typid)
	{
		case INT2OID:
			return 6;
		case INT4OID:
			return 11;
		case OIDOID:
			return 10;
		case INT8OID:
			return 20;
		case FLOAT4OID:
			return 15;
		case FLOAT8OID:
			return 25;
		case CHAROID:
		case BOOLOID:
			return 1;
		case DATEOID:
			return 13;
		case TIMEOID:
			return 8 + fraction;
		case TIMETZOID:
			return 8 + fraction + 6;
		case TIMESTAMPOID:
			return 22 + fraction;
		case TIMESTAMPTZOID:
			return 22 + fraction + 6;
		case INTERVALOID:
			return 49;
		case NUMERICOID:
			if (typmod == -1)
				return 131089;
			return 1 + (((typmod - 4) >> 16) & 0xffff) + (((typmod - 4) & 0xffff) != 0);
		default:
			return PG_INT32_MAX;
	}
}

static int
jdbc_precision(Oid typid, int32 typmod)
{
	switch (typid)
	{
		case INT2OID:
			return 5;
		case OIDOID:
		case INT4OID:
			return 10;
		case INT8OID:
			return 19;
		case FLOAT4OID:
			return 8;
		case FLOAT8OID:
			return 17;
		case NUMERICOID:
			return typmod == -1 ? 0 : ((typmod - 4) >> 16) & 0xffff;
		case CHAROID:
		case BOOLOID:
			return 1;
		case BPCHAROID:
		case VARCHAROID:
			return typmod == -1 ? PG_INT32_MAX : typmod - 4;
		case DATEOID:
		case TIMEOID:
		case TIMETZOID:
		case INTERVALOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return jdbc_display_size(typid, typmod);
		case BITOID:
			return typmod;
		case VARBITOID:
			return typmod == -1 ? PG_INT32_MAX : typmod;
		default:
			return PG_INT32_MAX;
	}
}

static int
source_length(const CdcColumn *col)
{
	Oid			typid = col->typid;
	int32		typmod = col->typmod;
	Oid			elem;
	int			length;

	if (typid != col->basetypid)
		typid = getBaseTypeAndTypmod(typid, &typmod);
	elem = get_element_type(typid);
	if (OidIsValid(elem))
		typid = elem;
	length = jdbc_precision(typid, typmod);
	if (length == 0 && typmod == -1)
		length = jdbc_display_size(typid, typmod);
	return length;
}

/* pgjdbc's TypeInfoCache.getScale: the scale Debezium knows. */
static int
source_scale(const CdcColumn *col)
{
	Oid			typid = col->typid;
	int32		typmod = col->typmod;
	Oid			elem;

	if (typid != col->basetypid)
		typid = getBaseTypeAndTypmod(typid, &typmod);
	elem = get_element_type(typid);
	if (OidIsValid(elem))
		typid = elem;
	switch (typid)
	{
		case FLOAT4OID:
			return 8;
		case FLOAT8OID:
			return 17;
		case NUMERICOID:
			return typmod == -1 ? 0 : (typmod - 4) & 0xffff;
		case TIMEOID:
		case TIMETZOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return typmod == -1 ? 6 : typmod;
		case INTERVALOID:
			return typmod == -1 ? 6 : typmod & 0xffff;
		default:
			return 0;
	}
}

/* The column's own type's name (pg_type.typname, a domain's own). */
static char *
type_name(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	name = pstrdup(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname));
	ReleaseSysCache(tup);
	return name;
}

/*
 * PropagateSourceMetadataToSchemaParameter: the type's name in upper case
 * (ASCII, as Java's toUpperCase(Locale.ENGLISH) for these names), length
 * and scale as a relation message gives them to Debezium, the column's name.
 */
static void
add_source_parameters(CdcColumn *col)
{
	char	   *name = type_name(col->typid);

	for (char *p = name; *p; p++)
		*p = pg_ascii_toupper((unsigned char) *p);
	add_parameter(col, "__debezium.source.column.type", name);
	add_parameter(col, "__debezium.source.column.length", psprintf("%d", source_length(col)));
	add_parameter(col, "__debezium.source.column.scale", psprintf("%d", source_scale(col)));
	add_parameter(col, "__debezium.source.column.name", col->name);
}

/*
 * The settings cdc_kafka.column_propagate_source_type and
 * datatype_propagate_source_type: NULL if list is a valid regex list (or
 * empty: unset), else what is wrong, for a check hook.
 */
char *
colmask_list_error(const char *list)
{
	ListCell   *lc;

	foreach(lc, colregex_split(list))
	{
		char	   *error = colregex_check(lfirst(lc));

		if (error != NULL)
			return psprintf("Invalid regular expression \"%s\": %s.", (char *) lfirst(lc), error);
	}
	return NULL;
}

/* pgjdbc's Types.CHAR and VARCHAR among the column types. */
static bool
is_character_type(Oid typid)
{
	return typid == TEXTOID || typid == VARCHAROID || typid == BPCHAROID ||
		typid == CHAROID || typid == NAMEOID;
}

static void
apply_rule(const ColMask *mask, CdcColumn *col)
{
	switch (mask->kind)
	{
		case COLMASK_TRUNCATE:
			{
				int			length = source_length(col);

				/* TruncateColumn.isTruncationPossible */
				if (length >= 0 && length <= mask->chars)
					return;
				add_parameter(col, "truncateLength", psprintf("%d", mask->chars));
				col->mapper = mask;
				break;
			}
		case COLMASK_MASK:
			add_parameter(col, "masked", "true");
			if (is_character_type(col->typid))
				col->mask_json = mask->mask_json;
			break;
		case COLMASK_PROPAGATE:
		case COLMASK_PROPAGATE_DATATYPE:
			add_source_parameters(col);
			break;
		case COLMASK_HASH:
		case COLMASK_HASH_V2:
			add_parameter(col, "masked", "true");
			if (is_character_type(col->typid))
				col->mapper = mask;
			break;
		case COLMASK_NKINDS:
			break;
	}
}

void
colmask_apply(const List *masks, CdcColumn *col, const char *schemaname,
			  const char *relname)
{
	char	   *name;
	char	   *datatype = NULL;

	if (masks == NIL)
		return;
	name = psprintf("%s.%s.%s", schemaname, relname, col->name);
	for (int kind = 0; kind < COLMASK_NKINDS; kind++)
	{
		const ListCell *lc;

		foreach(lc, masks)
		{
			const ColMask *mask = lfirst(lc);
			const char *subject = name;

			if (mask->kind != kind)
				continue;
			/* Debezium's ColumnMappers.fullyQualifiedColumnDatatype */
			if (kind == COLMASK_PROPAGATE_DATATYPE)
			{
				if (datatype == NULL)
					datatype = psprintf("%s.%s.%s", schemaname, relname, type_name(col->typid));
				subject = datatype;
			}
			if (colregex_match(mask->patterns, subject))
			{
				apply_rule(mask, col);
				return;
			}
		}
	}
}

/* ---- values ---- */

static void
append_utf8(StringInfo out, pg_wchar c)
{
	unsigned char bytes[4];

	unicode_to_utf8(c, bytes);
	appendBinaryStringInfo(out, (char *) bytes, pg_utf_mblen(bytes));
}

static int
hex_value(const char *p)
{
	char		digits[5];

	memcpy(digits, p, 4);
	digits[4] = '\0';
	return (int) strtol(digits, NULL, 16);
}

/*
 * The UTF-8 text of the JSON string json (as our encoder writes it: valid,
 * escapes \" \\ \/ \b \f \n \r \t \uXXXX) appended to out.
 */
static void
json_string_decode(StringInfo out, const char *json, int len)
{
	const char *end = json + len - 1;

	for (const char *p = json + 1; p < end; p++)
	{
		if (*p != '\\')
		{
			appendStringInfoChar(out, *p);
			continue;
		}
		p++;
		switch (*p)
		{
			case 'b':
				appendStringInfoChar(out, '\b');
				break;
			case 'f':
				appendStringInfoChar(out, '\f');
				break;
			case 'n':
				appendStringInfoChar(out, '\n');
				break;
			case 'r':
				appendStringInfoChar(out, '\r');
				break;
			case 't':
				appendStringInfoChar(out, '\t');
				break;
			case 'u':
				{
					pg_wchar	c = hex_value(p + 1);

					p += 4;
					if (is_utf16_surrogate_first(c) && p + 6 < end && p[1] == '\\' && p[2] == 'u' &&
						is_utf16_surrogate_second(hex_value(p + 3)))
					{
						c = surrogate_pair_to_codepoint(c, hex_value(p + 3));
						p += 6;
					}
					append_utf8(out, c);
					break;
				}
			default:
				appendStringInfoChar(out, *p);
				break;
		}
	}
}

/* Bytes of UTF-8 text s making its first n UTF-16 units (a pair is not split). */
static int
utf16_prefix_bytes(const char *s, int len, int n)
{
	int			bytes = 0;

	while (bytes < len && n > 0)
	{
		int			clen = pg_utf_mblen((const unsigned char *) s + bytes);
		int			units = clen == 4 ? 2 : 1;

		if (units > n)
			break;
		n -= units;
		bytes += clen;
	}
	return bytes;
}

/* Is the value Debezium gives the column's mapper a String? */
static bool
is_java_string(const CdcColumn *col, const CdcOptions *opts)
{
	switch (col->kind)
	{
		case CDC_VK_BITS:
			return false;		/* byte[] */
		case CDC_VK_NUMERIC:
		case CDC_VK_MONEY:
			return opts->decimal_mode == CDC_DECIMAL_STRING;
		default:
			return true;
	}
}

/* TruncateColumn's converter on a value written as json. */
static void
append_truncated(StringInfo buf, const CdcColumn *col, const char *json, int len,
				 const CdcOptions *opts)
{
	int			n = col->mapper->chars;
	StringInfoData text;

	if (len < 2 || json[0] != '"' ||
		(col->kind != CDC_VK_BYTEA && !is_java_string(col, opts)))
	{
		appendBinaryStringInfo(buf, json, len);
		return;
	}
	initStringInfo(&text);
	json_string_decode(&text, json, len);
	if ((col->kind == CDC_VK_BYTEA || col->kind == CDC_VK_UNKNOWN) &&
		opts->binary_mode == CDC_BINARY_BYTES)
	{
		/* a ByteBuffer: its first n bytes */
		int			cap = pg_b64_dec_len(text.len);
		char	   *bytes = palloc(cap + 1);
		int			nbytes = compat_b64_decode(text.data, text.len, bytes, cap);

		typemap_write_binary(buf, bytes, Min(Max(nbytes, 0), n), opts);
		pfree(bytes);
	}
	else
		textenc_append_json_utf8(buf, text.data, utf16_prefix_bytes(text.data, text.len, n));
	pfree(text.data);
}

/* MaskStrings' HashValueConverter, then cut to the column's length. */
static void
append_hashed(StringInfo buf, const CdcColumn *col, const char *json, int len)
{
	StringInfoData text;
	int			length = source_length(col);

	if (len < 2 || json[0] != '"')
	{
		appendBinaryStringInfo(buf, json, len);
		return;
	}
	initStringInfo(&text);
	json_string_decode(&text, json, len);
	colhash_append(buf, col->mapper->hash, text.data, text.len, Max(length, 0));
	pfree(text.data);
}

/* A value of a column with a mapper (col->mapper), written as json by the type map. */
void
colmask_append_value(StringInfo buf, const CdcColumn *col, const char *json, int len,
					 const CdcOptions *opts)
{
	switch (col->mapper->kind)
	{
		case COLMASK_TRUNCATE:
			append_truncated(buf, col, json, len, opts);
			break;
		case COLMASK_HASH:
		case COLMASK_HASH_V2:
			append_hashed(buf, col, json, len);
			break;
		default:
			appendBinaryStringInfo(buf, json, len);
			break;
	}
}
