/*-------------------------------------------------------------------------
 *
 * colmask.c
 *		column.mask.with.<n>.chars: masked column values.
 *
 * The option column_mask_with_<n>_chars (n in the name, as in Debezium's
 * property) takes a regex list (colregex.c) of "schema.table.column".  A
 * matching column's schema gets the parameter masked=true whatever its
 * type; its values, when Debezium's JDBC type for it is a character type
 * (text, varchar, char(n), "char", name), become n asterisks, null and
 * unchanged TOASTed values included, as Debezium's MaskStrings converter
 * replaces whatever it is given.  Keys keep the columns' own values and
 * schemas (Debezium's column mappers shape values only).  The first option given that matches a
 * column applies.  The worker's setting cdc_kafka.column_mask_with_chars
 * lists the options as "<n>:<regex list>; ..." (colmask_setting_options).
 *
 * src/plugin/colmask.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"

#include "plugin/colmask.h"
#include "plugin/colregex.h"

typedef struct ColMask
{
	List	   *patterns;
	char	   *mask_json;		/* "***" as JSON */
} ColMask;

#define MASK_PREFIX "column_mask_with_"
#define MASK_SUFFIX "_chars"

/* Trimmed as Java's String.trim() does, in a copy. */
static char *
java_trim_copy(const char *s)
{
	const char *end = s + strlen(s);

	while (*s != '\0' && (unsigned char) *s <= ' ')
		s++;
	while (end > s && (unsigned char) end[-1] <= ' ')
		end--;
	return pnstrdup(s, end - s);
}

/*
 * If option is column_mask_with_<n>_chars, its rule appended to masks;
 * masks unchanged (the same pointer) if the name is not of that form.
 */
List *
colmask_parse(List *masks, const char *option, const char *value)
{
	size_t		len = strlen(option);
	const char *digits = option + strlen(MASK_PREFIX);
	size_t		ndigits;
	long		n;
	ColMask    *mask;

	if (strncmp(option, MASK_PREFIX, strlen(MASK_PREFIX)) != 0)
		return masks;
	if (len <= strlen(MASK_PREFIX) + strlen(MASK_SUFFIX) ||
		strcmp(option + len - strlen(MASK_SUFFIX), MASK_SUFFIX) != 0 ||
		(ndigits = len - strlen(MASK_PREFIX) - strlen(MASK_SUFFIX)) > 6 ||
		strspn(digits, "0123456789") != ndigits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid option name \"%s\"", option),
				 errhint("Write column_mask_with_<n>_chars, n a whole number up to 999999.")));
	n = strtol(digits, NULL, 10);
	mask = palloc(sizeof(ColMask));
	mask->patterns = colregex_compile(option, value);
	mask->mask_json = palloc(n + 3);
	mask->mask_json[0] = '"';
	memset(mask->mask_json + 1, '*', n);
	mask->mask_json[n + 1] = '"';
	mask->mask_json[n + 2] = '\0';
	return lappend(masks, mask);
}

/*
 * The setting cdc_kafka.column_mask_with_chars: "<n>:<regex list>" entries
 * separated by ";", each the plugin option column_mask_with_<n>_chars, in
 * their order.  NULL if value is valid (then, if names is not NULL, the
 * option names and their values appended to names and lists), else what is
 * wrong, for a check hook (nothing is thrown).
 */
char *
colmask_setting_options(const char *value, List **names, List **lists)
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

		entry = java_trim_copy(entry);
		if (entry[0] == '\0')
			continue;
		colon = strchr(entry, ':');
		digits = colon ? java_trim_copy(pnstrdup(entry, colon - entry)) : "";
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
			*names = lappend(*names, psprintf(MASK_PREFIX "%s" MASK_SUFFIX, digits));
			*lists = lappend(*lists, pstrdup(colon + 1));
		}
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

/* The schema parameter masked=true, merged into col's own parameters. */
static void
add_masked_parameter(CdcColumn *col)
{
	size_t		len = strlen(col->schema_json);

	/* a schema's own parameters come last in it */
	if (len > 0 && col->schema_json[len - 1] == '}')
		col->value_schema_json = psprintf("%.*s,\"masked\":\"true\"}", (int) (len - 1),
									col->schema_json);
	else
		col->value_schema_json = psprintf("%s,\"parameters\":{\"masked\":\"true\"}",
									col->schema_json);
}

void
colmask_apply(const List *masks, CdcColumn *col, const char *schemaname,
			  const char *relname)
{
	const ListCell *lc;
	char	   *name;

	if (masks == NIL)
		return;
	name = psprintf("%s.%s.%s", schemaname, relname, col->name);
	foreach(lc, masks)
	{
		const ColMask *mask = lfirst(lc);

		if (!colregex_match(mask->patterns, name))
			continue;
		add_masked_parameter(col);
		if (is_character_type(col->typid))
			col->mask_json = mask->mask_json;
		break;
	}
	pfree(name);
}
