/*-------------------------------------------------------------------------
 *
 * typedefault.c
 *		Column defaults and fallback values, as Debezium renders them.
 *
 * Debezium puts a column's DEFAULT into its field schema ("default":...),
 * and Kafka's JsonConverter then writes that default wherever the field's
 * value is null.  Debezium does not evaluate default expressions: it reads
 * the text pg_get_expr() gives, replaces a function call (nextval(...),
 * now(), ...) or CURRENT_DATE and the like by a fixed placeholder of the
 * type, else takes the first single-quoted literal (or the whole text when
 * it has no quote), parses that with Java's parsers (Integer.parseInt,
 * new BigDecimal, pgjdbc's TimestampUtils and PGInterval, ...) and converts
 * the result as it converts a value.  It does this only for a fixed list of
 * types and enums, named by the column's declared type (so a domain column
 * has no default); anything that fails to parse or convert gives no default.
 * A NOT NULL column that has no value in a row image (the non-key columns of
 * a delete's before image under REPLICA IDENTITY DEFAULT) gets the default,
 * or else a per-type fallback value.
 *
 * Two rules keep the result a function of the catalog alone:
 *
 *	- The expression is printed and parsed under fixed settings (search_path
 *	  pg_catalog, ISO dates, UTC, ...), never the session's: pg_get_expr's
 *	  text of a date, timestamp or float constant follows DateStyle,
 *	  TimeZone and extra_float_digits, qualified names follow search_path,
 *	  and a function default's placeholder '1970-01-01' would otherwise be
 *	  read in the session's time zone.
 *
 *	- Nothing here can throw.  A literal the type rejects must give "no
 *	  default", but catching an error of an input function needs a
 *	  subtransaction, which a logical decoding callback cannot start (the
 *	  reorder buffer runs the callbacks inside its own internal
 *	  subtransaction and a historic snapshot).  So the literal is checked and
 *	  converted by code that reports failure by its return value: small
 *	  parsers that accept what Java's accept, and for dates and times
 *	  PostgreSQL's own ParseDateTime/Decode* routines, which return error
 *	  codes, on text first restricted to characters that cannot name a time
 *	  zone (the one case where they ereport).
 *
 * src/plugin/typedefault.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodes.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
#include "utils/varbit.h"

#include "common/temporal.h"
#include "plugin/compat.h"
#include "plugin/options.h"
#include "plugin/textenc.h"
#include "plugin/typedefault.h"
#include "plugin/typemap.h"

/* How Debezium parses the default of a type it has a mapper for. */
typedef enum DefaultParser
{
	DP_BIT,
	DP_VARBIT,
	DP_BOOL,
	DP_STRING,
	DP_NUMERIC,
	DP_FLOAT,
	DP_INT,
	DP_UUID,
	DP_DATE,
	DP_TIME,
	DP_TIMESTAMP,
	DP_TIMESTAMPTZ,
	DP_INTERVAL
} DefaultParser;

typedef struct DefaultRule
{
	const char *typname;
	DefaultParser parser;
	const char *generated;		/* placeholder when the default is a function */
	bool		trimmed;		/* expression trimmed first (TRIM_DATA_TYPES) */
} DefaultRule;

static const DefaultRule default_rules[] = {
	{"bit", DP_BIT, "00", true},
	{"varbit", DP_VARBIT, "0", true},
	{"bool", DP_BOOL, "false", true},
	{"bpchar", DP_STRING, "", false},
	{"varchar", DP_STRING, "", false},
	{"text", DP_STRING, "", false},
	{"numeric", DP_NUMERIC, "0.0", true},
	{"float4", DP_FLOAT, "0.0", true},
	{"float8", DP_FLOAT, "0.0", true},
	{"int2", DP_INT, "0", true},
	{"int4", DP_INT, "0", true},
	{"int8", DP_INT, "0", true},
	{"json", DP_STRING, "{}", false},
	{"jsonb", DP_STRING, "{}", false},
	{"xml", DP_STRING, "", false},
	{"uuid", DP_UUID, "00000000-0000-0000-0000-000000000000", true},
	{"date", DP_DATE, "1970-01-01", true},
	{"time", DP_TIME, "00:00", true},
	{"timestamp", DP_TIMESTAMP, "1970-01-01", true},
	{"timestamptz", DP_TIMESTAMPTZ, "1970-01-01", true},
	{"interval", DP_INTERVAL, "epoch", true},
	{NULL, 0, NULL, false}
};

static const char *const current_datetime_words[] = {
	"current_timestamp", "current_time", "current_date", "localtime",
	"localtimestamp", NULL
};

/* ---- fixed settings ------------------------------------------------------ */

/*
 * The settings default expressions are printed and parsed under.  Debezium
 * reads pg_get_expr() through pgjdbc, which sets ISO dates and exact floats;
 * a time zone is only needed for texts without an offset (the placeholder),
 * which the harness's JVM and this read as UTC.
 */
static const char *const pinned_settings[][2] = {
	{"search_path", "pg_catalog"},
	{"DateStyle", "ISO, MDY"},
	{"IntervalStyle", "postgres"},
	{"TimeZone", "UTC"},
	{"extra_float_digits", "1"},
	{"bytea_output", "hex"},
	{"standard_conforming_strings", "on"},
	{"quote_all_identifiers", "off"},
};

/*
 * Set the fixed settings in a new GUC nesting level; unpin_settings (or the
 * abort of the transaction, on error) puts the session's back.
 */
static int
pin_settings(void)
{
	int			level = NewGUCNestLevel();

	for (int i = 0; i < lengthof(pinned_settings); i++)
		(void) set_config_option(pinned_settings[i][0], pinned_settings[i][1],
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
	return level;
}

static void
unpin_settings(int level)
{
	AtEOXact_GUC(true, level);
}

/*
 * The text pg_get_expr() gives for a stored default (adbin), printed under
 * the fixed settings.
 */
char *
typedefault_expression(const char *adbin)
{
	int			level = pin_settings();
	char	   *text;

	text = deparse_expression(stringToNode(adbin), NIL, false, false);
	unpin_settings(level);
	return text;
}

/* ---- the text Debezium extracts -------------------------------------------- */

/*
 * Length of the line terminator (as java.util.regex's '.' does not match it:
 * \n, \r, U+0085, U+2028, U+2029) at p, or 0.  Defaults are UTF-8 here.
 */
static int
line_terminator_len(const unsigned char *p)
{
	if (*p == '\n' || *p == '\r')
		return 1;
	if (p[0] == 0xC2 && p[1] == 0x85)
		return 2;
	if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9))
		return 3;
	return 0;
}

/* Is there a line terminator in [from, to)? */
static bool
has_line_terminator(const char *from, const char *to)
{
	for (const char *p = from; p < to; p++)
	{
		if (line_terminator_len((const unsigned char *) p) > 0)
			return true;
	}
	return false;
}

static bool
is_ascii_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_' || c == '.';
}

/*
 * Debezium's FUNCTION_DEFAULT_PATTERN, ^[(]?[A-Za-z0-9_.]+\((?:.+...)?\):
 * an optional '(', a name, '(' and a ')' later on the same line.
 */
static bool
looks_like_function(const char *expr)
{
	const char *p = expr;
	const char *name;

	if (*p == '(')
		p++;
	name = p;
	while (is_ascii_name_char(*p))
		p++;
	if (p == name || *p != '(')
		return false;
	for (p++; *p != '\0'; p++)
	{
		if (*p == ')')
			return true;
		if (line_terminator_len((const unsigned char *) p) > 0)
			return false;
	}
	return false;
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
 * The literal Debezium takes from expr: the placeholder for a function or
 * CURRENT_DATE-like word; the whole text when it has no quote (NULL for
 * "NULL::..."); else the first match of '(.*?)', i.e. the text between the
 * first two consecutive quotes that have no line terminator between them.
 * Returns false when there is no default (no match: Debezium's
 * matcher.group fails).  *literal is NULL for a null default.
 */
static bool
extract_literal(const char *expr, const DefaultRule *rule, char **literal)
{
	const char *open;

	*literal = NULL;
	if (looks_like_function(expr) || is_current_datetime(expr))
	{
		*literal = pstrdup(rule->generated);
		return true;
	}
	open = strchr(expr, '\'');
	if (open == NULL)
	{
		if (strncmp(expr, "NULL::", 6) != 0)
			*literal = pstrdup(expr);
		return true;
	}
	for (;;)
	{
		const char *close = strchr(open + 1, '\'');

		if (close == NULL)
			return false;
		if (!has_line_terminator(open + 1, close))
		{
			*literal = pnstrdup(open + 1, close - open - 1);
			return true;
		}
		open = close;
	}
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

/* Java's String.trim(): every character up to ' ' off both ends. */
static char *
java_trim(const char *s)
{
	size_t		len = strlen(s);

	while (len > 0 && (unsigned char) s[len - 1] <= ' ')
		len--;
	while (len > 0 && (unsigned char) *s <= ' ')
		s++, len--;
	return pnstrdup(s, len);
}

/* ---- Java's number parsers -------------------------------------------------- */

/* Integer.parseInt and friends: [+-]digits within [min, max]. */
static bool
parse_java_int(const char *s, int64 min, int64 max, int64 *result)
{
	bool		neg = false;
	uint64		v = 0;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	for (; *s; s++)
	{
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > (uint64) PG_INT64_MAX + 1)
			return false;
	}
	if (neg ? v > (uint64) (-(min + 1)) + 1 : v > (uint64) max)
		return false;
	*result = neg ? (int64) (0 - v) : (int64) v;
	return true;
}

/*
 * Float.parseFloat/Double.parseDouble: after trimming, [+-] then NaN,
 * Infinity, or digits[.digits][e[+-]digits] with an optional f/F/d/D.
 * (Java's hexadecimal form is not accepted here: such a default is left out.)
 * Returns the text strtod can read, or NULL.
 */
static char *
java_float_text(const char *s)
{
	char	   *t = java_trim(s);
	const char *p = t;
	size_t		len;
	int			digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	if (strcmp(p, "NaN") == 0 || strcmp(p, "Infinity") == 0)
		return t;
	for (; isdigit((unsigned char) *p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char) *p); p++)
			digits++;
	if (digits == 0)
		return NULL;
	if (*p == 'e' || *p == 'E')
	{
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char) *p))
			return NULL;
		while (isdigit((unsigned char) *p))
			p++;
	}
	len = p - t;
	if (*p == 'f' || *p == 'F' || *p == 'd' || *p == 'D')
		p++;
	if (*p != '\0')
		return NULL;
	t[len] = '\0';
	return t;
}

/*
 * new BigDecimal(s): [+-]digits[.digits][e[+-]digits].  Sets *digits to the
 * unscaled value's digits (sign apart, leading zeros kept) and *scale.
 */
static bool
parse_big_decimal(const char *s, bool *neg, StringInfo digits, int *scale)
{
	int64		exp = 0;
	int			frac = 0;

	*neg = false;
	if (*s == '+' || *s == '-')
		*neg = *s++ == '-';
	for (; isdigit((unsigned char) *s); s++)
		appendStringInfoChar(digits, *s);
	if (*s == '.')
		for (s++; isdigit((unsigned char) *s); s++, frac++)
			appendStringInfoChar(digits, *s);
	if (digits->len == 0 || digits->len > 1000)
		return false;
	if (*s == 'e' || *s == 'E')
	{
		int64		e;

		if (!parse_java_int(s + 1, -1000, 1000, &e))
			return false;
		exp = e;
		s += strlen(s);
	}
	if (*s != '\0')
		return false;
	*scale = frac - (int) exp;
	return true;
}

/*
 * BigDecimal.toPlainString() of an unscaled value (digits without leading
 * zeros) and a scale: "[-]int[.frac]", zeros appended for a negative scale.
 */
static char *
plain_decimal(bool neg, const char *digits, int scale)
{
	StringInfoData out;
	int			n = strlen(digits);

	initStringInfo(&out);
	if (neg && strspn(digits, "0") != n)
		appendStringInfoChar(&out, '-');
	if (scale <= 0)
	{
		appendStringInfoString(&out, digits);
		for (int i = scale; i < 0 && strcmp(digits, "0") != 0; i++)
			appendStringInfoChar(&out, '0');
	}
	else if (n > scale)
		appendStringInfo(&out, "%.*s.%s", n - scale, digits, digits + n - scale);
	else
	{
		appendStringInfoString(&out, "0.");
		for (int i = n; i < scale; i++)
			appendStringInfoChar(&out, '0');
		appendStringInfoString(&out, digits);
	}
	return out.data;
}

/* ---- writing the default as a value ---------------------------------------- */

/*
 * A numeric default: BigDecimal's value brought to the column's scale as
 * Debezium does (setScale without rounding: a literal with more non-zero
 * fraction digits than the column gives no default).
 */
static bool
render_numeric(StringInfo buf, const CdcColumn *col, const char *literal,
			   const CdcOptions *opts)
{
	StringInfoData raw;
	char	   *digits;
	int			len;
	bool		neg;
	int			scale;
	char	   *text;
	Datum		value;

	initStringInfo(&raw);
	if (!parse_big_decimal(literal, &neg, &raw, &scale))
		return false;
	/* the unscaled value's digits without leading zeros, room to pad */
	digits = raw.data + strspn(raw.data, "0");
	if (*digits == '\0')
		digits--;
	len = strlen(digits);
	digits = memcpy(palloc(len + abs(scale) + Max(col->scale, 0) + 2), digits, len + 1);

	if (col->scale >= 0)
	{
		for (; scale > col->scale; scale--)
		{
			if (len == 1 && digits[0] == '0')
				continue;
			if (digits[len - 1] != '0')
				return false;
			digits[--len] = '\0';
		}
	}
	else if (opts->decimal_mode == CDC_DECIMAL_PRECISE)
		return false;			/* a VariableScaleDecimal struct: Connect takes none */
	/* toPlainString() of a negative scale: the zeros written out */
	for (; scale < Max(col->scale, 0); scale++)
	{
		if (!(len == 1 && digits[0] == '0'))
			digits[len++] = '0';
		digits[len] = '\0';
	}
	text = plain_decimal(neg, digits, scale);

	/* string mode writes BigDecimal.toPlainString() */
	if (opts->decimal_mode == CDC_DECIMAL_STRING)
	{
		textenc_append_json(buf, text, strlen(text));
		return true;
	}
	/* a plain decimal text of bounded length: numeric_in cannot fail on it */
	value = DirectFunctionCall3(numeric_in, CStringGetDatum(text),
								ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	typemap_write_value(buf, col, value, opts);
	return true;
}

/* A string of '0' and '1' only (Integer.valueOf(s, 2) and BitSet both need it). */
static bool
is_bit_string(const char *s)
{
	return *s != '\0' && strspn(s, "01") == strlen(s);
}

static bool
render_bits(StringInfo buf, const CdcColumn *col, const char *literal,
			const CdcOptions *opts)
{
	int			nbits = strlen(literal);
	VarBit	   *vb;
	bits8	   *p;

	if (!is_bit_string(literal))
		return false;
	if (col->kind == CDC_VK_BIT)
	{
		/* bit(1), varbit(1): Integer.valueOf(s, 2) != 0 */
		appendStringInfoString(buf, strchr(literal, '1') ? "true" : "false");
		return true;
	}
	vb = palloc0(VARBITTOTALLEN(nbits));
	SET_VARSIZE(vb, VARBITTOTALLEN(nbits));
	VARBITLEN(vb) = nbits;
	p = VARBITS(vb);
	for (int i = 0; i < nbits; i++)
	{
		if (literal[i] == '1')
			p[i / BITS_PER_BYTE] |= 1 << (BITS_PER_BYTE - 1 - i % BITS_PER_BYTE);
	}
	typemap_write_value(buf, col, VarBitPGetDatum(vb), opts);
	return true;
}

static bool
render_uuid(StringInfo buf, const CdcColumn *col, const char *literal,
			const CdcOptions *opts)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));
	int			n = 0;

	if (strlen(literal) != 36)
		return false;
	for (int i = 0; i < 36; i++)
	{
		char		c = literal[i];
		int			v;

		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (c != '-')
				return false;
			continue;
		}
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return false;
		if (n % 2 == 0)
			u->data[n / 2] = v << 4;
		else
			u->data[n / 2] |= v;
		n++;
	}
	typemap_write_value(buf, col, UUIDPGetDatum(u), opts);
	return true;
}

/*
 * Parse a date/time text with PostgreSQL's routines, which report errors by
 * return code.  Only digits, signs, ':', '.', spaces and a trailing
 * "BC" get there: no letters that could name a time zone (DecodeDateTime
 * ereports an unknown zone name) and nothing pgjdbc's strict parser would
 * not read either.
 */
static bool
decode_datetime(const char *s, bool time_only, struct pg_tm *tm, fsec_t *fsec,
				int *tz)
{
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf;
	int			dtype;
	size_t		len = strlen(s);
	size_t		ok = strspn(s, "0123456789+-:. ");

	if (len >= MAXDATELEN || len == 0)
		return false;
	if (ok != len && strcmp(s + ok, "BC") != 0)
		return false;
	if (ParseDateTime(s, workbuf, sizeof(workbuf), field, ftype,
					  MAXDATEFIELDS, &nf) != 0)
		return false;
	*tz = 0;
	if (time_only)
		return compat_decode_time_only(field, ftype, nf, &dtype, tm, fsec, tz) == 0 &&
			dtype == DTK_TIME;
	return compat_decode_datetime(field, ftype, nf, &dtype, tm, fsec, tz) == 0 &&
		dtype == DTK_DATE;
}

/* pgjdbc reads 'infinity' and '-infinity' as LocalDateTime.MAX and MIN. */
static int
infinity_sign(const char *s)
{
	if (strcmp(s, "infinity") == 0)
		return 1;
	if (strcmp(s, "-infinity") == 0)
		return -1;
	return 0;
}

static bool
uses_micros(const CdcColumn *col, const CdcOptions *opts)
{
	return opts->time_mode != CDC_TIME_CONNECT && col->precision > 3;
}

static bool
render_temporal(StringInfo buf, const CdcColumn *col, DefaultParser parser,
				const char *literal, const CdcOptions *opts)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;
	int			sign = infinity_sign(literal);
	char		num[32];

	if (sign != 0)
	{
		/*
		 * date: the int cast of an epoch day; timestamp: saturated micros
		 * (milliseconds overflow and fail); timestamptz: the shift to UTC
		 * overflows and fails.
		 */
		if (parser == DP_DATE)
			snprintf(num, sizeof(num), "%d", temporal_default_date_infinity(sign));
		else if (parser == DP_TIMESTAMP && uses_micros(col, opts))
			snprintf(num, sizeof(num), INT64_FORMAT,
					 temporal_default_timestamp_infinity_micros(sign));
		else
			return false;
		appendStringInfoString(buf, num);
		return true;
	}
	if (!decode_datetime(literal, parser == DP_TIME, &tm, &fsec, &tz))
		return false;

	switch (parser)
	{
		case DP_DATE:
			{
				int			jd;

				if (!IS_VALID_JULIAN(tm.tm_year, tm.tm_mon, tm.tm_mday))
					return false;
				jd = date2j(tm.tm_year, tm.tm_mon, tm.tm_mday) - POSTGRES_EPOCH_JDATE;
				if (!IS_VALID_DATE(jd))
					return false;
				typemap_write_value(buf, col, DateADTGetDatum(jd), opts);
				return true;
			}
		case DP_TIME:
			{
				TimeADT		t;

				if (tm2time(&tm, fsec, &t) != 0 || t < 0 || t > USECS_PER_DAY)
					return false;
				/* pgjdbc reads 24:00:00 as LocalTime.MAX */
				if (t == USECS_PER_DAY)
					t = USECS_PER_DAY - 1;
				typemap_write_value(buf, col, TimeADTGetDatum(t), opts);
				return true;
			}
		case DP_TIMESTAMP:
		case DP_TIMESTAMPTZ:
			{
				Timestamp	ts;

				if (tm2timestamp(&tm, fsec, parser == DP_TIMESTAMPTZ ? &tz : NULL, &ts) != 0 ||
					!IS_VALID_TIMESTAMP(ts))
					return false;
				typemap_write_value(buf, col, TimestampGetDatum(ts), opts);
				return true;
			}
		default:
			return false;
	}
}

/*
 * An interval default: PGInterval takes the function placeholder "epoch"
 * (no fields it knows) as zero; other texts are read as PostgreSQL reads its
 * own "postgres" style output.
 */
static bool
render_interval(StringInfo buf, const CdcColumn *col, const char *literal,
				const CdcOptions *opts)
{
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf;
	int			dtype;
	struct pg_itm_in itm;
	Interval   *iv = palloc0(sizeof(Interval));

	if (strcmp(literal, "epoch") != 0)
	{
		if (strlen(literal) >= MAXDATELEN ||
			ParseDateTime(literal, workbuf, sizeof(workbuf), field, ftype,
						  MAXDATEFIELDS, &nf) != 0 ||
			DecodeInterval(field, ftype, nf, INTERVAL_FULL_RANGE, &dtype, &itm) != 0 ||
			dtype != DTK_DELTA || itmin2interval(&itm, iv) != 0)
			return false;
	}
	typemap_write_value(buf, col, IntervalPGetDatum(iv), opts);
	return true;
}

/* Short.parseShort, Integer.parseInt or Long.parseLong, by the column's width. */
static bool
render_int(StringInfo buf, const CdcColumn *col, const char *literal,
		   const CdcOptions *opts)
{
	int64		v;
	Datum		value;

	if (col->kind == CDC_VK_INT16)
	{
		if (!parse_java_int(literal, PG_INT16_MIN, PG_INT16_MAX, &v))
			return false;
		value = Int16GetDatum((int16) v);
	}
	else if (col->kind == CDC_VK_INT32)
	{
		if (!parse_java_int(literal, PG_INT32_MIN, PG_INT32_MAX, &v))
			return false;
		value = Int32GetDatum((int32) v);
	}
	else
	{
		if (!parse_java_int(literal, PG_INT64_MIN, PG_INT64_MAX, &v))
			return false;
		value = Int64GetDatum(v);
	}
	typemap_write_value(buf, col, value, opts);
	return true;
}

/*
 * The default's JSON for col from the literal Debezium extracted, or false
 * when Debezium would have none.
 */
static bool
render_literal(StringInfo buf, const CdcColumn *col, const DefaultRule *rule,
			   const char *literal, const CdcOptions *opts)
{
	switch (rule->parser)
	{
		case DP_BIT:
			/* one character: a Boolean, whatever the column's length */
			if (strlen(literal) == 1 && col->kind != CDC_VK_BIT)
				return false;
			return render_bits(buf, col, literal, opts);
		case DP_VARBIT:
			return render_bits(buf, col, literal, opts);
		case DP_BOOL:
			appendStringInfoString(buf, pg_strcasecmp(literal, "true") == 0 ? "true" : "false");
			return true;
		case DP_STRING:
			textenc_append_json(buf, literal, strlen(literal));
			return true;
		case DP_NUMERIC:
			return render_numeric(buf, col, literal, opts);
		case DP_FLOAT:
			{
				char	   *text = java_float_text(literal);

				if (text == NULL)
					return false;
				if (col->kind == CDC_VK_FLOAT32)
					typemap_write_value(buf, col, Float4GetDatum(strtof(text, NULL)), opts);
				else
					typemap_write_value(buf, col, Float8GetDatum(strtod(text, NULL)), opts);
				return true;
			}
		case DP_INT:
			return render_int(buf, col, literal, opts);
		case DP_UUID:
			return render_uuid(buf, col, literal, opts);
		case DP_DATE:
		case DP_TIME:
		case DP_TIMESTAMP:
		case DP_TIMESTAMPTZ:
			return render_temporal(buf, col, rule->parser, literal, opts);
		case DP_INTERVAL:
			return render_interval(buf, col, literal, opts);
	}
	return false;
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

/*
 * The JSON of col's default from default_expr (pg_get_expr's text, from
 * typedefault_expression), or NULL for none.
 */
static char *
default_json(const CdcColumn *col, const char *default_expr, const CdcOptions *opts)
{
	char	   *typname = type_name(col->typid);
	const DefaultRule *rule;
	char	   *literal;
	StringInfoData buf;

	if (typname == NULL)
		return NULL;
	initStringInfo(&buf);
	if (get_typtype(col->typid) == TYPTYPE_ENUM)
	{
		literal = enum_literal(default_expr, typname);
		if (literal == NULL)
			return NULL;
		textenc_append_json(&buf, literal, strlen(literal));
		return buf.data;
	}
	rule = find_rule(typname);
	if (rule == NULL)
		return NULL;
	if (rule->trimmed)
		default_expr = java_trim(default_expr);
	if (!extract_literal(default_expr, rule, &literal) || literal == NULL)
		return NULL;
	if (!render_literal(&buf, col, rule, literal, opts))
		return NULL;
	return buf.data;
}

/*
 * Set col->default_json from the column's default expression, following
 * Debezium's rules, under the fixed settings (temporal texts are read in UTC).
 */
void
typedefault_column_set_default(CdcColumn *col, const char *default_expr,
						   const CdcOptions *opts)
{
	int			level;

	col->default_json = NULL;
	if (default_expr == NULL)
		return;
	level = pin_settings();
	col->default_json = default_json(col, default_expr, opts);
	unpin_settings(level);
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
		case CDC_VK_UNKNOWN:
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
typedefault_column_set_fallback(CdcColumn *col, const CdcOptions *opts)
{
	col->fallback_json = col->optional ? NULL : pstrdup(fallback_for(col, opts));
}
