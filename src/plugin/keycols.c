/*-------------------------------------------------------------------------
 *
 * keycols.c
 *		message.key.columns: the record key columns chosen per table.
 *
 * Debezium's syntax: "<table regex>:<column>,<column>;<table regex>:...".
 * Each ';'-separated entry must match ^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$.
 * Every column of an entry becomes one rule, the regex list
 * "<table regex>.<column, trimmed>" (colregex.c: so a comma in the table
 * part splits it further, as in Debezium), matched against
 * "schema.table.column".  A table's key is, rule by rule in the order
 * given, the published columns each rule matches, in table order; when no
 * rule matches any column the key stays the primary key (or the unique
 * index relinfo.c chose).  A column two rules match is taken once (Debezium
 * would build a key schema with the field twice, which Kafka Connect
 * refuses).
 *
 * src/plugin/keycols.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "plugin/colregex.h"
#include "plugin/keycols.h"

/* Does entry match ^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$ ?  Sets the parts. */
static bool
entry_valid(const char *entry, const char **colon)
{
	const char *c = strchr(entry, ':');
	const char *p;

	/* one colon, after a table part of one character or more */
	if (c == NULL || c == entry || strchr(c + 1, ':') != NULL)
		return false;
	/* columns: no empty item between, before or after commas */
	p = c + 1;
	if (*p == '\0' || *p == ',')
		return false;
	for (; *p != '\0'; p++)
	{
		if (*p == ',' && (p[1] == ',' || p[1] == '\0'))
			return false;
	}
	*colon = c;
	return true;
}

/* Java's Pattern.split(";"): trailing empty entries are dropped. */
static List *
split_entries(const char *value)
{
	List	   *entries = NIL;
	const char *start = value;
	const char *p;
	int			keep;

	for (p = value;; p++)
	{
		if (*p == ';' || *p == '\0')
		{
			entries = lappend(entries, pnstrdup(start, p - start));
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	keep = list_length(entries);
	while (keep > 0 && ((char *) list_nth(entries, keep - 1))[0] == '\0')
		keep--;
	return list_truncate(entries, keep);
}

/* The regex list of each rule, in order; NIL entries when invalid. */
static List *
rule_lists(const char *value, char **error)
{
	List	   *rules = NIL;
	ListCell   *lc;

	*error = NULL;
	if (value[0] == '\0')
	{
		*error = pstrdup("The value must not be empty.");
		return NIL;
	}
	foreach(lc, split_entries(value))
	{
		const char *entry = lfirst(lc);
		const char *colon;
		char	   *table;
		char	   *cols;
		char	   *col;
		char	   *save;

		if (!entry_valid(entry, &colon))
		{
			*error = psprintf("Entry \"%s\" is not of the form <table regex>:<column>[,<column>...].",
							  entry);
			return NIL;
		}
		table = pnstrdup(entry, colon - entry);
		cols = pstrdup(colon + 1);
		for (col = strtok_r(cols, ",", &save); col != NULL; col = strtok_r(NULL, ",", &save))
		{
			const char *end = col + strlen(col);

			while (*col != '\0' && (unsigned char) *col <= ' ')
				col++;
			while (end > col && (unsigned char) end[-1] <= ' ')
				end--;
			rules = lappend(rules, psprintf("%s.%.*s", table, (int) (end - col), col));
		}
	}
	return rules;
}

/* NULL if value is a valid message.key.columns, else why not (no ERROR). */
char *
keycols_check(const char *value)
{
	char	   *error;
	List	   *rules = rule_lists(value, &error);
	ListCell   *lc;

	if (error != NULL)
		return error;
	foreach(lc, rules)
	{
		ListCell   *lc2;

		foreach(lc2, colregex_split(lfirst(lc)))
		{
			char	   *msg = colregex_check(lfirst(lc2));

			if (msg != NULL)
				return psprintf("Invalid regular expression \"%s\": %s.",
								(char *) lfirst(lc2), msg);
		}
	}
	return NULL;
}

/* The rules of value (a List of colregex pattern Lists); ERROR if invalid. */
List *
keycols_parse(const char *option, const char *value)
{
	char	   *error;
	List	   *lists = rule_lists(value, &error);
	List	   *rules = NIL;
	ListCell   *lc;

	if (error != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value \"%s\" for option \"%s\"", value, option),
				 errdetail_internal("%s", error),
				 errhint("Give <table regex>:<column>[,<column>...] entries separated by \";\".")));
	foreach(lc, lists)
		rules = lappend(rules, colregex_compile(option, lfirst(lc)));
	return rules;
}

/*
 * The key columns rules give the table (indexes into columns, at most
 * ncolumns of them), or false when they match none of its columns.
 */
bool
keycols_choose(const List *rules, const char *schemaname, const char *relname,
			   const CdcColumn *columns, int ncolumns, int *keys, int *nkeys)
{
	const ListCell *lc;
	bool	   *taken = palloc0(sizeof(bool) * Max(ncolumns, 1));
	char	  **names = palloc(sizeof(char *) * Max(ncolumns, 1));

	*nkeys = 0;
	for (int i = 0; i < ncolumns; i++)
		names[i] = psprintf("%s.%s.%s", schemaname, relname, columns[i].name);
	foreach(lc, rules)
	{
		for (int i = 0; i < ncolumns; i++)
		{
			if (!taken[i] && colregex_match(lfirst(lc), names[i]))
			{
				taken[i] = true;
				keys[(*nkeys)++] = i;
			}
		}
	}
	return *nkeys > 0;
}
