/*-------------------------------------------------------------------------
 *
 * jregex.c
 *		Java-style regular expressions and replacements, as Kafka Connect's
 *		routers use them: a subject matches only as a whole
 *		(Pattern.matcher(s).matches()), and what it becomes is
 *		Matcher.replaceFirst(replacement).
 *
 * Patterns are matched with PostgreSQL's engine (advanced regular
 * expressions), anchored as ^(?:pattern)$, case-sensitively as Java's
 * Pattern is by default; the constructs colregex.c lists agree with
 * Java's.  Java's named groups "(?<name>...)" are rewritten as plain
 * groups before compiling (PostgreSQL has none), remembering each name's
 * number.  Replacements follow Matcher.appendReplacement: "$n" is group n
 * (more digits are taken while they name a group), "${name}" a named
 * group, "\x" is x, a group that took part in no match adds nothing.
 * Where a pattern can match in several ways, the groups may differ from
 * Java's (the engines choose differently, not by backtracking order).
 *
 * src/plugin/jregex.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/pg_list.h"
#include "regex/regex.h"
#include "utils/memutils.h"

#include "plugin/jregex.h"

struct JRegex
{
	regex_t		re;
	List	   *names;			/* group i's name (or NULL) at index i - 1 */
};

static bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * The pattern with its named groups made plain; *names gets each
 * capturing group's name (NULL: unnamed) in group order.
 */
static char *
strip_names(const char *pattern, List **names)
{
	StringInfoData out;
	bool		in_class = false;

	initStringInfo(&out);
	*names = NIL;
	for (const char *p = pattern; *p != '\0'; p++)
	{
		if (*p == '\\' && p[1] != '\0')
		{
			appendBinaryStringInfo(&out, p, 2);
			p++;
			continue;
		}
		if (in_class)
			in_class = (*p != ']');
		else if (*p == '[')
			in_class = true;
		else if (*p == '(' && p[1] == '?' && p[2] == '<' && is_name_start(p[3]))
		{
			const char *end = p + 3;

			while (is_name_char(*end))
				end++;
			if (*end == '>')
			{
				*names = lappend(*names, pnstrdup(p + 3, end - p - 3));
				appendStringInfoChar(&out, '(');
				p = end;
				continue;
			}
		}
		else if (*p == '(' && p[1] != '?')
			*names = lappend(*names, NULL);
		appendStringInfoChar(&out, *p);
	}
	return out.data;
}

/* Compile ^(?:pattern)$ into re; NULL if it compiles, else the engine's message. */
static char *
compile(const char *pattern, regex_t *re, List **names)
{
	char	   *full = psprintf("^(?:%s)$", strip_names(pattern, names));
	int			len = strlen(full);
	pg_wchar   *wide = palloc((len + 1) * sizeof(pg_wchar));
	int			wlen = pg_mb2wchar_with_len(full, wide, len);
	int			rc = pg_regcomp(re, wide, wlen, REG_ADVANCED, C_COLLATION_OID);
	char		msg[256];

	pfree(wide);
	pfree(full);
	if (rc == REG_OKAY)
		return NULL;
	pg_regerror(rc, re, msg, sizeof(msg));
	return pstrdup(msg);
}

/* NULL if pattern compiles, else why not. */
const char *
jregex_check(const char *pattern)
{
	regex_t		re;
	List	   *names;
	char	   *err = compile(pattern, &re, &names);

	if (err != NULL)
		return psprintf("The regular expression is invalid: %s.", err);
	pg_regfree(&re);
	return NULL;
}

/* The number of the group called name, or -1. */
static int
group_named(List *names, const char *name, int len)
{
	ListCell   *lc;

	foreach(lc, names)
	{
		const char *n = lfirst(lc);

		if (n != NULL && strlen(n) == len && strncmp(n, name, len) == 0)
			return foreach_current_index(lc) + 1;
	}
	return -1;
}

/* Append group g of the match (nothing if it took part in none). */
static void
append_group(StringInfo out, const regmatch_t *pmatch, const pg_wchar *wide, int g)
{
	int			n;
	char	   *mb;

	if (pmatch[g].rm_so < 0)
		return;
	n = pmatch[g].rm_eo - pmatch[g].rm_so;
	mb = palloc(n * MAX_MULTIBYTE_CHAR_LEN + 1);
	appendBinaryStringInfo(out, mb, pg_wchar2mb_with_len(wide + pmatch[g].rm_so, mb, n));
	pfree(mb);
}

/*
 * Walk a replacement as Java's Matcher.appendReplacement does.  With
 * names == NULL and nsub < 0 only its syntax is checked; with out, the
 * expansion is appended (groups from pmatch over wide).  Returns NULL, or
 * what is wrong with the replacement.
 */
static const char *
expand(const char *repl, int nsub, List *names, const regmatch_t *pmatch,
	   const pg_wchar *wide, StringInfo out)
{
	for (const char *p = repl; *p != '\0'; p++)
	{
		int			group;

		if (*p == '\\')
		{
			if (*++p == '\0')
				return "A \"\\\" at the end escapes nothing.";
			if (out != NULL)
				appendStringInfoChar(out, *p);
			continue;
		}
		if (*p != '$')
		{
			if (out != NULL)
				appendStringInfoChar(out, *p);
			continue;
		}
		p++;
		if (*p == '{')
		{
			const char *name = ++p;

			if (!is_name_start(*p))
				return "A named group reference \"${name}\" needs a name starting with a letter.";
			while (is_name_char(*p))
				p++;
			if (*p != '}')
				return "A named group reference \"${name}\" is missing its \"}\".";
			if (nsub < 0)
				continue;
			group = group_named(names, name, p - name);
			if (group < 0)
				return psprintf("The regular expression has no group named \"%.*s\".",
								(int) (p - name), name);
		}
		else
		{
			if (*p < '0' || *p > '9')
				return "\"$\" must be followed by a group number or \"{name}\"; write \"\\$\" for a dollar sign.";
			group = *p - '0';
			/* further digits belong to the number while it names a group */
			while (nsub >= 0 && p[1] >= '0' && p[1] <= '9' && group * 10 + (p[1] - '0') <= nsub)
				group = group * 10 + (*++p - '0');
			if (nsub < 0)
			{
				while (p[1] >= '0' && p[1] <= '9')
					p++;
				continue;
			}
			if (group > nsub)
				return psprintf("The regular expression has no group %d.", group);
		}
		if (out != NULL)
			append_group(out, pmatch, wide, group);
	}
	return NULL;
}

/* NULL if replacement is well formed, else why not. */
const char *
jregex_check_replacement(const char *replacement)
{
	return expand(replacement, -1, NIL, NULL, NULL, NULL);
}

/* NULL if every group replacement names is one of pattern's, else why not. */
const char *
jregex_check_groups(const char *pattern, const char *replacement)
{
	regex_t		re;
	List	   *names;
	const char *err;

	if (compile(pattern, &re, &names) != NULL)
		return jregex_check(pattern);
	err = expand(replacement, re.re_nsub, names, NULL, NULL, NULL);
	pg_regfree(&re);
	return err;
}

static void
free_regex(void *arg)
{
	pg_regfree(&((JRegex *) arg)->re);
}

/*
 * A compiled pattern (checked beforehand), living as long as the current
 * memory context.
 */
JRegex *
jregex_compile(const char *pattern)
{
	JRegex	   *jr = palloc0(sizeof(JRegex));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	char	   *err = compile(pattern, &jr->re, &jr->names);

	if (err != NULL)
		elog(ERROR, "regular expression \"%s\" does not compile: %s", pattern, err);
	cb->func = free_regex;
	cb->arg = jr;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	return jr;
}

/*
 * What replacement (checked against the pattern) makes of subject if the
 * pattern matches all of it, else NULL.
 */
char *
jregex_replace(JRegex *jr, const char *replacement, const char *subject)
{
	int			len = strlen(subject);
	pg_wchar   *wide = palloc((len + 1) * sizeof(pg_wchar));
	int			wlen = pg_mb2wchar_with_len(subject, wide, len);
	regmatch_t *pmatch = palloc((jr->re.re_nsub + 1) * sizeof(regmatch_t));
	StringInfoData out;

	if (pg_regexec(&jr->re, wide, wlen, 0, NULL, jr->re.re_nsub + 1, pmatch, 0) != REG_OKAY)
		return NULL;
	initStringInfo(&out);
	expand(replacement, jr->re.re_nsub, jr->names, pmatch, wide, &out);
	pfree(wide);
	pfree(pmatch);
	return out.data;
}
