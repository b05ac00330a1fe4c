/*-------------------------------------------------------------------------
 *
 * route.c
 *		The "route" transform: Debezium's ByLogicalTableRouter, applied to a
 *		relation's topic and schemas when they are rendered.
 *
 * Debezium's transform, as seen from its consumers: a record whose topic
 * matches topic.regex as a whole goes to the topic topic.replacement makes
 * of it (an empty result: left alone).  Its key, when it has one, gets the
 * schema name <new topic>.Key and, with key.enforce.uniqueness, a last
 * required string field key.field.name holding the old topic (or what
 * key.field.regex / key.field.replacement make of it).  A change event's
 * envelope is renamed <new topic>.Envelope and its before/after schemas
 * <new topic>.Value; any other value (a tombstone, a value unwrap has
 * already flattened) is left as it is.  The new names are adjusted by the
 * transform's own schema.name.adjustment.mode.  The topic a relation's
 * changes go to is the same for all of them, so it is all decided here,
 * once per relation: relinfo.c renders the key and value schemas under the
 * new names and encoder.c appends the key field.  Transaction metadata,
 * messages and heartbeats are rerouted the same way when their topics
 * match (route_other, once per session), their values left alone.
 *
 * Regexes and replacements are Java's, as jregex.c reads them.
 *
 * src/plugin/route.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "common/nameadjust.h"
#include "plugin/jregex.h"
#include "plugin/optvalue.h"
#include "plugin/route.h"
#include "plugin/textenc.h"

/* ---- regexes and replacements ------------------------------------------------ */

/*
 * What replacement makes of subject if regex matches all of it, else
 * NULL.  The group references were checked by route_finish.
 */
static char *
replace(const char *regex, const char *replacement, const char *subject)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "route regex",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	char	   *result = jregex_replace(jregex_compile(regex), replacement, subject);

	MemoryContextSwitchTo(old);
	if (result != NULL)
		result = pstrdup(result);
	MemoryContextDelete(tmp);
	return result;
}

/* ---- configuration ------------------------------------------------------------ */

static CdcRoute *
get_route(CdcOptions *opts)
{
	CdcRoute   *r = opts->route;

	if (r != NULL)
		return r;
	r = palloc0(sizeof(CdcRoute));
	r->topic_regex = "";
	r->topic_replacement = "";
	r->key_field_name = ROUTE_DEFAULT_KEY_FIELD;
	r->key_field_regex = "";
	r->key_field_replacement = "";
	r->key_enforce_uniqueness = true;
	r->schema_name_mode = NAMEADJUST_NONE;
	opts->route = r;
	return r;
}

static char *
parse_checked(const char *name, const char *value, const char *(*check) (const char *))
{
	const char *err = check(value);

	if (err != NULL)
		optvalue_bad(name, value, err);
	return pstrdup(value);
}

/* Apply one route_* option; false if the name is not one. */
bool
route_parse_option(CdcOptions *opts, const char *name, const char *value)
{
	CdcRoute   *r = get_route(opts);

	if (strcmp(name, "route_topic_regex") == 0)
		r->topic_regex = parse_checked(name, value, jregex_check);
	else if (strcmp(name, "route_topic_replacement") == 0)
		r->topic_replacement = parse_checked(name, value, jregex_check_replacement);
	else if (strcmp(name, "route_key_field_name") == 0)
		r->key_field_name = pstrdup(value);
	else if (strcmp(name, "route_key_field_regex") == 0)
		r->key_field_regex = parse_checked(name, value, jregex_check);
	else if (strcmp(name, "route_key_field_replacement") == 0)
		r->key_field_replacement = parse_checked(name, value, jregex_check_replacement);
	else if (strcmp(name, "route_key_enforce_uniqueness") == 0)
		r->key_enforce_uniqueness = optvalue_flag(name, value);
	else if (strcmp(name, "route_schema_name_adjustment_mode") == 0)
		r->schema_name_mode = optvalue_word(name, value, optvalue_name_adjustment_modes);
	else
		return false;
	return true;
}

/* transforms (checked by unwrap.c): is route in it, and before unwrap? */
void
route_parse_transforms(CdcOptions *opts, const char *value)
{
	char	   *copy = pstrdup(value);
	CdcRoute   *r = get_route(opts);
	List	   *names;
	ListCell   *lc;

	if (!SplitIdentifierString(copy, ',', &names))
		return;
	r->enabled = false;
	r->before_unwrap = true;
	foreach(lc, names)
	{
		if (strcmp(lfirst(lc), "route") == 0)
			r->enabled = true;
		else if (strcmp(lfirst(lc), "unwrap") == 0 && !r->enabled)
			r->before_unwrap = false;
	}
}

static void
check_groups(const char *name, const char *replacement, const char *regex)
{
	const char *err = jregex_check_groups(regex, replacement);

	if (err != NULL)
		optvalue_bad(name, replacement, err);
}

/* After all options: the properties Debezium requires, and the group numbers. */
void
route_finish(CdcOptions *opts)
{
	CdcRoute   *r = opts->route;

	if (r == NULL || !r->enabled)
	{
		opts->route = NULL;
		return;
	}
	if (r->topic_regex[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"route_topic_regex\" is required by the route transform")));
	check_groups("route_topic_replacement", r->topic_replacement, r->topic_regex);
	if (r->key_field_regex[0] != '\0')
	{
		if (r->key_field_replacement[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"route_key_field_replacement\" must be non-empty if \"route_key_field_regex\" is set")));
		check_groups("route_key_field_replacement", r->key_field_replacement,
					 r->key_field_regex);
	}
}

/* ---- relations and other records ------------------------------------------ */

/*
 * The key field key.enforce.uniqueness adds for a record of old_topic:
 * *field is ,"<name>":"<id>", *schema its schema after a comma.
 */
static void
key_field(const CdcRoute *r, const char *old_topic, char **field, char **schema)
{
	const char *id = old_topic;
	StringInfoData buf;

	if (r->key_field_regex[0] != '\0')
	{
		char	   *replaced = replace(r->key_field_regex, r->key_field_replacement, old_topic);

		if (replaced != NULL)
			id = replaced;
	}
	initStringInfo(&buf);
	appendStringInfoChar(&buf, ',');
	textenc_append_json(&buf, r->key_field_name, strlen(r->key_field_name));
	appendStringInfoChar(&buf, ':');
	textenc_append_json(&buf, id, strlen(id));
	*field = buf.data;

	initStringInfo(&buf);
	appendStringInfoString(&buf, ",{\"type\":\"string\",\"optional\":false,\"field\":");
	textenc_append_json(&buf, r->key_field_name, strlen(r->key_field_name));
	appendStringInfoChar(&buf, '}');
	*schema = buf.data;
}

/* The new topic of a record of topic, or NULL if it stays. */
static char *
new_topic(const CdcRoute *r, const char *topic)
{
	char	   *result = replace(r->topic_regex, r->topic_replacement, topic);

	/* Debezium leaves a record alone when the replacement is empty */
	return (result == NULL || result[0] == '\0') ? NULL : result;
}

/*
 * Reroute ri if its topic matches: ri->topic becomes the new topic (the
 * old one stays in ri->table_topic), and with key.enforce.uniqueness
 * ri->route_key_field / route_key_schema hold the added key field.
 */
void
route_apply(CdcRelInfo *ri, const CdcOptions *opts)
{
	const CdcRoute *r = opts->route;
	char	   *topic;

	if (r == NULL || (topic = new_topic(r, ri->topic)) == NULL)
		return;
	ri->topic = topic;
	ri->route_schema_name_mode = r->schema_name_mode;
	if (r->before_unwrap)
		ri->flat_topic = topic;
	if (r->key_enforce_uniqueness)
		key_field(r, ri->table_topic, &ri->route_key_field, &ri->route_key_schema);
}

/*
 * Reroute a record that is no table's (transaction metadata, messages,
 * heartbeats), as Debezium's transform reroutes any record whose topic
 * matches: *topic becomes the new topic and the result says how its key
 * changes (renamed <new topic>.Key, with the key field); its value, no
 * change event, stays.  NULL: it stays where it is.
 */
CdcKeyRoute *
route_other(const CdcOptions *opts, char **topic)
{
	const CdcRoute *r = opts->route;
	char	   *routed;
	CdcKeyRoute *kr;
	char	   *name;

	if (r == NULL || (routed = new_topic(r, *topic)) == NULL)
		return NULL;
	kr = palloc0(sizeof(CdcKeyRoute));
	name = psprintf("%s.Key", routed);
	kr->name = palloc(NAMEADJUST_MAX_LEN(strlen(name)));
	nameadjust_apply(name, r->schema_name_mode, false, kr->name);
	if (r->key_enforce_uniqueness)
		key_field(r, *topic, &kr->field, &kr->field_schema);
	*topic = routed;
	return kr;
}
