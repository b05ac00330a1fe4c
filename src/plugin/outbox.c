/*-------------------------------------------------------------------------
 *
 * outbox.c
 *		The "outbox" transform: Debezium's outbox EventRouter
 *		(io.debezium.transforms.outbox.EventRouter), applied while a change
 *		record is written.
 *
 * An application inserts events into an outbox table inside its own
 * transactions; the transform turns each inserted row into one record of
 * the event's own topic, so consumers get the events, not the table's
 * change events.  As Debezium's transform does, as seen from consumers:
 *	- creates and snapshot reads of the table become events; deletes and
 *	  tombstones are dropped; an update is dropped with a warning, or stops
 *	  the stream (table.op.invalid.behavior=fatal);
 *	- the topic is route.topic.replacement applied to the value of the
 *	  route.by.field column (default aggregatetype) if route.topic.regex
 *	  matches it as a whole (jregex.c), else that value;
 *	- the key is the table.field.event.key column (aggregateid) with its
 *	  schema; the value is the payload column with its schema or, when
 *	  table.fields.additional.placement puts columns in the envelope, a
 *	  struct of "payload" and those columns, named after the table's value
 *	  schema with the routed value inserted before "Value"
 *	  (<topic>.<routed>.Value) and versioned by
 *	  table.field.event.schema.version;
 *	- the record's own headers stay, then "id" (the event id column), then
 *	  the columns placed in headers; a column placed as "partition" (an
 *	  int4) picks the partition; the Kafka timestamp is the
 *	  table.field.event.timestamp column's (a timestamp column) or the
 *	  envelope's ts_ms;
 *	- route.tombstone.on.empty.payload: a null or blank payload makes a
 *	  tombstone; table.expand.json.payload: a JSON text payload becomes a
 *	  struct whose schema is inferred from it (common/jsonexpand.c), or
 *	  stays as it is with a warning if that fails.
 * Like Debezium, value schemas of the envelope form are remembered per
 * payload schema (or per schema version) for the life of the decoding
 * session: the first routed value seen with a payload schema names the
 * value schema of every later event with the same payload schema.
 *
 * A table without the columns the options name gets an error naming the
 * table and the column (Debezium fails the same way): publish only the
 * outbox table to a stream that uses this transform.
 *
 * src/plugin/outbox.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"

#include "common/jsonexpand.h"
#include "common/nameadjust.h"
#include "plugin/encoder.h"
#include "plugin/jregex.h"
#include "plugin/optvalue.h"
#include "plugin/outbox.h"
#include "plugin/recout.h"
#include "plugin/textenc.h"

typedef enum OutboxPlacement
{
	PLACE_HEADER,
	PLACE_ENVELOPE,
	PLACE_PARTITION
} OutboxPlacement;

typedef enum OutboxInvalidOp
{
	INVALID_OP_WARN,
	INVALID_OP_ERROR,
	INVALID_OP_FATAL
} OutboxInvalidOp;

const struct config_enum_entry outbox_invalid_op_behaviors[] = {
	{"warn", INVALID_OP_WARN, false},
	{"error", INVALID_OP_ERROR, false},
	{"fatal", INVALID_OP_FATAL, false},
	{NULL, 0, false}
};

const struct config_enum_entry outbox_missing_behaviors[] = {
	{"error", 0, false},
	{"ignore", 1, false},
	{NULL, 0, false}
};

const struct config_enum_entry outbox_null_behaviors[] = {
	{"ignore", 0, false},
	{"optional_bytes", 1, false},
	{NULL, 0, false}
};

/* One entry of table.fields.additional.placement. */
typedef struct OutboxField
{
	char	   *column;
	OutboxPlacement placement;
	char	   *alias;
} OutboxField;

/* A value schema remembered for a payload schema or a schema version. */
typedef struct CachedSchema
{
	char	   *key;
	char	   *schema;
} CachedSchema;

#define SCHEMA_CACHE_MAX 10000	/* Debezium's bound */

struct CdcOutbox
{
	bool		enabled;
	char	   *field_id;
	char	   *field_key;
	char	   *field_type;		/* checked, unused (as in Debezium) */
	char	   *field_payload;
	char	   *field_timestamp;	/* "": the envelope's ts_ms */
	char	   *field_version;	/* "": no schema version */
	List	   *additional;		/* OutboxField */
	bool		missing_ignore;
	char	   *route_by_field;
	char	   *route_regex;
	char	   *route_replacement;
	bool		tombstone_on_empty;
	int			invalid_op;
	bool		expand_json;
	bool		null_as_bytes;
	int			field_name_mode;	/* NameAdjustMode of expanded field names */
	bool		only_headers;	/* no envelope placement: the value is the payload */
	JRegex	   *regex;
	MemoryContext cxt;			/* the caches below */
	List	   *schema_cache;	/* CachedSchema by payload schema */
	List	   *version_cache;	/* CachedSchema by version */
};

/* The columns of one relation the options name (indexes, -1: none). */
typedef struct OutboxColumns
{
	int			id;
	int			key;
	int			payload;
	int			route;
	int			timestamp;
	int			version;
	int		   *additional;		/* per CdcOutbox.additional entry */
	char	   *value_name;		/* the row's value schema name, adjusted */
	char	  **schemas;		/* per column: its standalone schema, once
								 * rendered (column_schema) */
} OutboxColumns;

/* ---- configuration ------------------------------------------------------------ */

static CdcOutbox *
get_outbox(CdcOptions *opts)
{
	CdcOutbox  *ob = opts->outbox;

	if (ob != NULL)
		return ob;
	ob = palloc0(sizeof(CdcOutbox));
	ob->field_id = "id";
	ob->field_key = "aggregateid";
	ob->field_type = "type";
	ob->field_payload = "payload";
	ob->field_timestamp = "";
	ob->field_version = "";
	ob->route_by_field = "aggregatetype";
	ob->route_regex = "(?<routedByValue>.*)";
	ob->route_replacement = "outbox.event.${routedByValue}";
	ob->invalid_op = INVALID_OP_WARN;
	ob->field_name_mode = NAMEADJUST_NONE;
	opts->outbox = ob;
	return ob;
}

/*
 * table.fields.additional.placement: NULL if value is a list of
 * column:placement[:alias], else what is wrong with it.  Parsed into
 * *fields when fields is not NULL.
 */
static const char *
parse_placement(const char *value, List **fields)
{
	char	   *copy = pstrdup(value);
	char	   *save;

	for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
	{
		List	   *parts = NIL;
		OutboxField *f = palloc0(sizeof(OutboxField));
		char	   *entry = pstrdup(tok);
		char	   *psave;
		const char *where;

		for (char *p = strtok_r(entry, ":", &psave); p != NULL; p = strtok_r(NULL, ":", &psave))
			parts = lappend(parts, pstrdup(p));
		if (list_length(parts) != 2 && list_length(parts) != 3)
			return psprintf("Give a comma-separated list of column:placement or column:placement:alias, not \"%s\".",
							tok);
		f->column = pstrdup(lfirst(list_head(parts)));
		f->alias = list_length(parts) == 3 ? llast(parts) : f->column;
		f->column = optvalue_java_trim(f->column, strlen(f->column));
		f->alias = optvalue_java_trim(f->alias, strlen(f->alias));
		where = optvalue_java_trim(lsecond(parts), strlen(lsecond(parts)));
		if (pg_strcasecmp(where, "header") == 0)
			f->placement = PLACE_HEADER;
		else if (pg_strcasecmp(where, "envelope") == 0)
			f->placement = PLACE_ENVELOPE;
		else if (pg_strcasecmp(where, "partition") == 0)
			f->placement = PLACE_PARTITION;
		else
			return psprintf("Placement \"%s\" of \"%s\" is not one of header, envelope, partition.",
							where, f->column);
		if (fields != NULL)
			*fields = lappend(*fields, f);
	}
	return NULL;
}

const char *
outbox_check_placement(const char *value)
{
	return parse_placement(value, NULL);
}

/* Apply one outbox_* option; false if the name is not one. */
bool
outbox_parse_option(CdcOptions *opts, const char *name, const char *value)
{
	CdcOutbox  *ob = get_outbox(opts);
	const char *err;

	if (strcmp(name, "outbox_table_field_event_id") == 0)
		ob->field_id = pstrdup(value);
	else if (strcmp(name, "outbox_table_field_event_key") == 0)
		ob->field_key = pstrdup(value);
	else if (strcmp(name, "outbox_table_field_event_type") == 0)
		ob->field_type = pstrdup(value);
	else if (strcmp(name, "outbox_table_field_event_payload") == 0)
		ob->field_payload = pstrdup(value);
	else if (strcmp(name, "outbox_table_field_event_timestamp") == 0)
		ob->field_timestamp = pstrdup(value);
	else if (strcmp(name, "outbox_table_field_event_schema_version") == 0)
		ob->field_version = pstrdup(value);
	else if (strcmp(name, "outbox_table_fields_additional_placement") == 0)
	{
		ob->additional = NIL;
		if ((err = parse_placement(value, &ob->additional)) != NULL)
			optvalue_bad(name, value, err);
	}
	else if (strcmp(name, "outbox_table_field_additional_missing") == 0)
		ob->missing_ignore = optvalue_word(name, value, outbox_missing_behaviors) == 1;
	else if (strcmp(name, "outbox_route_by_field") == 0)
		ob->route_by_field = pstrdup(value);
	else if (strcmp(name, "outbox_route_topic_regex") == 0)
	{
		if ((err = jregex_check(value)) != NULL)
			optvalue_bad(name, value, err);
		ob->route_regex = pstrdup(value);
	}
	else if (strcmp(name, "outbox_route_topic_replacement") == 0)
	{
		if ((err = jregex_check_replacement(value)) != NULL)
			optvalue_bad(name, value, err);
		ob->route_replacement = pstrdup(value);
	}
	else if (strcmp(name, "outbox_route_tombstone_on_empty_payload") == 0)
		ob->tombstone_on_empty = optvalue_flag(name, value);
	else if (strcmp(name, "outbox_table_op_invalid_behavior") == 0)
		ob->invalid_op = optvalue_word(name, value, outbox_invalid_op_behaviors);
	else if (strcmp(name, "outbox_table_expand_json_payload") == 0)
		ob->expand_json = optvalue_flag(name, value);
	else if (strcmp(name, "outbox_table_json_payload_null_behavior") == 0)
		ob->null_as_bytes = optvalue_word(name, value, outbox_null_behaviors) == 1;
	else if (strcmp(name, "outbox_field_name_adjustment_mode") == 0)
		ob->field_name_mode = optvalue_word(name, value, optvalue_name_adjustment_modes);
	else if (strncmp(name, "outbox_tracing_", 15) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("option \"%s\" is not supported", name),
				 errdetail("The outbox transform creates no tracing spans; Debezium creates them only with OpenTelemetry on its class path.")));
	else
		return false;
	return true;
}

/* transforms (checked by unwrap.c): is outbox in it? */
void
outbox_parse_transforms(CdcOptions *opts, const char *value)
{
	char	   *copy = pstrdup(value);
	CdcOutbox  *ob = get_outbox(opts);
	List	   *names;
	ListCell   *lc;

	ob->enabled = false;
	if (!SplitIdentifierString(copy, ',', &names))
		return;
	foreach(lc, names)
	{
		if (strcmp(lfirst(lc), "outbox") == 0)
			ob->enabled = true;
	}
}

/* After all options: what the options need of each other, the regex. */
void
outbox_finish(CdcOptions *opts)
{
	CdcOutbox  *ob = opts->outbox;
	const char *err;
	ListCell   *lc;

	if (ob == NULL || !ob->enabled)
	{
		opts->outbox = NULL;
		return;
	}
	if ((err = jregex_check_groups(ob->route_regex, ob->route_replacement)) != NULL)
		optvalue_bad("outbox_route_topic_replacement", ob->route_replacement, err);
	ob->only_headers = true;
	foreach(lc, ob->additional)
	{
		if (((OutboxField *) lfirst(lc))->placement == PLACE_ENVELOPE)
			ob->only_headers = false;
	}
	ob->cxt = AllocSetContextCreate(CurrentMemoryContext, "cdc_kafka outbox",
									ALLOCSET_SMALL_SIZES);
	ob->regex = jregex_compile(ob->route_regex);
}

/* ---- the columns of a relation ------------------------------------------------- */

static int
find_column(const CdcRelInfo *ri, const char *field)
{
	for (int i = 0; i < ri->ncolumns; i++)
	{
		if (strcmp(ri->columns[i].field_name, field) == 0)
			return i;
	}
	return -1;
}

static void
missing_column(const CdcRelInfo *ri, const char *option, const char *field)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("table \"%s.%s\" has no column \"%s\" for the outbox transform",
					ri->schemaname, ri->relname, field),
			 errdetail("Option \"%s\" names it.", option),
			 errhint("Publish only outbox tables to a stream with the outbox transform, or name the table's columns in the outbox options.")));
}

static int
required_column(const CdcRelInfo *ri, const char *option, const char *field)
{
	int			i = find_column(ri, field);

	if (i < 0)
		missing_column(ri, option, field);
	return i;
}

/* The name of the row's value schema (<topic>.Value), adjusted as relinfo.c does. */
static char *
value_schema_name(const CdcRelInfo *ri, const CdcOptions *opts)
{
	char	   *name = psprintf("%s.Value", ri->topic);
	char	   *adjusted = palloc(NAMEADJUST_MAX_LEN(strlen(name)));

	nameadjust_apply(name, opts->schema_name_mode, false, adjusted);
	return adjusted;
}

static OutboxColumns *
resolve_columns(const CdcRelInfo *ri, const CdcOptions *opts)
{
	const CdcOutbox *ob = opts->outbox;
	MemoryContext old = MemoryContextSwitchTo(ri->cxt);
	OutboxColumns *oc = palloc0(sizeof(OutboxColumns));
	int			n = 0;
	ListCell   *lc;

	/* in the order Debezium looks them up, so the first missing is named */
	oc->payload = required_column(ri, "outbox_table_field_event_payload", ob->field_payload);
	oc->timestamp = ob->field_timestamp[0] == '\0' ? -1 :
		required_column(ri, "outbox_table_field_event_timestamp", ob->field_timestamp);
	oc->id = required_column(ri, "outbox_table_field_event_id", ob->field_id);
	oc->version = ob->field_version[0] == '\0' ? -1 :
		required_column(ri, "outbox_table_field_event_schema_version", ob->field_version);
	oc->route = required_column(ri, "outbox_route_by_field", ob->route_by_field);
	oc->additional = palloc(sizeof(int) * Max(list_length(ob->additional), 1));
	foreach(lc, ob->additional)
	{
		OutboxField *f = lfirst(lc);

		oc->additional[n] = find_column(ri, f->column);
		if (oc->additional[n++] < 0 && !ob->missing_ignore)
			missing_column(ri, "outbox_table_fields_additional_placement", f->column);
	}
	oc->key = required_column(ri, "outbox_table_field_event_key", ob->field_key);
	oc->value_name = value_schema_name(ri, opts);
	oc->schemas = palloc0(sizeof(char *) * Max(ri->ncolumns, 1));
	MemoryContextSwitchTo(old);
	return oc;
}

static const OutboxColumns *
columns_of(const CdcRelInfo *ri, const CdcOptions *opts)
{
	CdcRelInfo *mutable_ri = unconstify(CdcRelInfo *, ri);

	if (ri->outbox_cols == NULL)
		mutable_ri->outbox_cols = resolve_columns(ri, opts);
	return ri->outbox_cols;
}

/* ---- column values ------------------------------------------------------------- */

/* The column's value as the row image carries it (masks applied). */
static char *
column_json(const CdcRelInfo *ri, const CdcRow *row, int i, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	encoder_write_column(&buf, ri, row, i, opts);
	return buf.data;
}

/*
 * Column i's schema in the row's value schema, standalone (no "field"):
 * rendered once per relation (outbox_write resolved its columns first).
 */
static const char *
column_schema(const CdcRelInfo *ri, int i)
{
	const CdcColumn *col = &ri->columns[i];
	char	  **cached_schema = &ri->outbox_cols->schemas[i];
	MemoryContext old;
	StringInfoData buf;

	if (*cached_schema != NULL)
		return *cached_schema;
	old = MemoryContextSwitchTo(ri->cxt);
	initStringInfo(&buf);
	appendStringInfoString(&buf, col->value_schema_json ? col->value_schema_json : col->schema_json);
	if (col->default_json != NULL)
	{
		appendStringInfoString(&buf, ",\"default\":");
		appendStringInfoString(&buf, col->default_json);
	}
	appendStringInfoChar(&buf, '}');
	MemoryContextSwitchTo(old);
	*cached_schema = buf.data;
	return buf.data;
}

/* Does schema (a column's schema_json) have Connect type type? */
static bool
schema_has_type(const char *schema, const char *type)
{
	size_t		len = strlen(type);

	return strncmp(schema, "{\"type\":\"", 9) == 0 && strncmp(schema + 9, type, len) == 0 &&
		schema[9 + len] == '"';
}

static void *
expand_alloc(void *arg, size_t size)
{
	return palloc(size);
}

/*
 * The text of a JSON string literal as the encoder writes it, or NULL if
 * json is not a string.
 */
static char *
decode_json_string(const char *json)
{
	char	   *text;

	if (jsonexpand_string(json, strlen(json), expand_alloc, NULL, &text) < 0)
		return NULL;
	return text;
}

/* A column value given as text: the route-by value. */
static char *
route_value(const CdcRelInfo *ri, const CdcRow *row, int i, const CdcOptions *opts)
{
	char	   *text = decode_json_string(column_json(ri, row, i, opts));

	if (!schema_has_type(ri->columns[i].schema_json, "string"))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table \"%s.%s\" routes outbox events but is not a string",
						ri->columns[i].name, ri->schemaname, ri->relname),
				 errhint("Name a text column in option \"outbox_route_by_field\".")));
	if (text == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("outbox event of table \"%s.%s\" has a null \"%s\"",
						ri->schemaname, ri->relname, ri->columns[i].name),
				 errdetail("Its topic is made from that column.")));
	return text;
}

/*
 * An int32 column's value (partition, schema version); -1 for null.  The
 * option names the setting the column comes from.
 */
static int32
int32_value(const CdcRelInfo *ri, const CdcRow *row, int i, const char *option,
			const CdcOptions *opts)
{
	char	   *json = column_json(ri, row, i, opts);

	if (!schema_has_type(ri->columns[i].schema_json, "int32"))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table \"%s.%s\" is not an integer column",
						ri->columns[i].name, ri->schemaname, ri->relname),
				 errdetail("Option \"%s\" names it; it must be of type integer (int4).", option)));
	if (strcmp(json, "null") == 0)
		return -1;
	return (int32) strtol(json, NULL, 10);
}

/* The Kafka timestamp in ms: the event timestamp column's, else the envelope's ts_ms. */
static int64
event_timestamp(const CdcRelInfo *ri, const CdcRow *row, int i, const CdcOptions *opts)
{
	const char *schema = ri->columns[i < 0 ? 0 : i].schema_json;
	char	   *json;
	int64		v;

	if (i < 0 || strcmp(json = column_json(ri, row, i, opts), "null") == 0)
		return encoder_event_ts_ms(opts);
	v = strtoll(json, NULL, 10);
	if (strstr(schema, "\"name\":\"io.debezium.time.Timestamp\"") != NULL)
		return v;
	if (strstr(schema, "\"name\":\"io.debezium.time.MicroTimestamp\"") != NULL)
		return v / 1000;
	if (strstr(schema, "\"name\":\"io.debezium.time.NanoTimestamp\"") != NULL)
		return v / 1000000;
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("column \"%s\" of table \"%s.%s\" cannot be an outbox event timestamp",
					ri->columns[i].name, ri->schemaname, ri->relname),
			 errdetail("Option \"outbox_table_field_event_timestamp\" names it; it must be a timestamp without time zone written as io.debezium.time.Timestamp or MicroTimestamp (time.precision.mode adaptive or adaptive_time_microseconds).")));
	return 0;					/* keep the compiler quiet */
}

/* ---- payload ------------------------------------------------------------------- */

typedef struct OutboxPayload
{
	const char *schema;		/* its schema (standalone) */
	char	   *json;			/* its value */
	bool		empty;			/* null or blank: a tombstone if asked */
} OutboxPayload;

#define EXPAND_MAX_DEPTH 1000		/* Jackson's StreamWriteConstraints */
#define EXPAND_ENVELOPE_DEPTH 3		/* {"schema":{"fields":[<payload schema>... */


static void
expand_append(void *arg, const char *data, size_t len)
{
	appendBinaryStringInfo((StringInfo) arg, data, len);
}

/* table.expand.json.payload: the payload as a struct, if it is JSON. */
static void
expand_payload(OutboxPayload *p, const CdcRelInfo *ri, const CdcOutbox *ob)
{
	char	   *text = decode_json_string(p->json);
	StringInfoData schema;
	StringInfoData value;
	JsonExpandOut schema_out = {expand_append, &schema, 0};
	JsonExpandOut value_out = {expand_append, &value, 0};
	char		err[256];

	if (text == NULL)
	{
		if (strcmp(p->json, "null") != 0)
			ereport(WARNING,
					(errmsg("outbox payload of table \"%s.%s\" is not a string: not expanded",
							ri->schemaname, ri->relname)));
		return;
	}
	initStringInfo(&schema);
	initStringInfo(&value);
	if (jsonexpand_render(text, strlen(text), ob->field_payload, ob->null_as_bytes,
						  ob->field_name_mode, expand_alloc, NULL,
						  &schema_out, &value_out, err, sizeof(err)) != 0)
	{
		ereport(WARNING,
				(errmsg("outbox payload of table \"%s.%s\" not expanded: JSON expansion failed",
						ri->schemaname, ri->relname),
				 errdetail("%s", err)));
		return;
	}
	/* Jackson writes no JSON nested deeper than 1000: Debezium stops there */
	if (Max(schema_out.depth, value_out.depth) + EXPAND_ENVELOPE_DEPTH > EXPAND_MAX_DEPTH)
	{
		ereport(WARNING,
				(errmsg("outbox payload of table \"%s.%s\" not expanded: nested too deeply",
						ri->schemaname, ri->relname),
				 errdetail("Its record would nest more than %d levels, which JSON writers refuse.",
						   EXPAND_MAX_DEPTH)));
		return;
	}
	p->schema = schema.data;
	p->json = value.data;
	p->empty = false;
}

static OutboxPayload
read_payload(const CdcRelInfo *ri, const CdcRow *row, const OutboxColumns *oc,
			 const CdcOptions *opts)
{
	OutboxPayload p;
	char	   *text;

	p.schema = column_schema(ri, oc->payload);
	p.json = column_json(ri, row, oc->payload, opts);
	text = decode_json_string(p.json);
	/* Java: payload == null || payload.toString().trim().isEmpty() */
	p.empty = strcmp(p.json, "null") == 0 ||
		(text != NULL && optvalue_java_trim(text, strlen(text))[0] == '\0');
	if (opts->outbox->expand_json)
		expand_payload(&p, ri, opts->outbox);
	return p;
}

/* ---- the envelope form of the value ------------------------------------------- */

static char *
cached(List *cache, const char *key)
{
	ListCell   *lc;

	foreach(lc, cache)
	{
		CachedSchema *c = lfirst(lc);

		if (strcmp(c->key, key) == 0)
			return c->schema;
	}
	return NULL;
}

static List *
remember(CdcOutbox *ob, List *cache, const char *key, const char *schema)
{
	MemoryContext old;
	CachedSchema *c;

	if (list_length(cache) >= SCHEMA_CACHE_MAX)
		return cache;
	old = MemoryContextSwitchTo(ob->cxt);
	c = palloc(sizeof(CachedSchema));
	c->key = pstrdup(key);
	c->schema = pstrdup(schema);
	cache = lappend(cache, c);
	MemoryContextSwitchTo(old);
	return cache;
}

/* <value schema name> with the routed value before its last part. */
static char *
struct_name(const OutboxColumns *oc, const char *routed)
{
	const char *dot = strrchr(oc->value_name, '.');

	if (dot == NULL)
		return psprintf("%s.%s", routed, oc->value_name);
	return psprintf("%.*s%s.%s", (int) (dot - oc->value_name + 1), oc->value_name,
					routed, dot + 1);
}

static char *
build_struct_schema(const CdcRelInfo *ri, const OutboxColumns *oc, const OutboxPayload *p,
					const char *routed, int32 version, const CdcOutbox *ob)
{
	StringInfoData buf;
	ListCell   *lc;
	char	   *name = struct_name(oc, routed);

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"type\":\"struct\",\"fields\":[");
	appendBinaryStringInfo(&buf, p->schema, strlen(p->schema) - 1);
	appendStringInfoString(&buf, ",\"field\":\"payload\"}");
	foreach(lc, ob->additional)
	{
		OutboxField *f = lfirst(lc);
		int			i = oc->additional[foreach_current_index(lc)];
		const char *schema;

		if (f->placement != PLACE_ENVELOPE || i < 0)
			continue;
		schema = column_schema(ri, i);
		appendStringInfoChar(&buf, ',');
		appendBinaryStringInfo(&buf, schema, strlen(schema) - 1);
		appendStringInfoString(&buf, ",\"field\":");
		textenc_append_json(&buf, f->alias, strlen(f->alias));
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoString(&buf, "],\"optional\":false,\"name\":");
	textenc_append_json(&buf, name, strlen(name));
	if (version >= 0)
		appendStringInfo(&buf, ",\"version\":%d", version);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

/*
 * The envelope form's schema, remembered as Debezium remembers it: by
 * schema version if there is one, else by payload schema.
 */
static char *
struct_schema(const CdcRelInfo *ri, const OutboxColumns *oc, const OutboxPayload *p,
			  const char *routed, int32 version, CdcOutbox *ob)
{
	const char *key = version >= 0 ? psprintf("%d", version) : p->schema;
	List	  **cache = version >= 0 ? &ob->version_cache : &ob->schema_cache;
	char	   *schema = cached(*cache, key);

	if (schema != NULL)
		return schema;
	schema = build_struct_schema(ri, oc, p, routed, version, ob);
	*cache = remember(ob, *cache, key, schema);
	return schema;
}

static void
append_struct_value(StringInfo buf, const CdcRelInfo *ri, const CdcRow *row,
					const OutboxColumns *oc, const OutboxPayload *p, const CdcOptions *opts)
{
	ListCell   *lc;

	appendStringInfoString(buf, "{\"payload\":");
	appendStringInfoString(buf, p->json);
	foreach(lc, opts->outbox->additional)
	{
		OutboxField *f = lfirst(lc);
		int			i = oc->additional[foreach_current_index(lc)];

		if (f->placement != PLACE_ENVELOPE || i < 0)
			continue;
		appendStringInfoChar(buf, ',');
		textenc_append_json(buf, f->alias, strlen(f->alias));
		appendStringInfoChar(buf, ':');
		encoder_write_column(buf, ri, row, i, opts);
	}
	appendStringInfoChar(buf, '}');
}

/* ---- records ------------------------------------------------------------------- */

/*
 * Whether a change record becomes an event: creates and reads do; deletes
 * and tombstones are dropped; updates as table.op.invalid.behavior says.
 */
bool
outbox_accepts(const CdcOptions *opts, const CdcRelInfo *ri, CdcOp op, bool tombstone)
{
	if (tombstone || op == CDC_OP_DELETE)
		return false;
	if (op == CDC_OP_UPDATE)
	{
		/* PostgreSQL has no level between WARNING and ERROR: both skip */
		if (opts->outbox->invalid_op == INVALID_OP_FATAL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("unexpected update of outbox table \"%s.%s\"",
							ri->schemaname, ri->relname),
					 errdetail("Option \"outbox_table_op_invalid_behavior\" is \"fatal\"."),
					 errhint("Outbox tables take inserts (and deletes); set the option to \"warn\" to skip updates.")));
		ereport(WARNING,
				(errmsg("unexpected update of outbox table \"%s.%s\" skipped",
						ri->schemaname, ri->relname),
				 opts->outbox->invalid_op == INVALID_OP_ERROR ?
				 errdetail("Option \"outbox_table_op_invalid_behavior\" is \"error\"; decoding cannot raise an error without stopping.") : 0));
		return false;
	}
	if (op == CDC_OP_TRUNCATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("truncate of table \"%s.%s\" cannot go through the outbox transform",
						ri->schemaname, ri->relname),
				 errdetail("A truncate has no row to make an event of; Debezium fails on it too."),
				 errhint("Leave \"t\" in skipped_operations (the default) for streams with the outbox transform.")));
	return true;
}

/* A header holding a column's value (with its schema when schemas are on). */
static void
column_header(CdcRecordOut *ro, const char *name, const CdcRelInfo *ri, const CdcRow *row,
			  int i, const CdcOptions *opts)
{
	recout_header_begin(ro, name);
	if (opts->schemas)
	{
		appendStringInfoString(ro->buf, "{\"schema\":");
		appendStringInfoString(ro->buf, column_schema(ri, i));
		appendStringInfoString(ro->buf, ",\"payload\":");
	}
	encoder_write_column(ro->buf, ri, row, i, opts);
	if (opts->schemas)
		appendStringInfoChar(ro->buf, '}');
	recout_header_end(ro);
}

static void
write_value(CdcRecordOut *ro, const CdcRelInfo *ri, const CdcRow *row,
			const OutboxColumns *oc, const char *routed, const CdcOptions *opts)
{
	CdcOutbox  *ob = opts->outbox;
	OutboxPayload p = read_payload(ri, row, oc, opts);
	const char *schema = p.schema;
	int32		version = -1;

	if (!ob->only_headers)
	{
		if (oc->version >= 0)
			version = int32_value(ri, row, oc->version,
								  "outbox_table_field_event_schema_version", opts);
		schema = struct_schema(ri, oc, &p, routed, version, ob);
	}
	if (p.empty && ob->tombstone_on_empty)
	{
		recout_value_null(ro);
		return;
	}
	recout_value_begin(ro);
	if (opts->schemas)
	{
		appendStringInfoString(ro->buf, "{\"schema\":");
		appendStringInfoString(ro->buf, schema);
		appendStringInfoString(ro->buf, ",\"payload\":");
	}
	if (ob->only_headers)
		appendStringInfoString(ro->buf, p.json);
	else
		append_struct_value(ro->buf, ri, row, oc, &p, opts);
	if (opts->schemas)
		appendStringInfoChar(ro->buf, '}');
	recout_value_end(ro);
}

/* The partition a "partition" placement picks (the last one given), or -1. */
static int32
event_partition(const CdcRelInfo *ri, const CdcRow *row, const OutboxColumns *oc,
				const CdcOptions *opts)
{
	int32		partition = -1;
	ListCell   *lc;

	foreach(lc, opts->outbox->additional)
	{
		int			i = oc->additional[foreach_current_index(lc)];

		if (((OutboxField *) lfirst(lc))->placement == PLACE_PARTITION && i >= 0)
			partition = int32_value(ri, row, i, "outbox_table_fields_additional_placement",
									opts);
	}
	return partition;
}

static void
write_headers(CdcRecordOut *ro, const CdcRelInfo *ri, const CdcRow *row,
			  const OutboxColumns *oc, const char *key_header, const CdcRow *header_row,
			  const CdcOptions *opts)
{
	ListCell   *lc;

	if (key_header != NULL)
	{
		recout_header_begin(ro, key_header);
		encoder_write_header_key(ro->buf, ri, header_row, opts);
		recout_header_end(ro);
	}
	if (opts->extended_headers)
		encoder_write_context_headers(ro, opts);
	column_header(ro, "id", ri, row, oc->id, opts);
	foreach(lc, opts->outbox->additional)
	{
		OutboxField *f = lfirst(lc);
		int			i = oc->additional[foreach_current_index(lc)];

		if (f->placement == PLACE_HEADER && i >= 0)
			column_header(ro, f->alias, ri, row, i, opts);
	}
}

/*
 * One event from an outbox row (a create or a read that outbox_accepts),
 * framed in format into buf.  key_header / header_row: the
 * __debezium.oldkey header of a create that changed the row's key.
 */
void
outbox_write(StringInfo buf, CdcOutputFormat format, const CdcRelInfo *ri, Oid relid,
			 const CdcRow *row, uint64 lsn, const char *key_header,
			 const CdcRow *header_row, const CdcOptions *opts)
{
	const OutboxColumns *oc = columns_of(ri, opts);
	char	   *routed = route_value(ri, row, oc->route, opts);
	char	   *topic = jregex_replace(opts->outbox->regex, opts->outbox->route_replacement,
									   routed);
	CdcRecordOut ro;

	recout_begin_routed(&ro, buf, format, topic != NULL ? topic : routed, lsn, relid,
						event_partition(ri, row, oc, opts),
						event_timestamp(ri, row, oc->timestamp, opts));
	recout_use_format(&ro, opts);
	if (recout_wants_key(&ro))
	{
		recout_key_begin(&ro);
		if (opts->schemas)
		{
			appendStringInfoString(buf, "{\"schema\":");
			appendStringInfoString(buf, column_schema(ri, oc->key));
			appendStringInfoString(buf, ",\"payload\":");
		}
		encoder_write_column(buf, ri, row, oc->key, opts);
		if (opts->schemas)
			appendStringInfoChar(buf, '}');
		recout_key_end(&ro);
	}
	write_value(&ro, ri, row, oc, routed, opts);
	if (recout_wants_key(&ro))
		write_headers(&ro, ri, row, oc, key_header, header_row, opts);
	recout_end(&ro);
}
