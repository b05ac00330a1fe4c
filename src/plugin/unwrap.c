/*-------------------------------------------------------------------------
 *
 * unwrap.c
 *		The "unwrap" transform: Debezium's ExtractNewRecordState, applied
 *		while a change record is written.
 *
 * The flattened value is written directly from the row image (the
 * "after" row, or "before" for a rewritten delete) followed by the fields
 * add.fields asks for, rather than by rewriting the encoded envelope: the
 * row is encoded once, and the per-table schema of the flattened value is
 * rendered once with the relation (relinfo.c).  The metadata the added
 * fields and headers take their values from (source block, transaction
 * block, op, ts_*) is rendered by encoder.c as in the envelope, and the
 * values are picked out of that text, so they are always what the envelope
 * would carry.
 *
 * Debezium's transform, as seen from its consumers:
 *	- creates, updates (and reads): the row, as a struct schema named
 *	  <topic>.Value that is no longer optional, then "__deleted" in the
 *	  rewrite modes, then the add.fields fields (optional copies of the
 *	  envelope fields' schemas, without defaults);
 *	- deletes: by delete.tombstone.handling.mode: dropped (drop), a value
 *	  with the row schema and a null payload (tombstone, the default), a
 *	  real tombstone (delete-to-tombstone), or the "before" row with
 *	  "__deleted":"true" (rewrite, rewrite-with-tombstone);
 *	- the connector's own tombstones: kept only by rewrite-with-tombstone;
 *	- truncates: dropped;
 *	- add.headers headers follow the record's own headers; a tombstone gets
 *	  only those naming "op", as "d".
 * drop.fields.header.name names a header holding a list of field names
 * (ExtractChangedRecordState's); no record cdc_kafka writes has one, so
 * the drop.fields.* options are checked and have nothing to act on.
 *
 * src/plugin/unwrap.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/varlena.h"

#include "plugin/encoder.h"
#include "plugin/optvalue.h"
#include "plugin/recout.h"
#include "plugin/textenc.h"
#include "plugin/typemap.h"
#include "plugin/unwrap.h"

#define DEFAULT_PREFIX "__"
#define DELETED_FIELD "__deleted"

const struct config_enum_entry unwrap_delete_modes[] = {
	{"drop", UNWRAP_DELETE_DROP, false},
	{"tombstone", UNWRAP_DELETE_TOMBSTONE, false},
	{"rewrite", UNWRAP_DELETE_REWRITE, false},
	{"rewrite-with-tombstone", UNWRAP_DELETE_REWRITE_WITH_TOMBSTONE, false},
	{"delete-to-tombstone", UNWRAP_DELETE_TO_TOMBSTONE, false},
	{NULL, 0, false}
};

/* One envelope field that add.fields / add.headers may name. */
typedef struct EnvelopeField
{
	const char *parent;			/* "source", "transaction", or NULL: top level */
	const char *field;
	const char *schema;			/* its schema, optional, without defaults */
} EnvelopeField;

#define OPT_STRING "{\"type\":\"string\",\"optional\":true"
#define OPT_INT64 "{\"type\":\"int64\",\"optional\":true"

static const EnvelopeField envelope_fields[] = {
	{NULL, "op", OPT_STRING},
	{NULL, "ts_ms", OPT_INT64},
	{NULL, "ts_us", OPT_INT64},
	{NULL, "ts_ns", OPT_INT64},
	{"source", "version", OPT_STRING},
	{"source", "connector", OPT_STRING},
	{"source", "name", OPT_STRING},
	{"source", "ts_ms", OPT_INT64},
	{"source", "snapshot", OPT_STRING ",\"name\":\"io.debezium.data.Enum\",\"version\":1,"
	"\"parameters\":{\"allowed\":\"true,first,first_in_data_collection,"
	"last_in_data_collection,last,false,incremental\"}"},
	{"source", "db", OPT_STRING},
	{"source", "sequence", OPT_STRING},
	{"source", "ts_us", OPT_INT64},
	{"source", "ts_ns", OPT_INT64},
	{"source", "schema", OPT_STRING},
	{"source", "table", OPT_STRING},
	{"source", "txId", OPT_INT64},
	{"source", "lsn", OPT_INT64},
	{"source", "xmin", OPT_INT64},
	{"source", "origin", OPT_STRING},
	{"source", "origin_lsn", OPT_INT64},
	{"transaction", "id", OPT_STRING},
	{"transaction", "total_order", OPT_INT64},
	{"transaction", "data_collection_order", OPT_INT64},
	{NULL, NULL, NULL}
};

/* A resolved add.fields / add.headers entry. */
typedef struct UnwrapRef
{
	const char *parent;
	const char *field;
	char	   *name;			/* the added field's or header's name */
	const char *schema;
} UnwrapRef;

/* ---- configuration ------------------------------------------------------------ */

/* s without leading and trailing blanks (in place), as Java's String.trim. */
static char *
trim(char *s)
{
	char	   *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/*
 * transforms: a comma list of transform names.  Returns NULL if value is
 * acceptable, else what is wrong with it.
 */
const char *
unwrap_check_transforms(const char *value)
{
	char	   *copy = pstrdup(value);
	List	   *names;
	ListCell   *lc;
	bool		has_outbox = false;

	if (!SplitIdentifierString(copy, ',', &names))
		return "Give a comma-separated list of transform names: unwrap, outbox, route.";
	foreach(lc, names)
	{
		const char *name = lfirst(lc);

		if (strcmp(name, "unwrap") != 0 && strcmp(name, "route") != 0 &&
			strcmp(name, "outbox") != 0)
			return psprintf("Unknown transform \"%s\": transforms are unwrap, outbox and route.",
							name);
		if (strcmp(name, "outbox") == 0)
			has_outbox = true;
	}
	/* Debezium would pass outbox events through the others, or fail */
	if (list_length(names) > 1 && has_outbox)
		return "The outbox transform cannot be combined with other transforms: a stream with it should carry only outbox tables.";
	return NULL;
}

/* Split one entry "[struct.]field[:name]"; NULL if it is well formed. */
static const char *
split_ref(const char *entry, char **parent, char **field, char **alias)
{
	char	   *copy = pstrdup(entry);
	char	   *colon = strchr(copy, ':');
	char	   *dot;

	*alias = NULL;
	if (colon != NULL)
	{
		*colon = '\0';
		*alias = colon + 1;
		if (strchr(*alias, ':') != NULL || **alias == '\0')
			return psprintf("Unexpected field name \"%s\".", entry);
	}
	dot = strchr(copy, '.');
	*parent = NULL;
	*field = copy;
	if (dot != NULL)
	{
		*dot = '\0';
		*parent = copy;
		*field = dot + 1;
		if (strcmp(*parent, "source") != 0 && strcmp(*parent, "transaction") != 0)
			return psprintf("Field \"%s\": only fields of \"source\" and \"transaction\" "
							"can be named with a struct.", entry);
	}
	if (**field == '\0' || strchr(*field, '.') != NULL)
		return psprintf("Unexpected field name \"%s\".", entry);
	if (*parent == NULL && (strcmp(*field, "before") == 0 || strcmp(*field, "after") == 0 ||
							strcmp(*field, "source") == 0 ||
							strcmp(*field, "transaction") == 0))
		return psprintf("Field \"%s\" is a struct: adding it is not supported.", entry);
	return NULL;
}

/* add.fields / add.headers: NULL if value is acceptable, else what is wrong. */
const char *
unwrap_check_fields(const char *value)
{
	char	   *copy = pstrdup(value);
	char	   *tok;
	char	   *save;

	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
	{
		char	   *parent,
				   *field,
				   *alias;
		const char *err;

		err = split_ref(pstrdup(trim(tok)), &parent, &field, &alias);
		if (err != NULL)
			return err;
	}
	return NULL;
}

static CdcUnwrap *
get_unwrap(CdcOptions *opts)
{
	CdcUnwrap  *u = opts->unwrap;

	if (u != NULL)
		return u;
	u = palloc0(sizeof(CdcUnwrap));
	u->delete_mode = UNWRAP_DELETE_TOMBSTONE;
	u->add_fields = "";
	u->add_fields_prefix = DEFAULT_PREFIX;
	u->add_headers = "";
	u->add_headers_prefix = DEFAULT_PREFIX;
	u->route_by_field = "";
	u->drop_fields_header_name = "";
	u->drop_fields_keep_schema_compatible = true;
	u->replace_null_with_default = true;
	opts->unwrap = u;
	return u;
}

static char *
parse_fields(const char *name, const char *value)
{
	const char *err = unwrap_check_fields(value);

	if (err != NULL)
		optvalue_bad(name, value, err);
	return pstrdup(value);
}

/* Apply one unwrap_* option; false if the name is not one. */
bool
unwrap_parse_option(CdcOptions *opts, const char *name, const char *value)
{
	CdcUnwrap  *u = get_unwrap(opts);

	if (strcmp(name, "unwrap_add_fields") == 0)
		u->add_fields = parse_fields(name, value);
	else if (strcmp(name, "unwrap_add_fields_prefix") == 0)
		u->add_fields_prefix = pstrdup(value);
	else if (strcmp(name, "unwrap_add_headers") == 0)
		u->add_headers = parse_fields(name, value);
	else if (strcmp(name, "unwrap_add_headers_prefix") == 0)
		u->add_headers_prefix = pstrdup(value);
	else if (strcmp(name, "unwrap_delete_tombstone_handling_mode") == 0)
		u->delete_mode = optvalue_word(name, value, unwrap_delete_modes);
	else if (strcmp(name, "unwrap_route_by_field") == 0)
		u->route_by_field = pstrdup(value);
	else if (strcmp(name, "unwrap_drop_fields_header_name") == 0)
		u->drop_fields_header_name = pstrdup(value);
	else if (strcmp(name, "unwrap_drop_fields_from_key") == 0)
		u->drop_fields_from_key = optvalue_flag(name, value);
	else if (strcmp(name, "unwrap_drop_fields_keep_schema_compatible") == 0)
		u->drop_fields_keep_schema_compatible = optvalue_flag(name, value);
	else if (strcmp(name, "unwrap_replace_null_with_default") == 0)
		u->replace_null_with_default = optvalue_flag(name, value);
	else
		return false;
	return true;
}

void
unwrap_parse_transforms(CdcOptions *opts, const char *value)
{
	const char *err = unwrap_check_transforms(value);
	char	   *copy = pstrdup(value);
	List	   *names;
	ListCell   *lc;

	if (err != NULL)
		optvalue_bad("transforms", value, err);
	SplitIdentifierString(copy, ',', &names);
	get_unwrap(opts)->enabled = false;
	foreach(lc, names)
		if (strcmp(lfirst(lc), "unwrap") == 0)
			get_unwrap(opts)->enabled = true;
}

static const EnvelopeField *
lookup_field(const char *parent, const char *field)
{
	for (int i = 0; envelope_fields[i].field != NULL; i++)
	{
		const EnvelopeField *f = &envelope_fields[i];

		if (strcmp(f->field, field) == 0 &&
			(parent == NULL ? f->parent == NULL :
			 f->parent != NULL && strcmp(f->parent, parent) == 0))
			return f;
	}
	return NULL;
}

/* Which struct an unqualified name is looked up in, as Debezium decides. */
static const char *
default_parent(const char *field)
{
	if (strcmp(field, "id") == 0 || strcmp(field, "total_order") == 0 ||
		strcmp(field, "data_collection_order") == 0)
		return "transaction";
	if (strcmp(field, "op") == 0 || strcmp(field, "ts_ms") == 0 ||
		strcmp(field, "ts_us") == 0 || strcmp(field, "ts_ns") == 0)
		return NULL;
	return "source";
}

/*
 * The entries of an add.fields / add.headers list, each named with the
 * prefix; fields the envelope does not have are left out, as Debezium
 * leaves them out.
 */
static List *
resolve_refs(const char *list, const char *prefix)
{
	List	   *refs = NIL;
	char	   *copy = pstrdup(list);
	char	   *tok;
	char	   *save;

	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
	{
		char	   *parent,
				   *field,
				   *alias;
		bool		qualified;
		const EnvelopeField *f;
		UnwrapRef  *ref;

		split_ref(pstrdup(trim(tok)), &parent, &field, &alias);
		qualified = parent != NULL;
		if (!qualified)
			parent = (char *) default_parent(field);
		f = lookup_field(parent, field);
		/* a field not in its struct is looked for at the top level */
		if (f == NULL && parent != NULL)
			f = lookup_field(NULL, field);
		if (f == NULL)
			continue;
		ref = palloc(sizeof(UnwrapRef));
		ref->parent = f->parent;
		ref->field = f->field;
		ref->schema = f->schema;
		if (alias != NULL)
			ref->name = psprintf("%s%s", prefix, alias);
		else if (qualified)
			ref->name = psprintf("%s%s_%s", prefix, parent, field);
		else
			ref->name = psprintf("%s%s", prefix, field);
		refs = lappend(refs, ref);
	}
	return refs;
}

/* After all options: resolve the lists, render the added fields' schemas. */
void
unwrap_finish(CdcOptions *opts)
{
	CdcUnwrap  *u = opts->unwrap;
	StringInfoData buf;
	ListCell   *lc;

	if (u == NULL || !u->enabled)
	{
		opts->unwrap = NULL;
		return;
	}
	u->fields = resolve_refs(u->add_fields, u->add_fields_prefix);
	u->headers = resolve_refs(u->add_headers, u->add_headers_prefix);
	initStringInfo(&buf);
	if (u->delete_mode == UNWRAP_DELETE_REWRITE ||
		u->delete_mode == UNWRAP_DELETE_REWRITE_WITH_TOMBSTONE)
		appendStringInfoString(&buf, "," OPT_STRING ",\"field\":\"" DELETED_FIELD "\"}");
	foreach(lc, u->fields)
	{
		UnwrapRef  *ref = lfirst(lc);

		appendStringInfo(&buf, ",%s,\"field\":", ref->schema);
		textenc_append_json(&buf, ref->name, strlen(ref->name));
		appendStringInfoChar(&buf, '}');
	}
	u->schema_extra = buf.data;
}

/* ---- schemas ------------------------------------------------------------------ */

static void
append_struct_schema(StringInfo buf, const CdcRelInfo *ri, const char *extra, bool optional)
{
	char	   *name = psprintf("%s.Value", ri->flat_topic);

	appendStringInfoString(buf, "{\"schema\":{\"type\":\"struct\",\"fields\":[");
	for (int i = 0; i < ri->ncolumns; i++)
	{
		if (i > 0)
			appendStringInfoChar(buf, ',');
		typemap_write_field_schema(buf, &ri->columns[i], true);
	}
	/* the extra fields start with a comma */
	appendStringInfoString(buf, ri->ncolumns > 0 ? extra : extra + (*extra ? 1 : 0));
	appendStringInfo(buf, "],\"optional\":%s,\"name\":", optional ? "true" : "false");
	textenc_append_json(buf, name, strlen(name));
	appendStringInfoString(buf, "},\"payload\":");
}

/*
 * The relation's flattened value schema (ri->unwrap_prefix, up to the
 * payload) and the whole value of a delete in tombstone mode; in the
 * relation's memory context.
 */
void
unwrap_render_schemas(CdcRelInfo *ri, const CdcOptions *opts)
{
	StringInfoData buf;

	initStringInfo(&buf);
	if (opts->schemas)
		append_struct_schema(&buf, ri, opts->unwrap->schema_extra, false);
	ri->unwrap_prefix = buf.data;
	ri->unwrap_prefix_len = buf.len;

	initStringInfo(&buf);
	if (opts->schemas)
	{
		append_struct_schema(&buf, ri, "", true);
		appendStringInfoString(&buf, "null}");
	}
	else
		appendStringInfoString(&buf, "null");
	ri->unwrap_null_value = buf.data;
}

/* ---- records ------------------------------------------------------------------ */

UnwrapOutcome
unwrap_outcome(const CdcUnwrap *u, CdcOp op, bool tombstone)
{
	if (tombstone)
		return u->delete_mode == UNWRAP_DELETE_REWRITE_WITH_TOMBSTONE ?
			UNWRAP_TOMBSTONE : UNWRAP_SKIP;
	if (op == CDC_OP_TRUNCATE)
		return UNWRAP_SKIP;
	if (op != CDC_OP_DELETE)
		return UNWRAP_FLAT;
	switch (u->delete_mode)
	{
		case UNWRAP_DELETE_DROP:
			return UNWRAP_SKIP;
		case UNWRAP_DELETE_TOMBSTONE:
			return UNWRAP_NULL_PAYLOAD;
		case UNWRAP_DELETE_TO_TOMBSTONE:
			return UNWRAP_TOMBSTONE;
		default:
			return UNWRAP_FLAT;
	}
}

/* The length of the JSON value at p (our own output: well formed). */
static int
json_value_len(const char *p)
{
	const char *s = p;
	int			depth = 0;

	do
	{
		if (*s == '"')
		{
			for (s++; *s != '"'; s++)
				if (*s == '\\')
					s++;
			s++;
		}
		else if (*s == '{' || *s == '[')
			depth++, s++;
		else if (*s == '}' || *s == ']')
			depth--, s++;
		else if (depth == 0)
			while (*s != '\0' && *s != ',' && *s != '}' && *s != ']')
				s++;
		else
			s++;
	} while (depth > 0);
	return s - p;
}

/* The value of member key in the members starting at p; NULL if absent. */
static const char *
find_member(const char *p, const char *key, int *len)
{
	size_t		keylen = strlen(key);

	while (*p == '"')
	{
		const char *name = p + 1;
		const char *end = strchr(name, '"');

		p = end + 2;			/* past '":' */
		*len = json_value_len(p);
		if (end - name == keylen && strncmp(name, key, keylen) == 0)
			return p;
		p += *len;
		if (*p == ',')
			p++;
	}
	return NULL;
}

/* The JSON value of ref in the envelope metadata meta. */
static void
append_ref_value(StringInfo buf, const UnwrapRef *ref, const char *meta)
{
	const char *v = meta;
	int			len;

	if (ref->parent != NULL)
	{
		v = find_member(meta, ref->parent, &len);
		if (v == NULL || *v != '{')
		{
			appendStringInfoString(buf, "null");
			return;
		}
		v++;
	}
	v = find_member(v, ref->field, &len);
	/* "false" is the envelope's default for a snapshot marker it does not set */
	if (v == NULL || (strcmp(ref->field, "snapshot") == 0 && len == 7 && strncmp(v, "\"false\"", 7) == 0))
		appendStringInfoString(buf, "null");
	else
		appendBinaryStringInfo(buf, v, len);
}

/*
 * The record value: the flattened row (row is "before" for a rewritten
 * delete, "after" otherwise), a null payload, or a null value.
 */
void
unwrap_write_value(CdcRecordOut *ro, UnwrapOutcome outcome, const CdcRelInfo *ri,
				   CdcOp op, const CdcRow *row, const char *meta, const CdcOptions *opts)
{
	const CdcUnwrap *u = opts->unwrap;
	StringInfo	buf = ro->buf;
	bool		empty;
	ListCell   *lc;

	if (outcome == UNWRAP_TOMBSTONE)
	{
		recout_value_null(ro);
		return;
	}
	recout_value_begin(ro);
	if (outcome == UNWRAP_NULL_PAYLOAD)
	{
		appendStringInfoString(buf, ri->unwrap_null_value);
		recout_value_end(ro);
		return;
	}
	appendBinaryStringInfo(buf, ri->unwrap_prefix, ri->unwrap_prefix_len);
	encoder_write_row(buf, ri, row, opts);
	buf->len--;					/* reopen the row's object */
	empty = buf->data[buf->len - 1] == '{';
	if (u->delete_mode == UNWRAP_DELETE_REWRITE ||
		u->delete_mode == UNWRAP_DELETE_REWRITE_WITH_TOMBSTONE)
	{
		appendStringInfo(buf, "%s\"" DELETED_FIELD "\":\"%s\"", empty ? "" : ",",
						 op == CDC_OP_DELETE ? "true" : "false");
		empty = false;
	}
	foreach(lc, u->fields)
	{
		UnwrapRef  *ref = lfirst(lc);

		if (!empty)
			appendStringInfoChar(buf, ',');
		empty = false;
		textenc_append_json(buf, ref->name, strlen(ref->name));
		appendStringInfoChar(buf, ':');
		append_ref_value(buf, ref, meta);
	}
	appendStringInfoChar(buf, '}');
	if (opts->schemas)
		appendStringInfoChar(buf, '}');
	recout_value_end(ro);
}

static void
write_header(CdcRecordOut *ro, const UnwrapRef *ref, const char *meta, const CdcOptions *opts)
{
	recout_header_begin(ro, ref->name);
	if (opts->schemas)
		appendStringInfo(ro->buf, "{\"schema\":%s},\"payload\":",
						 meta == NULL ? "{\"type\":\"string\",\"optional\":false" : ref->schema);
	if (meta == NULL)
		appendStringInfoString(ro->buf, "\"d\"");
	else
		append_ref_value(ro->buf, ref, meta);
	if (opts->schemas)
		appendStringInfoChar(ro->buf, '}');
	recout_header_end(ro);
}

/*
 * The add.headers headers, after the record's own, from the envelope
 * metadata meta.  A tombstone shares its delete's headers in Debezium, so
 * it gets those (meta is then the delete's) and then, of its own, only the
 * headers naming "op", as "d".
 */
void
unwrap_write_headers(CdcRecordOut *ro, const CdcUnwrap *u, const char *meta,
					 bool tombstone, const CdcOptions *opts)
{
	ListCell   *lc;

	if (meta != NULL)
		foreach(lc, u->headers)
			write_header(ro, lfirst(lc), meta, opts);
	if (!tombstone)
		return;
	foreach(lc, u->headers)
	{
		UnwrapRef  *ref = lfirst(lc);

		if (strcmp(ref->field, "op") == 0)
			write_header(ro, ref, NULL, opts);
	}
}

/* ---- route.by.field ------------------------------------------------------------ */

/* The text of a JSON string (our own output) starting at its opening quote. */
static char *
json_string_text(const char *p)
{
	StringInfoData out;

	initStringInfo(&out);
	for (p++; *p != '"'; p++)
	{
		if (*p != '\\')
		{
			appendStringInfoChar(&out, *p);
			continue;
		}
		p++;
		switch (*p)
		{
			case 'b':
				appendStringInfoChar(&out, '\b');
				break;
			case 'f':
				appendStringInfoChar(&out, '\f');
				break;
			case 'n':
				appendStringInfoChar(&out, '\n');
				break;
			case 'r':
				appendStringInfoChar(&out, '\r');
				break;
			case 't':
				appendStringInfoChar(&out, '\t');
				break;
			case 'u':
				{
					unsigned char utf8[8];
					pg_wchar	c = (pg_wchar) strtol(pnstrdup(p + 1, 4), NULL, 16);

					unicode_to_utf8(c, utf8);
					appendBinaryStringInfo(&out, (char *) utf8, pg_utf_mblen(utf8));
					p += 4;
					break;
				}
			default:
				appendStringInfoChar(&out, *p);
		}
	}
	return out.data;
}

/*
 * The topic of a record whose row is row (NULL: the connector's tombstone,
 * never routed): with route.by.field, the value of that string column, or
 * the table's topic when it is null or blank.
 */
const char *
unwrap_topic(const CdcUnwrap *u, const CdcRelInfo *ri, const CdcRow *row,
			 const CdcOptions *opts)
{
	StringInfoData buf;
	const CdcColumn *col = NULL;
	int			i;
	char	   *topic;

	if (u->route_by_field[0] == '\0' || row == NULL)
		return ri->topic;
	for (i = 0; i < ri->ncolumns; i++)
	{
		if (strcmp(ri->columns[i].name, u->route_by_field) == 0)
		{
			col = &ri->columns[i];
			break;
		}
	}
	if (col == NULL || strncmp(col->schema_json, "{\"type\":\"string\"", 16) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unwrap_route_by_field names \"%s\", which is not a string column of table \"%s.%s\"",
						u->route_by_field, ri->schemaname, ri->relname)));
	initStringInfo(&buf);
	if (row->unchanged != NULL && row->unchanged[i])
		typemap_write_placeholder(&buf, col, opts);
	else if (!row->nulls[i])
		typemap_write_value(&buf, col, row->values[i], opts);
	else if (col->default_json != NULL)
		appendStringInfoString(&buf, col->default_json);
	if (buf.len == 0 || buf.data[0] != '"')
		return ri->topic;
	topic = json_string_text(buf.data);
	if (*trim(pstrdup(topic)) == '\0')
		return ri->topic;
	return topic;
}
