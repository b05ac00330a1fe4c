/*-------------------------------------------------------------------------
 *
 * optvalue.c
 *		Reading option values as Debezium reads its properties: the words,
 *		flags and trimming the option parsers share, and their one error.
 *
 * Every bad value is the same error, naming the option and the value, with
 * a hint saying what is allowed, whichever module parses it.
 *
 * src/plugin/optvalue.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "common/nameadjust.h"
#include "plugin/optvalue.h"

/* schema.name.adjustment.mode, field.name.adjustment.mode and the transforms' own */
const struct config_enum_entry optvalue_name_adjustment_modes[] = {
	{"none", NAMEADJUST_NONE, false},
	{"avro", NAMEADJUST_AVRO, false},
	{"avro_unicode", NAMEADJUST_AVRO_UNICODE, false},
	{NULL, 0, false}
};

/* The error of a bad option value (it does not return); hint says what is allowed. */
void
optvalue_bad(const char *name, const char *value, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value \"%s\" for option \"%s\"", value, name),
			 errhint("%s", hint)));
}

/* A boolean option. */
bool
optvalue_flag(const char *name, const char *value)
{
	bool		result;

	if (!parse_bool(value, &result))
		optvalue_bad(name, value, "Use a boolean: true, false, on, off, 1 or 0.");
	return result;
}

/*
 * One of words, as Debezium's enumerations parse: trimmed, ignoring case.
 * The hint lists the words.
 */
int
optvalue_word(const char *name, const char *value, const struct config_enum_entry *words)
{
	char	   *trimmed = optvalue_java_trim(value, strlen(value));
	StringInfoData allowed;

	initStringInfo(&allowed);
	for (const struct config_enum_entry *w = words; w->name != NULL; w++)
	{
		if (pg_strcasecmp(w->name, trimmed) == 0)
			return w->val;
		appendStringInfo(&allowed, "%s%s", allowed.len > 0 ? ", " : "", w->name);
	}
	optvalue_bad(name, value, psprintf("Allowed values are: %s.", allowed.data));
	return 0;					/* not reached */
}

/* len bytes of s without leading and trailing characters <= ' ', as Java's trim(). */
char *
optvalue_java_trim(const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end && (unsigned char) *s <= ' ')
		s++;
	while (end > s && (unsigned char) end[-1] <= ' ')
		end--;
	return pnstrdup(s, end - s);
}
