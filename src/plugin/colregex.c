/*-------------------------------------------------------------------------
 *
 * colregex.c
 *		Debezium's lists of regular expressions naming tables and columns
 *		(message.key.columns, column.mask.*, column.truncate.*, ...).
 *
 * A list is split at the commas not escaped by a backslash, "\," becomes
 * a comma, every item is trimmed as Java's String.trim() does and empty
 * items are dropped.  Each item is a java.util.regex pattern matched,
 * case-insensitively and against the whole string, to "schema.table.column".
 * We match with PostgreSQL's own engine (advanced regular expressions),
 * anchored as ^(?:item)$, ASCII-only case folding (the C collation), as
 * Java's CASE_INSENSITIVE without UNICODE_CASE folds.  The constructs users
 * write mean the same in both: literals, \., ., [...], [^...], *, +, ?,
 * {n,m}, lazy quantifiers, (...), (?:...), |, \d \w \s \D \W \S, lookahead.
 * Java's \b, \Q...\E, \p{...}, possessive quantifiers, named groups and
 * embedded flags such as (?i) are not supported (the first means backspace
 * to PostgreSQL; the others are errors or mean something else), and "."
 * also matches a line end here.
 *
 * src/plugin/colregex.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "regex/regex.h"
#include "utils/builtins.h"

#include "plugin/colregex.h"

#define REGEX_FLAGS (REG_ADVANCED | REG_ICASE | REG_NOSUB)

/* Java's String.trim(): every character up to U+0020 at either end. */
static char *
java_trim(const char *from, const char *to)
{
	while (from < to && (unsigned char) *from <= ' ')
		from++;
	while (to > from && (unsigned char) to[-1] <= ' ')
		to--;
	return pnstrdup(from, to - from);
}

/* "\," to "," in place. */
static void
unescape_commas(char *s)
{
	char	   *out = s;

	for (; *s != '\0'; s++)
	{
		if (s[0] == '\\' && s[1] == ',')
			continue;
		*out++ = *s;
	}
	*out = '\0';
}

/* The items of a Debezium regex list, as Strings.RegExSplitter splits it. */
List *
colregex_split(const char *list)
{
	List	   *items = NIL;
	const char *start = list;
	const char *p = list;

	for (;; p++)
	{
		if (*p == '\\' && p[1] != '\0')
		{
			p++;
			continue;
		}
		if (*p == ',' || *p == '\0')
		{
			char	   *item = java_trim(start, p);

			unescape_commas(item);
			if (item[0] != '\0')
				items = lappend(items, item);
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	return items;
}

static char *
anchored(const char *pattern)
{
	return psprintf("^(?:%s)$", pattern);
}

/*
 * NULL if pattern compiles, else the engine's message.  Usable where an
 * ERROR must not be thrown (a setting's check hook).
 */
char *
colregex_check(const char *pattern)
{
	char	   *full = anchored(pattern);
	int			len = strlen(full);
	pg_wchar   *wide = palloc((len + 1) * sizeof(pg_wchar));
	int			wlen = pg_mb2wchar_with_len(full, wide, len);
	regex_t		re;
	int			rc = pg_regcomp(&re, wide, wlen, REGEX_FLAGS, C_COLLATION_OID);
	char		msg[256];

	pfree(wide);
	if (rc == REG_OKAY)
	{
		pg_regfree(&re);
		return NULL;
	}
	pg_regerror(rc, &re, msg, sizeof(msg));
	return pstrdup(msg);
}

/*
 * The patterns of list, checked (an invalid one is an ERROR naming option),
 * as text ready for colregex_match.
 */
List *
colregex_compile(const char *option, const char *list)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, colregex_split(list))
	{
		const char *item = lfirst(lc);
		char	   *error = colregex_check(item);

		if (error != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
					 errmsg("invalid regular expression \"%s\" in option \"%s\": %s",
							item, option, error)));
		result = lappend(result, cstring_to_text(anchored(item)));
	}
	return result;
}

/* Does any of patterns match all of subject? */
bool
colregex_match(const List *patterns, const char *subject)
{
	const ListCell *lc;

	foreach(lc, patterns)
	{
		if (RE_compile_and_execute(lfirst(lc), unconstify(char *, subject),
								   strlen(subject), REGEX_FLAGS,
								   C_COLLATION_OID, 0, NULL))
			return true;
	}
	return false;
}
