/*-------------------------------------------------------------------------
 *
 * msgfilter.c
 *		Which logical decoding messages are sent: message.prefix.include.list
 *		and message.prefix.exclude.list.
 *
 * As in Debezium, each list is regular expressions separated by commas ("\,"
 * is a comma inside one; each is trimmed, empty ones are left out), and a
 * message is sent when one of the include list's expressions matches its
 * whole prefix, ignoring the case of ASCII letters (Java's CASE_INSENSITIVE),
 * or when none of the exclude list's does.  The expressions are
 * PostgreSQL's (AREs) rather than Java's: the usual syntax (. * + ? [] ()
 * | {} \d \w \s) means the same in both.  Setting both lists is an error.
 *
 * src/plugin/msgfilter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/pg_list.h"
#include "regex/regex.h"

#include "plugin/msgfilter.h"

struct CdcMsgFilter
{
	List	   *patterns;		/* of regex_t *, NIL: no list */
	bool		include;		/* an include list, else an exclude list */
};

/* The expressions of a list: split at commas not after '\', trimmed. */
static List *
split_list(const char *list)
{
	List	   *parts = NIL;
	const char *start = list;
	const char *p;

	for (p = list;; p++)
	{
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == ',' || *p == '\0')
		{
			if (p > start)
			{
				StringInfoData part;
				const char *s = start;
				const char *e = p;

				while (s < e && isspace((unsigned char) *s))
					s++;
				while (e > s && isspace((unsigned char) e[-1]))
					e--;
				initStringInfo(&part);
				for (; s < e; s++)
				{
					if (s[0] == '\\' && s + 1 < e && s[1] == ',')
						s++;
					appendStringInfoChar(&part, *s);
				}
				parts = lappend(parts, part.data);
			}
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	return parts;
}

/* Compile pattern to match a whole prefix; NULL and *error set if it is bad. */
static regex_t *
compile(const char *pattern, char **error)
{
	char	   *anchored = psprintf("^(?:%s)$", pattern);
	size_t		len = strlen(anchored);
	pg_wchar   *wide = palloc((len + 1) * sizeof(pg_wchar));
	int			wlen = pg_mb2wchar_with_len(anchored, wide, len);
	regex_t    *re = palloc(sizeof(regex_t));
	int			rc;

	/* the C collation folds ASCII letters alone, as Java's flag does */
	rc = pg_regcomp(re, wide, wlen, REG_ADVANCED | REG_ICASE, C_COLLATION_OID);
	pfree(wide);
	pfree(anchored);
	if (rc != REG_OKAY)
	{
		char		msg[256];

		pg_regerror(rc, re, msg, sizeof(msg));
		*error = psprintf("\"%s\": %s", pattern, msg);
		pfree(re);
		return NULL;
	}
	return re;
}

/*
 * NULL if every expression of list compiles, else what is wrong with the
 * first that does not (for the settings' check hooks).
 */
char *
msgfilter_check(const char *list)
{
	ListCell   *lc;

	foreach(lc, split_list(list))
	{
		char	   *error = NULL;
		regex_t    *re = compile(lfirst(lc), &error);

		if (re == NULL)
			return error;
		pg_regfree(re);
		pfree(re);
	}
	return NULL;
}

static List *
compile_list(const char *list, const char *option)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, split_list(list))
	{
		char	   *error = NULL;
		regex_t    *re = compile(lfirst(lc), &error);

		if (re == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
					 errmsg("invalid regular expression in option \"%s\"", option),
					 errdetail("%s", error),
					 errhint("Give a comma-separated list of regular expressions (\"\\,\" for a comma in one).")));
		result = lappend(result, re);
	}
	return result;
}

static bool
is_blank(const char *s)
{
	if (s == NULL)
		return true;
	while (isspace((unsigned char) *s))
		s++;
	return *s == '\0';
}

/*
 * The filter of the two lists (NULL or blank: not given), compiled in the
 * current memory context.
 */
CdcMsgFilter *
msgfilter_create(const char *include_list, const char *exclude_list)
{
	CdcMsgFilter *filter = palloc0(sizeof(CdcMsgFilter));
	bool		has_include = !is_blank(include_list);
	bool		has_exclude = !is_blank(exclude_list);

	if (has_include && has_exclude)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options \"message_prefix_include_list\" and \"message_prefix_exclude_list\" cannot both be given"),
				 errhint("Give one of them, or neither (every message is sent).")));
	if (has_include)
	{
		filter->include = true;
		filter->patterns = compile_list(include_list, "message_prefix_include_list");
	}
	else if (has_exclude)
		filter->patterns = compile_list(exclude_list, "message_prefix_exclude_list");
	return filter;
}

/* Is a message with this prefix sent? */
bool
msgfilter_included(const CdcMsgFilter *filter, const char *prefix)
{
	size_t		len = strlen(prefix);
	pg_wchar   *wide;
	int			wlen;
	bool		matched = false;
	ListCell   *lc;

	if (filter->patterns == NIL)
		return !filter->include;
	wide = palloc((len + 1) * sizeof(pg_wchar));
	wlen = pg_mb2wchar_with_len(prefix, wide, len);
	foreach(lc, filter->patterns)
	{
		if (pg_regexec(lfirst(lc), wide, wlen, 0, NULL, 0, NULL, 0) == REG_OKAY)
		{
			matched = true;
			break;
		}
	}
	pfree(wide);
	return matched == filter->include;
}
