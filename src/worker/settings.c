/*-------------------------------------------------------------------------
 *
 * settings.c
 *		The cdc_kafka.* settings of the streaming worker.
 *
 * Every setting can be changed with a reload (SIGHUP); a worker whose
 * effective configuration changed restarts its streaming session with the
 * new values (worker.c compares a fingerprint of them).  Settings are
 * checked when they are loaded: a bad value is rejected with the setting's
 * name and what is allowed, and the running worker keeps the old one.  The
 * librdkafka properties are checked by librdkafka itself, together with the
 * ones cdc_kafka sets.  What depends on two settings or on a database's name
 * (a slot name too long, a topic prefix from a name Kafka refuses, two
 * databases on one slot) is checked by the launcher, which then starts no
 * worker for the database and says why in its status.  Secrets (passwords,
 * private keys) are read from cdc_kafka.kafka_secrets_file by the worker and
 * never appear in a setting, a view or the log.
 *
 * src/worker/settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <librdkafka/rdkafka.h>

#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "plugin/colhash.h"
#include "plugin/colmask.h"
#include "plugin/compat.h"
#include "plugin/keycols.h"
#include "plugin/msgfilter.h"
#include "plugin/options.h"
#include "plugin/optvalue.h"
#include "plugin/outbox.h"
#include "plugin/textenc.h"
#include "plugin/route.h"
#include "plugin/jregex.h"
#include "plugin/unwrap.h"
#include "worker/producer.h"
#include "worker/settings.h"
#include "worker/status.h"

char	   *settings_databases = NULL;
char	   *settings_bootstrap_servers = NULL;
char	   *settings_topic_prefix = NULL;
char	   *settings_slot_name = NULL;
bool		settings_slot_failover = false;
char	   *settings_publication_name = NULL;
int			settings_publication_autocreate = CDC_PUBLICATION_ALL_TABLES;
char	   *settings_table_include_list = NULL;
bool		settings_schemas = true;
int			settings_decimal_mode = CDC_DECIMAL_PRECISE;
int			settings_binary_mode = CDC_BINARY_BYTES;
int			settings_time_mode = CDC_TIME_ADAPTIVE;
int			settings_interval_mode = CDC_INTERVAL_NUMERIC;
int			settings_hstore_mode = CDC_HSTORE_JSON;
bool		settings_tombstones_on_delete = true;
char	   *settings_skipped_operations = NULL;
bool		settings_transaction_metadata = false;
char	   *settings_unavailable_placeholder = NULL;
int			settings_money_fraction_digits = 2;
bool		settings_extended_headers = true;
char	   *settings_transforms = NULL;
char	   *settings_outbox_table_field_event_id = NULL;
char	   *settings_outbox_table_field_event_key = NULL;
char	   *settings_outbox_table_field_event_type = NULL;
char	   *settings_outbox_table_field_event_payload = NULL;
char	   *settings_outbox_table_field_event_timestamp = NULL;
char	   *settings_outbox_table_fields_additional_placement = NULL;
char	   *settings_outbox_table_field_event_schema_version = NULL;
char	   *settings_outbox_route_by_field = NULL;
char	   *settings_outbox_route_topic_regex = NULL;
char	   *settings_outbox_route_topic_replacement = NULL;
bool		settings_outbox_route_tombstone_on_empty_payload = false;
bool		settings_outbox_table_expand_json_payload = false;
int			settings_outbox_table_field_additional_missing = 0;
int			settings_outbox_table_op_invalid_behavior = 0;
int			settings_outbox_table_json_payload_null_behavior = 0;
int			settings_outbox_field_name_adjustment_mode = 0;
char	   *settings_unwrap_add_fields = NULL;
char	   *settings_unwrap_add_fields_prefix = NULL;
char	   *settings_unwrap_add_headers = NULL;
char	   *settings_unwrap_add_headers_prefix = NULL;
int			settings_unwrap_delete_mode = UNWRAP_DELETE_TOMBSTONE;
char	   *settings_unwrap_route_by_field = NULL;
char	   *settings_unwrap_drop_fields_header_name = NULL;
bool		settings_unwrap_drop_fields_from_key = false;
bool		settings_unwrap_drop_fields_keep_schema_compatible = true;
bool		settings_unwrap_replace_null_with_default = true;
char	   *settings_route_topic_regex = NULL;
char	   *settings_route_topic_replacement = NULL;
char	   *settings_route_key_field_name = NULL;
char	   *settings_route_key_field_regex = NULL;
char	   *settings_route_key_field_replacement = NULL;
bool		settings_route_key_enforce_uniqueness = true;
int			settings_route_schema_name_mode = 0;
char	   *settings_kafka_properties = NULL;
char	   *settings_kafka_secrets_file = NULL;
int			settings_max_inflight_kb = 65536;
int			settings_heartbeat_interval_ms = 0;
int			settings_slot_save_interval_ms = 10000;
int			settings_poll_interval_ms = 10;
int			settings_restart_delay_s = 5;
int			settings_delivery = CDC_DELIVERY_AT_LEAST_ONCE;
int			settings_txn_max_records = 100000;
int			settings_txn_max_kb = 262144;
int			settings_txn_max_ms = 1000;
char	   *settings_offsets_topic = NULL;
int			settings_snapshot_mode = CDC_SNAPSHOT_INITIAL;
int			settings_snapshot_fetch_size = 10240;
int			settings_incremental_chunk_size = 1024;
bool		settings_snapshot_chunked = false;
int			settings_snapshot_chunk_timeout_ms = 60000;
char	   *settings_topic_delimiter = NULL;
char	   *settings_topic_transaction = NULL;
char	   *settings_topic_heartbeat_prefix = NULL;
char	   *settings_message_prefix_include_list = NULL;
char	   *settings_message_prefix_exclude_list = NULL;
int			settings_schema_name_mode = 0;	/* none */
int			settings_field_name_mode = 0;	/* none */

static const struct config_enum_entry publication_modes[] = {
	{"all_tables", CDC_PUBLICATION_ALL_TABLES, false},
	{"filtered", CDC_PUBLICATION_FILTERED, false},
	{"disabled", CDC_PUBLICATION_DISABLED, false},
	{NULL, 0, false}
};

static const struct config_enum_entry delivery_modes[] = {
	{"at_least_once", CDC_DELIVERY_AT_LEAST_ONCE, false},
	{"exactly_once", CDC_DELIVERY_EXACTLY_ONCE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry snapshot_modes[] = {
	{"initial", CDC_SNAPSHOT_INITIAL, false},
	{"initial_only", CDC_SNAPSHOT_INITIAL_ONLY, false},
	{"no_data", CDC_SNAPSHOT_NO_DATA, false},
	{"never", CDC_SNAPSHOT_NO_DATA, true},	/* Debezium's older name */
	{"always", CDC_SNAPSHOT_ALWAYS, false},
	{"when_needed", CDC_SNAPSHOT_WHEN_NEEDED, false},
	{NULL, 0, false}
};

/* ---- names made from a database name --------------------------------------- */

/*
 * pattern with %d replaced by dbname; as_identifier: dbname lower case, its
 * other characters than letters and digits as '_' (a slot name's rules).
 */
static char *
with_dbname(const char *pattern, const char *dbname, bool as_identifier)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const char *p = pattern; *p; p++)
	{
		if (p[0] == '%' && p[1] == 'd')
		{
			for (const char *d = dbname; *d; d++)
				appendStringInfoChar(&buf, !as_identifier ? *d :
									 !IS_HIGHBIT_SET(*d) && isalnum((unsigned char) *d) ?
									 pg_tolower((unsigned char) *d) : '_');
			p++;
		}
		else
			appendStringInfoChar(&buf, *p);
	}
	return buf.data;
}

/*
 * The topic prefix of dbname's worker: cdc_kafka.topic_prefix (%d: the
 * database name), or dbname; in UTF-8 and sanitised as a topic name, since
 * a database name may hold characters Kafka does not allow.
 */
char *
settings_topic_prefix_for(const char *dbname)
{
	StringInfoData buf;

	initStringInfo(&buf);
	textenc_sanitize_topic_utf8(&buf,
								textenc_name_utf8(with_dbname(settings_topic_prefix[0] != '\0' ?
															  settings_topic_prefix : "%d",
															  dbname, false)));
	return buf.data;
}

/* What a topic prefix may be: Kafka's topic name characters, room for table names. */
bool
settings_topic_prefix_valid(const char *prefix)
{
	size_t		len = strlen(prefix);

	return len > 0 && len <= 200 &&
		strspn(prefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

/* ---- check hooks --------------------------------------------------------- */

static bool
check_identifier_list(char **newval, void **extra, GucSource source)
{
	char	   *copy = pstrdup(*newval);
	List	   *names;
	bool		ok = SplitIdentifierString(copy, ',', &names);

	if (!ok)
		GUC_check_errdetail("List syntax is invalid: give comma-separated names.");
	list_free(names);
	pfree(copy);
	return ok;
}

/*
 * cdc_kafka.databases: at most CDC_MAX_WORKERS, and no two whose names give
 * the same slot name whatever cdc_kafka.slot_name is ("a-b" and "a_b", "A"
 * and "a"): two workers would decode one slot.
 */
static bool
check_databases(char **newval, void **extra, GucSource source)
{
	char	   *copy = pstrdup(*newval);
	List	   *names;
	ListCell   *lc;
	bool		ok = true;

	if (!SplitIdentifierString(copy, ',', &names))
	{
		GUC_check_errdetail("List syntax is invalid: give comma-separated names.");
		return false;
	}
	if (list_length(names) > CDC_MAX_WORKERS)
	{
		GUC_check_errdetail("cdc_kafka streams at most %d databases; %d are listed.",
							CDC_MAX_WORKERS, list_length(names));
		return false;
	}
	foreach(lc, names)
	{
		char	   *mapped = with_dbname("%d", lfirst(lc), true);

		for (ListCell *lc2 = list_head(names); ok && lc2 != lc; lc2 = lnext(names, lc2))
		{
			if (strcmp(mapped, with_dbname("%d", lfirst(lc2), true)) == 0)
			{
				GUC_check_errdetail("Databases \"%s\" and \"%s\" would share replication slot \"%s\": "
									"a slot name has the database name in lower case, other characters "
									"than letters and digits as \"_\".",
									(char *) lfirst(lc2), (char *) lfirst(lc),
									with_dbname(settings_slot_name ? settings_slot_name : "%d",
												lfirst(lc), true));
				ok = false;
			}
		}
		if (!ok)
			break;
	}
	list_free(names);
	pfree(copy);
	return ok;
}

/*
 * cdc_kafka.bootstrap_servers: empty (the workers wait), or a comma-separated
 * list of [protocol://]host[:port], host a name, an IPv4 address or an IPv6
 * address in brackets, port 1 to 65535.
 */
static bool
check_bootstrap_servers(char **newval, void **extra, GucSource source)
{
	char	   *copy = pstrdup(*newval);
	char	   *item = copy;
	bool		ok = true;
	int			n = 0;

	if (strspn(copy, " ") == strlen(copy))
		return true;
	while (ok && item != NULL)
	{
		char	   *next = strchr(item, ',');
		char	   *host;
		char	   *port = NULL;
		char	   *scheme;

		if (next != NULL)
			*next++ = '\0';
		n++;
		while (*item == ' ')
			item++;
		for (char *e = item + strlen(item); e > item && e[-1] == ' ';)
			*--e = '\0';
		scheme = strstr(item, "://");
		host = scheme != NULL ? scheme + 3 : item;
		if (host[0] == '[')
		{
			char	   *close = strchr(host, ']');

			ok = close != NULL && close > host + 1 &&
				strspn(host + 1, "0123456789abcdefABCDEF:.") == (size_t) (close - host - 1) &&
				(close[1] == '\0' || close[1] == ':');
			if (ok && close[1] == ':')
				port = close + 2;
		}
		else
		{
			char	   *colon = strchr(host, ':');

			if (colon != NULL)
			{
				*colon = '\0';
				port = colon + 1;
			}
			ok = host[0] != '\0' &&
				strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == strlen(host);
		}
		if (ok && port != NULL)
			ok = port[0] != '\0' && strlen(port) <= 5 &&
				strspn(port, "0123456789") == strlen(port) &&
				atoi(port) >= 1 && atoi(port) <= 65535;
		item = next;
	}
	if (!ok)
		GUC_check_errdetail("Server %d of the list is not host[:port] (a host name, an IPv4 address or "
							"an IPv6 address in brackets; a port from 1 to 65535).", n);
	pfree(copy);
	return ok;
}

static bool
check_publication_name(char **newval, void **extra, GucSource source)
{
	if ((*newval)[0] == '\0' || strlen(*newval) >= NAMEDATALEN)
	{
		GUC_check_errdetail("A publication name is 1 to %d characters.", NAMEDATALEN - 1);
		return false;
	}
	return true;
}

static bool
check_topic_prefix(char **newval, void **extra, GucSource source)
{
	const char *v = *newval;
	bool		ok = strlen(v) <= 200;

	for (const char *p = v; ok && *p; p++)
	{
		if (p[0] == '%' && p[1] == 'd')
			p++;				/* the database name */
		else
			ok = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p) != NULL;
	}
	if (!ok)
	{
		GUC_check_errdetail("A topic prefix is empty (the database name) or 1 to 200 of the characters A-Z, a-z, 0-9, '.', '_' and '-', where %%d stands for the database name.");
		return false;
	}
	return true;
}

/* topic.delimiter, topic.transaction, topic.heartbeat.prefix */
static bool
check_topic_part(char **newval, void **extra, GucSource source)
{
	if (options_valid_topic_part(*newval))
		return true;
	GUC_check_errdetail("Give 1 or more of the characters A-Z, a-z, 0-9, '.', '_' and '-'.");
	return false;
}

/*
 * message.prefix.include.list / exclude.list: regular expressions that
 * compile.  Both lists set is the plugin's error when the worker starts its
 * session (a check hook here would see the other list's old value during a
 * reload that swaps them).
 */
static bool
check_message_prefix_list(char **newval, void **extra, GucSource source)
{
	char	   *error = msgfilter_check(*newval);

	if (error == NULL)
		return true;
	GUC_check_errdetail("Invalid regular expression %s.", error);
	GUC_check_errhint("Give a comma-separated list of regular expressions (\"\\,\" for a comma in one).");
	return false;
}

/* Failover slots exist from PostgreSQL 17 on: "on" before that would be a promise not kept. */
static bool
check_slot_failover(bool *newval, void **extra, GucSource source)
{
	if (*newval && !COMPAT_SLOT_FAILOVER)
	{
		GUC_check_errdetail("Failover replication slots need PostgreSQL 17 or later.");
		GUC_check_errhint("Leave cdc_kafka.slot_failover off on this server.");
		return false;
	}
	return true;
}

static bool
check_slot_name(char **newval, void **extra, GucSource source)
{
	const char *v = *newval;

	bool		ok = v[0] != '\0' && strlen(v) < NAMEDATALEN - 16;

	/* '%' only in %d: any other would stay in the slot name, which refuses it */
	for (const char *p = v; ok && *p; p++)
	{
		if (p[0] == '%' && p[1] == 'd')
			p++;
		else
			ok = strchr("abcdefghijklmnopqrstuvwxyz0123456789_", *p) != NULL;
	}
	if (!ok)
	{
		GUC_check_errdetail("A slot name is lower-case letters, digits and underscores; \"%%d\" stands for the database name.");
		return false;
	}
	return true;
}

/*
 * The slot of a database: cdc_kafka.slot_name with %d replaced by the
 * database name in lower case, every character but a-z and 0-9 as '_'.
 * A slot name has at most NAMEDATALEN - 1 bytes: a longer one (a long
 * database name) keeps its first bytes and ends in '_' and 8 hex digits of
 * a hash of the whole name, so that names differing only at their end
 * stay apart, and stays the same from one start to the next.
 */
char *
settings_slot_name_for(const char *dbname)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, with_dbname(settings_slot_name, dbname, true));
	if (buf.len > NAMEDATALEN - 1)
	{
		uint32		hash = hash_bytes((const unsigned char *) buf.data, buf.len);

		buf.len = NAMEDATALEN - 1 - 9;
		buf.data[buf.len] = '\0';
		appendStringInfo(&buf, "_%08x", hash);
	}
	return buf.data;
}

static bool
check_skipped_operations(char **newval, void **extra, GucSource source)
{
	if (options_parse_skipped(*newval) < 0)
	{
		GUC_check_errdetail("Use \"none\" or a comma-separated list of c, u, d and t.");
		return false;
	}
	return true;
}

static bool
check_placeholder(char **newval, void **extra, GucSource source)
{
	const char *v = *newval;

	if (strncmp(v, "hex:", 4) == 0 &&
		(strlen(v + 4) % 2 != 0 || strspn(v + 4, "0123456789abcdefABCDEF") != strlen(v + 4)))
	{
		GUC_check_errdetail("After \"hex:\" give an even number of hexadecimal digits.");
		return false;
	}
	return true;
}

static bool
check_transforms(char **newval, void **extra, GucSource source)
{
	const char *err = unwrap_check_transforms(*newval);

	if (err != NULL)
		GUC_check_errdetail("%s", err);
	return err == NULL;
}

static bool
check_unwrap_fields(char **newval, void **extra, GucSource source)
{
	const char *err = unwrap_check_fields(*newval);

	if (err != NULL)
		GUC_check_errdetail("%s", err);
	return err == NULL;
}

/* transforms and the unwrap transform's properties (unwrap.c) */
static void
define_unwrap_settings(void)
{
	DefineCustomStringVariable("cdc_kafka.transforms",
							   "Transforms applied to change records, in order (unwrap, route; or outbox alone).",
							   NULL, &settings_transforms, "", PGC_SIGHUP, 0,
							   check_transforms, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_add_fields",
							   "ExtractNewRecordState add.fields.", NULL,
							   &settings_unwrap_add_fields, "", PGC_SIGHUP, 0,
							   check_unwrap_fields, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_add_fields_prefix",
							   "ExtractNewRecordState add.fields.prefix.", NULL,
							   &settings_unwrap_add_fields_prefix, "__", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_add_headers",
							   "ExtractNewRecordState add.headers.", NULL,
							   &settings_unwrap_add_headers, "", PGC_SIGHUP, 0,
							   check_unwrap_fields, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_add_headers_prefix",
							   "ExtractNewRecordState add.headers.prefix.", NULL,
							   &settings_unwrap_add_headers_prefix, "__", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.unwrap_delete_tombstone_handling_mode",
							 "ExtractNewRecordState delete.tombstone.handling.mode.", NULL,
							 &settings_unwrap_delete_mode, UNWRAP_DELETE_TOMBSTONE,
							 unwrap_delete_modes, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_route_by_field",
							   "ExtractNewRecordState route.by.field.", NULL,
							   &settings_unwrap_route_by_field, "", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unwrap_drop_fields_header_name",
							   "ExtractNewRecordState drop.fields.header.name.", NULL,
							   &settings_unwrap_drop_fields_header_name, "", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.unwrap_drop_fields_from_key",
							 "ExtractNewRecordState drop.fields.from.key.", NULL,
							 &settings_unwrap_drop_fields_from_key, false, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.unwrap_drop_fields_keep_schema_compatible",
							 "ExtractNewRecordState drop.fields.keep.schema.compatible.", NULL,
							 &settings_unwrap_drop_fields_keep_schema_compatible, true,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.unwrap_replace_null_with_default",
							 "ExtractNewRecordState replace.null.with.default.", NULL,
							 &settings_unwrap_replace_null_with_default, true,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
}

static bool
check_route_regex(char **newval, void **extra, GucSource source)
{
	const char *err = jregex_check(*newval);

	if (err != NULL)
		GUC_check_errdetail("%s", err);
	return err == NULL;
}

static bool
check_route_replacement(char **newval, void **extra, GucSource source)
{
	const char *err = jregex_check_replacement(*newval);

	if (err != NULL)
		GUC_check_errdetail("%s", err);
	return err == NULL;
}

/* the route transform's properties (route.c) */
static void
define_route_settings(void)
{
	DefineCustomStringVariable("cdc_kafka.route_topic_regex",
							   "ByLogicalTableRouter topic.regex.", NULL,
							   &settings_route_topic_regex, "", PGC_SIGHUP, 0,
							   check_route_regex, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.route_topic_replacement",
							   "ByLogicalTableRouter topic.replacement.", NULL,
							   &settings_route_topic_replacement, "", PGC_SIGHUP, 0,
							   check_route_replacement, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.route_key_field_name",
							   "ByLogicalTableRouter key.field.name.", NULL,
							   &settings_route_key_field_name, ROUTE_DEFAULT_KEY_FIELD,
							   PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.route_key_field_regex",
							   "ByLogicalTableRouter key.field.regex.", NULL,
							   &settings_route_key_field_regex, "", PGC_SIGHUP, 0,
							   check_route_regex, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.route_key_field_replacement",
							   "ByLogicalTableRouter key.field.replacement.", NULL,
							   &settings_route_key_field_replacement, "", PGC_SIGHUP, 0,
							   check_route_replacement, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.route_key_enforce_uniqueness",
							 "ByLogicalTableRouter key.enforce.uniqueness.", NULL,
							 &settings_route_key_enforce_uniqueness, true, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.route_schema_name_adjustment_mode",
							 "ByLogicalTableRouter schema.name.adjustment.mode.", NULL,
							 &settings_route_schema_name_mode, 0, optvalue_name_adjustment_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
}

static bool
check_outbox_placement(char **newval, void **extra, GucSource source)
{
	const char *err = outbox_check_placement(*newval);

	if (err != NULL)
		GUC_check_errdetail("%s", err);
	return err == NULL;
}

/* the outbox transform's properties (outbox.c) */
static void
define_outbox_settings(void)
{
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_id",
							   "EventRouter table.field.event.id.", NULL,
							   &settings_outbox_table_field_event_id, "id", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_key",
							   "EventRouter table.field.event.key.", NULL,
							   &settings_outbox_table_field_event_key, "aggregateid", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_type",
							   "EventRouter table.field.event.type.", NULL,
							   &settings_outbox_table_field_event_type, "type", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_payload",
							   "EventRouter table.field.event.payload.", NULL,
							   &settings_outbox_table_field_event_payload, "payload", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_timestamp",
							   "EventRouter table.field.event.timestamp.", NULL,
							   &settings_outbox_table_field_event_timestamp, "", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_fields_additional_placement",
							   "EventRouter table.fields.additional.placement.", NULL,
							   &settings_outbox_table_fields_additional_placement, "", PGC_SIGHUP, 0,
							   check_outbox_placement, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_table_field_event_schema_version",
							   "EventRouter table.field.event.schema.version.", NULL,
							   &settings_outbox_table_field_event_schema_version, "", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_route_by_field",
							   "EventRouter route.by.field.", NULL,
							   &settings_outbox_route_by_field, "aggregatetype", PGC_SIGHUP, 0,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_route_topic_regex",
							   "EventRouter route.topic.regex.", NULL,
							   &settings_outbox_route_topic_regex, "(?<routedByValue>.*)", PGC_SIGHUP, 0,
							   check_route_regex, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.outbox_route_topic_replacement",
							   "EventRouter route.topic.replacement.", NULL,
							   &settings_outbox_route_topic_replacement, "outbox.event.${routedByValue}", PGC_SIGHUP, 0,
							   check_route_replacement, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.outbox_route_tombstone_on_empty_payload",
							 "EventRouter route.tombstone.on.empty.payload.", NULL,
							 &settings_outbox_route_tombstone_on_empty_payload, false, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.outbox_table_expand_json_payload",
							 "EventRouter table.expand.json.payload.", NULL,
							 &settings_outbox_table_expand_json_payload, false, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.outbox_table_field_additional_missing",
							 "EventRouter table.field.additional.missing.", NULL,
							 &settings_outbox_table_field_additional_missing, 0, outbox_missing_behaviors,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.outbox_table_op_invalid_behavior",
							 "EventRouter table.op.invalid.behavior.", NULL,
							 &settings_outbox_table_op_invalid_behavior, 0, outbox_invalid_op_behaviors,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.outbox_table_json_payload_null_behavior",
							 "EventRouter table.json.payload.null.behavior.", NULL,
							 &settings_outbox_table_json_payload_null_behavior, 0, outbox_null_behaviors,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.outbox_field_name_adjustment_mode",
							 "EventRouter field.name.adjustment.mode (expanded payloads).", NULL,
							 &settings_outbox_field_name_adjustment_mode, 0, optvalue_name_adjustment_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
}

#define KAFKA_PROPERTIES_ERRMSG "invalid value for parameter \"cdc_kafka.kafka_properties\""

/*
 * librdkafka properties, "name=value; name=value": each must be accepted by
 * librdkafka, and the ones cdc_kafka relies on for its guarantees may not be
 * overridden.  Errors name the property, never its value (it may be secret).
 */
static bool
check_kafka_properties(char **newval, void **extra, GucSource source)
{
	char		errbuf[512];

	if (!producer_check_properties(*newval, errbuf, sizeof(errbuf)))
	{
		/* PostgreSQL's own message would quote the value: it may hold a secret */
		GUC_check_errmsg(KAFKA_PROPERTIES_ERRMSG);
		GUC_check_errdetail("%s", errbuf);
		return false;
	}
	return true;
}

/*
 * ALTER SYSTEM SET cdc_kafka.kafka_properties = '<a secret>' fails, and
 * PostgreSQL would log the failed statement, secret and all, after the
 * error (log_min_error_statement): leave the statement out of that error.
 */
static emit_log_hook_type prev_emit_log_hook = NULL;

static void
hide_refused_properties(ErrorData *edata)
{
	if (edata->elevel >= ERROR && edata->message != NULL &&
		strcmp(edata->message, KAFKA_PROPERTIES_ERRMSG) == 0)
		edata->hide_stmt = true;
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

/* ---- definitions ------------------------------------------------------------ */

static void
define_connection_settings(void)
{
	DefineCustomStringVariable("cdc_kafka.databases",
							   "Databases to stream from, one worker each (comma-separated).",
							   NULL, &settings_databases, "", PGC_SIGHUP, GUC_LIST_INPUT,
							   check_databases, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.bootstrap_servers",
							   "Kafka bootstrap servers, host:port[,host:port...].",
							   NULL, &settings_bootstrap_servers, "", PGC_SIGHUP, 0,
							   check_bootstrap_servers, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.kafka_properties",
							   "Further librdkafka producer properties, \"name=value; name=value\".",
							   "For example compression.type, linger.ms, batch.size, security.protocol, "
							   "sasl.mechanism, ssl.ca.location. Secrets go in cdc_kafka.kafka_secrets_file.",
							   &settings_kafka_properties, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   check_kafka_properties, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.kafka_secrets_file",
							   "File with secret librdkafka properties (name=value lines), such as sasl.password.",
							   "Read by the worker only; keep it readable by the server's OS user alone.",
							   &settings_kafka_secrets_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.topic_prefix",
							   "Topic prefix (Debezium's topic.prefix); %d is the database name; empty means the database name.",
							   NULL, &settings_topic_prefix, "", PGC_SIGHUP, 0,
							   check_topic_prefix, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.slot_name",
							   "Name of the replication slot each worker decodes; %d is the database name.",
							   NULL, &settings_slot_name, "cdc_kafka_%d", PGC_SIGHUP, 0,
							   check_slot_name, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.slot_failover",
							 "Mark the workers' slots failover, so that standbys with sync_replication_slots keep them (PostgreSQL 17+).",
							 NULL, &settings_slot_failover, false, PGC_SIGHUP, 0,
							 check_slot_failover, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.publication_name",
							   "Publication whose tables are captured.",
							   NULL, &settings_publication_name, "cdc_kafka", PGC_SIGHUP, 0,
							   check_publication_name, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.publication_autocreate_mode",
							 "How the worker creates the publication when it is missing.",
							 "all_tables: FOR ALL TABLES; filtered: the tables of cdc_kafka.table_include_list; "
							 "disabled: it must exist.",
							 &settings_publication_autocreate, CDC_PUBLICATION_ALL_TABLES,
							 publication_modes, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.table_include_list",
							   "Tables of a filtered publication, schema.table[, ...].",
							   NULL, &settings_table_include_list, "", PGC_SIGHUP, GUC_LIST_INPUT,
							   check_identifier_list, NULL, NULL);
}

static void
define_format_settings(void)
{
	DefineCustomBoolVariable("cdc_kafka.schemas",
							 "Write JsonConverter schemas with keys and values (schemas.enable).",
							 NULL, &settings_schemas, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.decimal_handling_mode",
							 "Debezium's decimal.handling.mode.", NULL,
							 &settings_decimal_mode, CDC_DECIMAL_PRECISE, options_decimal_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.binary_handling_mode",
							 "Debezium's binary.handling.mode.", NULL,
							 &settings_binary_mode, CDC_BINARY_BYTES, options_binary_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.time_precision_mode",
							 "Debezium's time.precision.mode.", NULL,
							 &settings_time_mode, CDC_TIME_ADAPTIVE, options_time_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.interval_handling_mode",
							 "Debezium's interval.handling.mode.", NULL,
							 &settings_interval_mode, CDC_INTERVAL_NUMERIC, options_interval_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.hstore_handling_mode",
							 "Debezium's hstore.handling.mode.", NULL,
							 &settings_hstore_mode, CDC_HSTORE_JSON, options_hstore_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.tombstones_on_delete",
							 "Follow each delete event with a tombstone.",
							 NULL, &settings_tombstones_on_delete, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.skipped_operations",
							   "Operations not sent: none, or a list of c, u, d, t.",
							   NULL, &settings_skipped_operations, "t", PGC_SIGHUP, 0,
							   check_skipped_operations, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.provide_transaction_metadata",
							 "Send BEGIN/END records to <prefix>.transaction and a transaction block per event.",
							 NULL, &settings_transaction_metadata, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.unavailable_value_placeholder",
							   "Value written for unchanged TOASTed columns (\"hex:...\" for bytes).",
							   NULL, &settings_unavailable_placeholder, "__debezium_unavailable_value",
							   PGC_SIGHUP, 0, check_placeholder, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.money_fraction_digits",
							"Scale of money values in precise decimal mode.",
							NULL, &settings_money_fraction_digits, 2, 0, 16, PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.extended_headers_enabled",
							 "Add Debezium's __debezium.context.* headers to change records.",
							 NULL, &settings_extended_headers, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	define_unwrap_settings();
	define_route_settings();
	define_outbox_settings();
	DefineCustomStringVariable("cdc_kafka.topic_delimiter",
							   "Debezium's topic.delimiter: between the parts of topic names.",
							   NULL, &settings_topic_delimiter, ".", PGC_SIGHUP, 0,
							   check_topic_part, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.topic_transaction",
							   "Debezium's topic.transaction: transaction metadata go to <prefix><delimiter><this>.",
							   NULL, &settings_topic_transaction, "transaction", PGC_SIGHUP, 0,
							   check_topic_part, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.topic_heartbeat_prefix",
							   "Debezium's topic.heartbeat.prefix: heartbeats go to <this><delimiter><prefix>.",
							   NULL, &settings_topic_heartbeat_prefix, "__debezium-heartbeat", PGC_SIGHUP, 0,
							   check_topic_part, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.message_prefix_include_list",
							   "Debezium's message.prefix.include.list: regular expressions of the logical decoding messages' prefixes sent.",
							   NULL, &settings_message_prefix_include_list, "", PGC_SIGHUP, 0,
							   check_message_prefix_list, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.schema_name_adjustment_mode",
							 "Debezium's schema.name.adjustment.mode: none, avro, avro_unicode.", NULL,
							 &settings_schema_name_mode, 0, optvalue_name_adjustment_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cdc_kafka.field_name_adjustment_mode",
							 "Debezium's field.name.adjustment.mode: none, avro, avro_unicode.", NULL,
							 &settings_field_name_mode, 0, optvalue_name_adjustment_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.message_prefix_exclude_list",
							   "Debezium's message.prefix.exclude.list: regular expressions of the logical decoding messages' prefixes not sent.",
							   NULL, &settings_message_prefix_exclude_list, "", PGC_SIGHUP, 0,
							   check_message_prefix_list, NULL, NULL);
}

/* An offsets topic name Kafka accepts (its own rule: [a-zA-Z0-9._-], 1-249). */
static bool
check_offsets_topic(char **newval, void **extra, GucSource source)
{
	size_t		len = strlen(*newval);

	if (len >= 1 && len <= 249 && strspn(*newval, "abcdefghijklmnopqrstuvwxyz"
										 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len &&
		strcmp(*newval, ".") != 0 && strcmp(*newval, "..") != 0)
		return true;
	GUC_check_errdetail("cdc_kafka.offsets_topic must be a Kafka topic name: 1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'.");
	return false;
}

static void
define_delivery_settings(void)
{
	DefineCustomEnumVariable("cdc_kafka.delivery",
							 "How often a committed change reaches Kafka: at_least_once, or exactly_once (Kafka transactions; consumers read with isolation.level=read_committed).",
							 NULL, &settings_delivery, CDC_DELIVERY_AT_LEAST_ONCE, delivery_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.transaction_max_records",
							"Records in one Kafka transaction at most (exactly_once); a larger PostgreSQL transaction is split.",
							NULL, &settings_txn_max_records, 100000, 1, INT_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.transaction_max_bytes",
							"Bytes of records in one Kafka transaction at most (exactly_once); a larger PostgreSQL transaction is split.",
							"Above cdc_kafka.max_inflight_bytes, so that a commit, which waits for every record in flight, seldom drains a full window.",
							&settings_txn_max_kb, 262144, 64, INT_MAX / 1024,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.transaction_max_time",
							"Longest time records wait in an open Kafka transaction before it is committed (exactly_once).",
							NULL, &settings_txn_max_ms, 1000, 1, 600000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.offsets_topic",
							   "Compacted topic where exactly_once streams commit their position with their records.",
							   NULL, &settings_offsets_topic, "__cdc_kafka_offsets", PGC_SIGHUP, 0,
							   check_offsets_topic, NULL, NULL);
}

static void
define_flow_settings(void)
{
	DefineCustomIntVariable("cdc_kafka.max_inflight_bytes",
							"Bytes of records handed to Kafka and not yet acknowledged before WAL reading pauses.",
							NULL, &settings_max_inflight_kb, 65536, 64, INT_MAX / 1024,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.heartbeat_interval",
							"Interval of heartbeat records to __debezium-heartbeat.<prefix>; 0 disables them.",
							NULL, &settings_heartbeat_interval_ms, 0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.slot_save_interval",
							"Longest time between writes of the slot's confirmed position to disk.",
							NULL, &settings_slot_save_interval_ms, 10000, 100, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.poll_interval",
							"Wait between reads of new WAL when the worker has caught up.",
							"While WAL came in the last second the worker looks every millisecond.",
							&settings_poll_interval_ms, 10, 1, 10000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.restart_delay",
							"Pause before a worker that stopped on an error is started again.",
							NULL, &settings_restart_delay_s, 5, 1, 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	define_delivery_settings();
}

/* A chunk's read must be bounded, and given time to happen. */
static bool
check_chunk_timeout(int *newval, void **extra, GucSource source)
{
	if (*newval >= 100 && *newval <= 3600 * 1000)
		return true;
	GUC_check_errdetail("cdc_kafka.snapshot_chunk_timeout must be between 100 ms and 1 h: streaming waits while a chunk is read.");
	GUC_check_errhint("Make the snapshot's row filter cheaper, or its chunks smaller (cdc_kafka.incremental_snapshot_chunk_size), rather than the bound longer.");
	return false;
}

static void
define_snapshot_settings(void)
{
	DefineCustomEnumVariable("cdc_kafka.snapshot_mode",
							 "When existing rows are sent: initial, initial_only, no_data, always, when_needed (Debezium's snapshot.mode).",
							 NULL, &settings_snapshot_mode, CDC_SNAPSHOT_INITIAL, snapshot_modes,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("cdc_kafka.snapshot_chunked",
							 "Take the initial snapshot of a new slot as incremental snapshots (chunks between watermarks, no long transaction).",
							 "Tables need a primary key; records are marked \"incremental\".",
							 &settings_snapshot_chunked, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.snapshot_fetch_size",
							"Rows fetched at a time by the initial snapshot (rows in memory at once).",
							NULL, &settings_snapshot_fetch_size, 10240, 1, 1000000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.incremental_snapshot_chunk_size",
							"Rows per chunk of an incremental snapshot (Debezium's incremental.snapshot.chunk.size).",
							NULL, &settings_incremental_chunk_size, 1024, 1, 1000000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cdc_kafka.snapshot_chunk_timeout",
							"Longest time reading one chunk of an incremental snapshot may take; a chunk not read by then fails its snapshot.",
							"Streaming waits while a chunk is read: this bounds how long a slow row filter can hold it.",
							&settings_snapshot_chunk_timeout_ms, 60000, 1, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, check_chunk_timeout, NULL, NULL);
}

/* ---- record keys, masks and source types (issue 12) ---- */

char	   *settings_message_key_columns = NULL;

/* Empty: unset (Debezium's default); else checked as the plugin checks it. */
static bool
check_message_key_columns(char **newval, void **extra, GucSource source)
{
	char	   *error = **newval == '\0' ? NULL : keycols_check(*newval);

	if (error != NULL)
	{
		GUC_check_errdetail("%s", error);
		return false;
	}
	return true;
}

char	   *settings_column_mask_with_chars = NULL;

static bool
check_column_mask_with_chars(char **newval, void **extra, GucSource source)
{
	char	   *error = colmask_setting_options(*newval, false, NULL, NULL);

	if (error != NULL)
	{
		GUC_check_errdetail("%s", error);
		GUC_check_errhint("Write <n>:<regex list of schema.table.column> entries separated by \";\", "
						  "as column.mask.with.<n>.chars=<regex list>.");
		return false;
	}
	return true;
}

char	   *settings_column_truncate_to_chars = NULL;

static bool
check_column_truncate_to_chars(char **newval, void **extra, GucSource source)
{
	char	   *error = colmask_setting_options(*newval, true, NULL, NULL);

	if (error != NULL)
	{
		GUC_check_errdetail("%s", error);
		GUC_check_errhint("Write <n>:<regex list of schema.table.column> entries separated by \";\", "
						  "as column.truncate.to.<n>.chars=<regex list>.");
		return false;
	}
	return true;
}

char	   *settings_column_mask_hash = NULL;

static bool
check_column_mask_hash(char **newval, void **extra, GucSource source)
{
	char	   *error = colhash_setting_options(*newval, NULL, NULL);

	if (error != NULL)
	{
		GUC_check_errdetail("%s", error);
		GUC_check_errhint("Write [v2:]<algorithm>:<salt>:<regex list of schema.table.column> entries "
						  "separated by \";\", as column.mask.hash.[v2.]<algorithm>.with.salt.<salt>=<regex list>.");
		return false;
	}
	return true;
}

char	   *settings_column_propagate_source_type = NULL;
char	   *settings_datatype_propagate_source_type = NULL;

static bool
check_propagate_source_type(char **newval, void **extra, GucSource source)
{
	char	   *error = colmask_list_error(*newval);

	if (error != NULL)
	{
		GUC_check_errdetail("%s", error);
		return false;
	}
	return true;
}

bool		settings_include_unknown_datatypes = false;
int			settings_record_format = CDC_FORMAT_JSON;
char	   *settings_schema_registry_url = NULL;
char	   *settings_schema_registry_ca_file = NULL;

static const struct config_enum_entry record_formats[] = {
	{"json", CDC_FORMAT_JSON, false},
	{"avro", CDC_FORMAT_AVRO, false},
	{NULL, 0, false}
};

/* Empty, or a URL the plugin option schema_registry_url takes. */
static bool
check_schema_registry_url(char **newval, void **extra, GucSource source)
{
	if (**newval == '\0' || pg_strncasecmp(*newval, "http://", 7) == 0 ||
		pg_strncasecmp(*newval, "https://", 8) == 0)
		return true;
	GUC_check_errdetail("The schema registry's base URL starts with http:// or https://.");
	return false;
}

static void
define_avro_settings(void)
{
	DefineCustomEnumVariable("cdc_kafka.format",
							 "How keys and values are written: json (JsonConverter) or avro (Confluent wire format, schemas in cdc_kafka.schema_registry_url).",
							 NULL, &settings_record_format, CDC_FORMAT_JSON, record_formats,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.schema_registry_url",
							   "Base URL of the schema registry's Confluent-compatible API, for cdc_kafka.format = avro.",
							   "Empty: none.",
							   &settings_schema_registry_url, "", PGC_SIGHUP, 0,
							   check_schema_registry_url, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.schema_registry_ca_file",
							   "PEM file of the certificates that sign an https:// schema registry's, instead of the system's.",
							   "Empty: the system's CA certificates.  The registry's user and password go in "
							   "cdc_kafka.kafka_secrets_file (schema.registry.basic.auth.user.info).",
							   &settings_schema_registry_ca_file, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY,
							   NULL, NULL, NULL);
}

static void
define_keys_settings(void)
{
	DefineCustomBoolVariable("cdc_kafka.include_unknown_datatypes",
							 "Send columns of types Debezium cannot map as binary text (include.unknown.datatypes).",
							 NULL, &settings_include_unknown_datatypes, false, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.column_propagate_source_type",
							   "Columns whose schemas carry their source type: regex list of schema.table.column (column.propagate.source.type).",
							   "Empty: none.",
							   &settings_column_propagate_source_type, "", PGC_SIGHUP, 0,
							   check_propagate_source_type, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.datatype_propagate_source_type",
							   "Columns whose schemas carry their source type: regex list of schema.table.typname (datatype.propagate.source.type).",
							   "Empty: none.",
							   &settings_datatype_propagate_source_type, "", PGC_SIGHUP, 0,
							   check_propagate_source_type, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.column_mask_hash",
							   "Hashed columns: [v2:]<algorithm>:<salt>:<regex list>;... (column.mask.hash.*).",
							   "Empty: none.",
							   &settings_column_mask_hash, "", PGC_SIGHUP, 0,
							   check_column_mask_hash, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.column_truncate_to_chars",
							   "Truncated columns: <n>:<regex list>;... (column.truncate.to.<n>.chars).",
							   "Empty: none.",
							   &settings_column_truncate_to_chars, "", PGC_SIGHUP, 0,
							   check_column_truncate_to_chars, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.column_mask_with_chars",
							   "Masked columns: <n>:<regex list>;... (column.mask.with.<n>.chars).",
							   "Empty: none.",
							   &settings_column_mask_with_chars, "", PGC_SIGHUP, 0,
							   check_column_mask_with_chars, NULL, NULL);
	DefineCustomStringVariable("cdc_kafka.message_key_columns",
							   "Record key columns per table: <table regex>:<column>,...;... (message.key.columns).",
							   "Empty: the primary key.",
							   &settings_message_key_columns, "", PGC_SIGHUP, 0,
							   check_message_key_columns, NULL, NULL);
}

void
settings_define(void)
{
	define_connection_settings();
	define_format_settings();
	define_flow_settings();
	define_snapshot_settings();
	define_keys_settings();
	define_avro_settings();
	MarkGUCPrefixReserved("cdc_kafka");
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = hide_refused_properties;
}
