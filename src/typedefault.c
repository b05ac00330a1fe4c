/*-------------------------------------------------------------------------
 *
 * typedefault.c
 *		Column defaults and fallback values, as Debezium renders them.
 *
 * Debezium puts a column's DEFAULT into its field schema ("default":...),
 * and Kafka's JsonConverter then writes that default wherever the field's
 * value is null.  Debezium does not evaluate default expressions: it reads
 * the text pg_get_expr() gives, takes a quoted literal or a bare constant,
 * replaces a function call (nextval(...), now(), CURRENT_TIMESTAMP) by a
 * fixed placeholder of the type (0, 1970-01-01, ...), and only does this for
 * a fixed list of types, named by the column's declared type (so a domain
 * column has no default).  A NOT NULL column that has no value in a row
 * image (the non-key columns of a delete's before image under REPLICA
 * IDENTITY DEFAULT) gets the default, or else a per-type fallback value.
 *
 * src/typedefault.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "cdc_kafka.h"

/* A type Debezium parses defaults for, and the literal it uses for functions. */
typedef struct DefaultRule
{
	const char *typname;
	const char *generated;		/* placeholder when the default is a function */
	bool		null_aware;		/* "NULL::type" means no default */
} DefaultRule;

static const DefaultRule default_rules[] = {
	{"bit", "00", false},
	{"varbit", "0", false},
	{"bool", "false", true},
	{"bpchar", "", false},
	{"varchar", "", false},
	{"text", "", false},
	{"numeric", "0.0", true},
	{"float4", "0.0", true},
	{"float8", "0.0", true},
	{"int2", "0", true},
	{"int4", "0", true},
	{"int8", "0", true},
	{"json", "{}", false},
	{"jsonb", "{}", false},
	{"xml", "", false},
	{"uuid", "00000000-0000-0000-0000-000000000000", false},
	{"date", "1970-01-01", false},
	{"time", "00:00", false},
	{"timestamp", "1970-01-01", false},
	{"timestamptz", "1970-01-01", false},
	{"interval", "epoch", false},
	{NULL, NULL, false}
};

static const char *const current_datetime_words[] = {
	"current_timestamp", "current_time", "current_date", "localtime",
	"localtimestamp", NULL
};

/*
 * Does the expression start with a function call, "[(]name(...)"?  This is
 * the shape Debezium's pattern recognises.
 */
static bool
looks_like_function(const char *expr)
{
	const char *p = expr;
	const char *name;

	if (*p == '(')
		p++;
	name = p;
	while (isalnum((unsigned char) *p) || *p == '_' || *p == '.')
		p++;
	if (p == name || *p != '(')
		return false;
	return strchr(p + 1, ')') != NULL;
}

static bool
is_current_datetime(const char *expr)
{
	for (int i = 0; current_datetime_words[i] != NULL; i++)
	{
		if (pg_strcasecmp(expr, current_datetime_words[i]) == 0)
			return true;
	}
	return false;
}

/*
 * The literal Debezium extracts: text between the first two single quotes,
 * or the whole expression when it has no quote; NULL for "NULL::...".
 */
static char *
extract_literal(const char *expr, const DefaultRule *rule)
{
	const char *open;
	const char *close;

	if (looks_like_function(expr) || is_current_datetime(expr))
		return pstrdup(rule->generated);
	open = strchr(expr, '\'');
	if (open == NULL)
		return strncmp(expr, "NULL::", 6) == 0 ? NULL : pstrdup(expr);
	close = strchr(open + 1, '\'');
	if (close == NULL)
		return NULL;
	return pnstrdup(open + 1, close - open - 1);
}

/*
 * Enum defaults count only when the literal is cast to the column's own
 * type ('a'::mood or 'a'::public.mood).
 */
static char *
enum_literal(const char *expr, const char *typname)
{
	const char *cast = strstr(expr, "::");
	const char *suffix;
	const char *dot;
	size_t		len;

	if (cast == NULL || expr[0] != '\'')
		return NULL;
	while (strstr(cast + 2, "::") != NULL)
		cast = strstr(cast + 2, "::");
	suffix = cast + 2;
	dot = strrchr(suffix, '.');
	if (dot != NULL)
		suffix = dot + 1;
	if (*suffix == '"')
		suffix++;
	len = strlen(suffix);
	if (len > 0 && suffix[len - 1] == '"')
		len--;
	if (strlen(typname) != len || strncmp(suffix, typname, len) != 0)
		return NULL;
	if (cast - expr < 2 || cast[-1] != '\'')
		return NULL;
	return pnstrdup(expr + 1, cast - expr - 2);
}

static char *
type_name(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		return NULL;
	name = pstrdup(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname));
	ReleaseSysCache(tup);
	return name;
}

static const DefaultRule *
find_rule(const char *typname)
{
	for (int i = 0; default_rules[i].typname != NULL; i++)
	{
		if (strcmp(default_rules[i].typname, typname) == 0)
			return &default_rules[i];
	}
	return NULL;
}

/* Kinds whose default Debezium keeps as the literal string itself. */
static bool
kind_takes_literal(CdcValueKind kind)
{
	return kind == CDC_VK_TEXT || kind == CDC_VK_OUTPUT_TEXT;
}

/*
 * Render literal as a value of col: through the type's input function, in
 * a throwaway context; a literal the type rejects gives no default, as
 * Debezium logs and ignores it.
 */
static char *
render_literal(const CdcColumn *col, const char *literal, const CdcOptions *opts)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	StringInfoData buf;
	volatile bool ok = true;

	initStringInfo(&buf);
	if (col->kind == CDC_VK_BOOL)
	{
		appendStringInfoString(&buf, pg_strcasecmp(literal, "true") == 0 ? "true" : "false");
		return buf.data;
	}
	if (col->kind == CDC_VK_BIT)
	{
		appendStringInfoString(&buf, strcmp(literal, "1") == 0 ? "true" : "false");
		return buf.data;
	}
	PG_TRY();
	{
		Oid			infunc;
		Oid			ioparam;
		Datum		value;

		getTypeInputInfo(col->basetypid, &infunc, &ioparam);
		value = OidInputFunctionCall(infunc, (char *) literal, ioparam, col->typmod);
		typemap_write_value(&buf, col, value, opts);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		ok = false;
	}
	PG_END_TRY();
	return ok ? buf.data : NULL;
}

/*
 * Set col->default_json from the column's default expression (the text of
 * pg_get_expr), following Debezium's rules.
 */
void
typemap_column_set_default(CdcColumn *col, const char *default_expr,
						   const CdcOptions *opts)
{
	char	   *typname;
	const DefaultRule *rule;
	char	   *literal;

	col->default_json = NULL;
	if (default_expr == NULL)
		return;
	typname = type_name(col->typid);
	if (typname == NULL)
		return;

	if (get_typtype(col->typid) == TYPTYPE_ENUM)
		literal = enum_literal(default_expr, typname);
	else if ((rule = find_rule(typname)) != NULL)
		literal = extract_literal(default_expr, rule);
	else
		return;
	if (literal == NULL)
		return;

	/* Connect cannot carry a struct default (VariableScaleDecimal) */
	if (col->kind == CDC_VK_NUMERIC && col->scale < 0 &&
		opts->decimal_mode == CDC_DECIMAL_PRECISE)
		return;

	if (kind_takes_literal(col->kind))
	{
		StringInfoData buf;

		initStringInfo(&buf);
		encoder_append_json_string(&buf, literal, strlen(literal));
		col->default_json = buf.data;
	}
	else
		col->default_json = render_literal(col, literal, opts);
}

/*
 * The value Debezium writes for a NOT NULL column that has no value and no
 * default: its converters' "fallback" for the type.
 */
static const char *
fallback_for(const CdcColumn *col, const CdcOptions *opts)
{
	bool		as_string = opts->decimal_mode == CDC_DECIMAL_STRING;

	switch (col->kind)
	{
		case CDC_VK_BOOL:
		case CDC_VK_BIT:
			return "false";
		case CDC_VK_FLOAT32:
		case CDC_VK_FLOAT64:
			return "0.0";
		case CDC_VK_NUMERIC:
			if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
				return "0.0";
			if (as_string)
				return col->scale > 0 ? psprintf("\"0.%0*d\"", col->scale, 0) : "\"0\"";
			return col->scale < 0 ? "{\"scale\":0,\"value\":\"AA==\"}" : "\"AA==\"";
		case CDC_VK_MONEY:
			if (opts->decimal_mode == CDC_DECIMAL_DOUBLE)
				return "0.0";
			if (as_string)
				return opts->money_fraction_digits > 0 ?
					psprintf("\"0.%0*d\"", opts->money_fraction_digits, 0) : "\"0\"";
			return "\"AA==\"";
		case CDC_VK_TEXT:
		case CDC_VK_OUTPUT_TEXT:
		case CDC_VK_UUID:
		case CDC_VK_BYTEA:
		case CDC_VK_BITS:
			return "\"\"";
		case CDC_VK_TIMETZ:
			return "\"00:00:00Z\"";
		case CDC_VK_TIMESTAMPTZ:
			return "\"1970-01-01T00:00:00Z\"";
		case CDC_VK_INTERVAL:
			return opts->interval_mode == CDC_INTERVAL_STRING ? "\"P0Y0M0DT0H0M0S\"" : "0";
		case CDC_VK_HSTORE:
			return opts->hstore_mode == CDC_HSTORE_JSON ? "\"{}\"" : "{}";
		case CDC_VK_ARRAY:
			return "[]";
		case CDC_VK_POINT:
			return "null";
		default:
			return "0";
	}
}

void
typemap_column_set_fallback(CdcColumn *col, const CdcOptions *opts)
{
	col->fallback_json = col->optional ? NULL : pstrdup(fallback_for(col, opts));
}
