/*-------------------------------------------------------------------------
 *
 * producer.c
 *		The Kafka producer of a streaming worker: librdkafka configured for
 *		the guarantees cdc_kafka gives, and its callbacks.
 *
 * The producer is idempotent with acks=all (no duplicates or reordering
 * within a producer session), retries forever (message.timeout.ms=0: a
 * broker outage stalls the stream instead of dropping records) and
 * partitions keys with murmur2_random, which puts a key on the partition
 * Kafka's Java producer, and so Debezium, would choose.
 *
 * librdkafka runs its own threads.  Nothing here runs on them, and nothing
 * here runs inside librdkafka's frames either: delivery reports, errors and
 * log lines (log.queue=true) arrive as events on librdkafka's main queue,
 * which producer_poll() takes off one at a time on the worker's own thread
 * and handles after librdkafka has returned, so they may touch PostgreSQL
 * state, allocate and use elog (an ERROR there cannot longjmp through
 * librdkafka).  No callback is registered.
 *
 * The main queue also writes a byte to a pipe whenever it becomes
 * non-empty: producer_wait() sleeps on one WaitEventSet for that pipe, the
 * process latch and postmaster death, so a worker waiting for Kafka (even
 * for ever, during a broker outage: records never time out) still sees
 * SIGTERM, commands and the death of its postmaster at once.
 *
 * Secret properties (passwords, private keys: the list is librdkafka's)
 * come only from the file named by cdc_kafka.kafka_secrets_file, which must
 * be the server user's and readable by it alone, and are never logged:
 * errors name the property and the line, never a value or a line's text.
 *
 * The settings a producer is made of come from its caller (stream.c) in a
 * CdcProducerConfig; settings.c checks kafka_properties with
 * producer_check_properties, so this module reads no setting itself.
 *
 * src/worker/producer.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "plugin/compat.h"
#include "plugin/registry.h"
#include "worker/producer.h"

struct CdcProducer
{
	rd_kafka_t *rk;
	rd_kafka_queue_t *mainq;	/* delivery reports, errors, log lines */
	int			wakeup[2];		/* pipe the main queue writes to when non-empty */
	WaitEventSet *waitset;		/* latch, postmaster death, wakeup[0] */
	producer_delivery_cb on_delivery;
	void	   *cb_arg;
	bool		fatal;
	rd_kafka_resp_err_t fatal_code;
	char		fatal_reason[512];
	bool		transactional;
	int64		transient_errors;
	char		transient_reason[512];	/* the last one */
	HTAB	   *topics;			/* TopicHandle by name */
	struct TopicHandle *last_topic;	/* the previous record's */
};

/*
 * Room for the longest topic name librdkafka accepts (512 bytes; Kafka
 * itself allows 249 characters) and its NUL.
 */
#define TOPIC_KEY_LEN	513

/* The producer's handle of one topic, kept for the producer's life. */
typedef struct TopicHandle
{
	char		name[TOPIC_KEY_LEN];	/* hash key */
	rd_kafka_topic_t *rkt;
} TopicHandle;

/* Properties cdc_kafka sets itself; overriding them would void its guarantees. */
static const char *const managed_properties[] = {
	"bootstrap.servers", "metadata.broker.list", "enable.idempotence", "acks",
	"request.required.acks", "partitioner", "message.timeout.ms",
	"delivery.timeout.ms", "transactional.id", "log.queue", NULL
};

static bool
is_managed(const char *name)
{
	for (int i = 0; managed_properties[i] != NULL; i++)
	{
		if (strcmp(name, managed_properties[i]) == 0)
			return true;
	}
	return false;
}

/*
 * The properties that carry key material or a password, from librdkafka
 * 2.0.2's CONFIGURATION.md: they must come from the secrets file.  ssl_key is
 * the private key set through rd_kafka_conf_set_ssl_cert() (librdkafka
 * refuses it as a property; it is listed so that it is refused as a secret,
 * without its value in the message).  sasl.oauthbearer.config may hold the
 * unsecured JWT's principal and extensions or a token.  Certificates
 * (ssl.certificate.pem, ssl.ca.pem) are public: a client sends its own in
 * the clear during every TLS handshake.  Paths (ssl.key.location,
 * ssl.keystore.location, sasl.kerberos.keytab) are not secrets either; the
 * files they name must be protected like the secrets file.  The schema
 * registry's user and password (format 'avro') are not librdkafka's but go
 * there too.
 */
static const char *const secret_properties[] = {
	"sasl.password", "ssl.key.password", "ssl.key.pem", "ssl_key",
	"ssl.keystore.password", "sasl.oauthbearer.client.secret",
	"sasl.oauthbearer.config", "schema.registry.basic.auth.user.info", NULL
};

static bool
is_secret(const char *name)
{
	for (int i = 0; secret_properties[i] != NULL; i++)
	{
		if (pg_strcasecmp(name, secret_properties[i]) == 0)
			return true;
	}
	/* a later librdkafka's new password or secret is one too */
	return strstr(name, "password") != NULL || strstr(name, "secret") != NULL;
}

/* ---- "name=value; name=value" ---------------------------------------------- */

typedef bool (*property_fn) (const char *name, const char *value, void *arg,
							 char *errbuf, size_t errlen);

static char *
trim(char *s)
{
	char	   *end;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/*
 * Call fn for each name=value of a "name=value; name=value" list; stop at a
 * failure.  An item that is not name=value is named by its position: it may
 * be a secret written the wrong way ("sasl.password: ...").
 */
static bool
for_each_property(const char *text, property_fn fn, void *arg,
				  char *errbuf, size_t errlen)
{
	char	   *copy = strdup(text ? text : "");
	char	   *item = copy;
	bool		ok = true;
	int			n = 0;
	size_t		len;

	if (copy == NULL)
	{
		snprintf(errbuf, errlen, "Out of memory.");
		return false;
	}
	len = strlen(copy);
	while (ok && item != NULL)
	{
		char	   *next = strchr(item, ';');
		char	   *eq;

		if (next != NULL)
			*next++ = '\0';
		item = trim(item);
		n++;
		if (*item != '\0' && *item != '#')
		{
			eq = strchr(item, '=');
			if (eq == NULL || eq == item)
			{
				snprintf(errbuf, errlen, "Item %d of the list is not of the form name=value.", n);
				ok = false;
				break;
			}
			*eq = '\0';
			ok = fn(trim(item), trim(eq + 1), arg, errbuf, errlen);
		}
		item = next;
	}
	explicit_bzero(copy, len);
	free(copy);
	return ok;
}

/* Where a property comes from: cdc_kafka.kafka_properties or the secrets file. */
typedef struct PropertyTarget
{
	rd_kafka_conf_t *conf;
	bool		secret;
} PropertyTarget;

static bool
set_property(const char *name, const char *value, void *arg, char *errbuf, size_t errlen)
{
	PropertyTarget *t = arg;
	char		rderr[256];

	if (is_managed(name))
	{
		snprintf(errbuf, errlen, "Property \"%s\" is set by cdc_kafka and cannot be changed.", name);
		return false;
	}
	if (!t->secret && is_secret(name))
	{
		snprintf(errbuf, errlen, "Property \"%s\" is a secret: put it in cdc_kafka.kafka_secrets_file.", name);
		return false;
	}
	if (rd_kafka_conf_set(t->conf, name, value, rderr, sizeof(rderr)) == RD_KAFKA_CONF_OK)
		return true;
	/* librdkafka's message may quote a secret value: do not pass it on */
	if (t->secret)
		snprintf(errbuf, errlen, "librdkafka rejects the value of secret property \"%s\".", name);
	else
		snprintf(errbuf, errlen, "librdkafka rejects property \"%s\": %s", name, rderr);
	return false;
}

/*
 * The properties cdc_kafka sets itself, for a check of the whole
 * configuration; and plaintext, so that the check neither needs the secrets
 * (SASL wants its password, an encrypted key its passphrase) nor does what
 * rd_kafka_new does for SASL and TLS at once (kinit, reading key files):
 * those are the worker's to do, and to report in its status.
 */
static bool
set_managed(rd_kafka_conf_t *conf, char *errbuf, size_t errlen)
{
	static const char *const managed[][2] = {
		{"enable.idempotence", "true"}, {"acks", "all"},
		{"partitioner", "murmur2_random"}, {"message.timeout.ms", "0"},
		{"security.protocol", "plaintext"}, {NULL, NULL}
	};

	for (int i = 0; managed[i][0] != NULL; i++)
	{
		if (rd_kafka_conf_set(conf, managed[i][0], managed[i][1], errbuf, errlen) != RD_KAFKA_CONF_OK)
			return false;
	}
	return true;
}

/* librdkafka's warnings about a configuration only checked need not be seen */
static void
quiet_log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
}

/*
 * Check hook helper of cdc_kafka.kafka_properties.  Each property must be
 * one librdkafka takes, and the whole configuration, with the properties
 * cdc_kafka sets, one it can make a producer of (max.in.flight > 5 or
 * retries = 0 contradict idempotence, ...).  The producer made to check is destroyed at once: without brokers it
 * connects to nothing.  The last value found good is remembered, so that a
 * reload that does not change it, and every process forked after the
 * postmaster checked it, do not check it again.
 */
bool
producer_check_properties(const char *props, char *errbuf, size_t errlen)
{
	static char *checked_ok = NULL;
	PropertyTarget t;
	rd_kafka_t *rk;
	char		rderr[512];

	if (checked_ok != NULL && strcmp(checked_ok, props ? props : "") == 0)
		return true;
	t.conf = rd_kafka_conf_new();
	t.secret = false;
	if (!for_each_property(props, set_property, &t, errbuf, errlen))
	{
		rd_kafka_conf_destroy(t.conf);
		return false;
	}
	if (!set_managed(t.conf, rderr, sizeof(rderr)))
	{
		rd_kafka_conf_destroy(t.conf);
		snprintf(errbuf, errlen, "librdkafka rejects the configuration: %s", rderr);
		return false;
	}
	rd_kafka_conf_set_log_cb(t.conf, quiet_log_cb);
	rk = rd_kafka_new(RD_KAFKA_PRODUCER, t.conf, rderr, sizeof(rderr));
	if (rk == NULL)
	{
		rd_kafka_conf_destroy(t.conf);
		snprintf(errbuf, errlen, "librdkafka rejects the configuration: %s", rderr);
		return false;
	}
	rd_kafka_destroy(rk);
	free(checked_ok);
	checked_ok = strdup(props ? props : "");
	return true;
}

/* ---- events, all handled by producer_poll on the worker's thread ------------- */

static void
handle_delivery(CdcProducer *p, rd_kafka_event_t *ev)
{
	const rd_kafka_message_t *msg;

	while ((msg = rd_kafka_event_message_next(ev)) != NULL)
		p->on_delivery(p->cb_arg, msg->_private, msg->err, msg);
}

static void
handle_error(CdcProducer *p, rd_kafka_event_t *ev)
{
	rd_kafka_resp_err_t err = rd_kafka_event_error(ev);

	if (rd_kafka_event_error_is_fatal(ev))
	{
		char		buf[400];
		rd_kafka_resp_err_t orig = rd_kafka_fatal_error(p->rk, buf, sizeof(buf));

		p->fatal = true;
		p->fatal_code = orig;
		snprintf(p->fatal_reason, sizeof(p->fatal_reason), "%s: %s",
				 rd_kafka_err2name(orig), buf);
		return;
	}
	/* transient (broker down, connection refused): librdkafka keeps retrying */
	p->transient_errors++;
	snprintf(p->transient_reason, sizeof(p->transient_reason), "%s: %s",
			 rd_kafka_err2name(err), rd_kafka_event_error_string(ev));
	ereport(LOG,
			(errmsg("Kafka client: %s: %s", rd_kafka_err2name(err),
					rd_kafka_event_error_string(ev))));
}

/* A line librdkafka repeats (a retry loop) is logged once per this long. */
#define LOG_REPEAT_MS 60000

static void
handle_log(rd_kafka_event_t *ev)
{
	static char last[256];
	static TimestampTz last_time = 0;
	static int64 repeats = 0;
	const char *fac;
	const char *buf;
	int			level;
	char		line[256];

	/* syslog levels: only warnings and worse are worth the server log */
	if (rd_kafka_event_log(ev, &fac, &buf, &level) != 0 || level > 4)
		return;
	snprintf(line, sizeof(line), "%s: %s", fac, buf);
	if (strcmp(line, last) == 0 &&
		!TimestampDifferenceExceeds(last_time, GetCurrentTimestamp(), LOG_REPEAT_MS))
	{
		repeats++;
		return;
	}
	if (repeats > 0 && strcmp(line, last) == 0)
		ereport(LOG, (errmsg("Kafka client %s: %s (and " INT64_FORMAT " times more in the last minute)",
							 fac, buf, repeats)));
	else
		ereport(LOG, (errmsg("Kafka client %s: %s", fac, buf)));
	strlcpy(last, line, sizeof(last));
	last_time = GetCurrentTimestamp();
	repeats = 0;
}

/* Handle one event; it is destroyed even if handling it raises an ERROR. */
static void
handle_event(CdcProducer *p, rd_kafka_event_t *ev)
{
	PG_TRY();
	{
		switch (rd_kafka_event_type(ev))
		{
			case RD_KAFKA_EVENT_DR:
				handle_delivery(p, ev);
				break;
			case RD_KAFKA_EVENT_ERROR:
				handle_error(p, ev);
				break;
			case RD_KAFKA_EVENT_LOG:
				handle_log(ev);
				break;
			default:
				break;
		}
	}
	PG_CATCH();
	{
		rd_kafka_event_destroy(ev);
		PG_RE_THROW();
	}
	PG_END_TRY();
	rd_kafka_event_destroy(ev);
}

/* ---- life cycle ------------------------------------------------------------- */

static void
conf_set_or_fail(rd_kafka_conf_t *conf, const char *name, const char *value)
{
	char		errbuf[256];

	if (rd_kafka_conf_set(conf, name, value, errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cdc_kafka could not set Kafka property \"%s\": %s", name, errbuf)));
}

/*
 * The secrets file, whole.  It must be a regular file of the server's OS
 * user that no one else may read or write: PostgreSQL asks the same of its
 * TLS key.
 */
static char *
read_secrets_file(const char *path)
{
	FILE	   *f;
	struct stat st;
	StringInfoData buf;
	char		chunk[4096];
	size_t		n;

	f = AllocateFile(path, "r");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open cdc_kafka.kafka_secrets_file \"%s\": %m", path)));
	if (fstat(fileno(f), &st) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat cdc_kafka.kafka_secrets_file \"%s\": %m", path)));
	if (!S_ISREG(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("cdc_kafka.kafka_secrets_file \"%s\" is not a regular file", path)));
	if (st.st_uid != geteuid())
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("cdc_kafka.kafka_secrets_file \"%s\" is not owned by the server's user", path),
				 errdetail("Its owner has user ID %u; the server runs as user ID %u.",
						   (unsigned) st.st_uid, (unsigned) geteuid()),
				 errhint("Make the server's OS user its owner and run chmod 600 on it.")));
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("cdc_kafka.kafka_secrets_file \"%s\" is accessible by group or others", path),
				 errdetail("Its permissions are %04o.", (unsigned) (st.st_mode & 07777)),
				 errhint("Make it readable by the server's OS user alone: chmod 600.")));
	initStringInfo(&buf);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		appendBinaryStringInfo(&buf, chunk, n);
	explicit_bzero(chunk, sizeof(chunk));
	if (ferror(f))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read cdc_kafka.kafka_secrets_file \"%s\": %m", path)));
	FreeFile(f);
	return buf.data;
}

/* The next line of *rest (NUL-terminated in place), or NULL at the end. */
static char *
next_line(char **rest)
{
	char	   *line = *rest;
	char	   *nl;

	if (line == NULL || *line == '\0')
		return NULL;
	nl = strchr(line, '\n');
	if (nl != NULL)
		*nl++ = '\0';
	*rest = nl;
	return line;
}

/*
 * A PEM value (ssl.key.pem) goes on over the lines that follow its
 * "-----BEGIN ..." up to its "-----END ..." line: join them, with their
 * newlines, after the first.  Returns false if the END line is missing.
 */
static bool
join_pem(char *value, char **rest, int *lineno)
{
	char	   *end = value + strlen(value);
	char	   *line;

	if (strncmp(value, "-----BEGIN ", 11) == 0 && strstr(value, "-----END ") == NULL)
	{
		while ((line = next_line(rest)) != NULL)
		{
			size_t		len;

			(*lineno)++;
			line = trim(line);
			len = strlen(line);
			*end++ = '\n';
			memmove(end, line, len + 1);
			end += len;
			if (strncmp(line, "-----END ", 9) == 0)
				return true;
		}
		return false;
	}
	return true;
}

/*
 * The secrets file's lines for the schema registry (format 'avro') are not
 * librdkafka's: schema.registry.basic.auth.user.info=user:password, as in
 * Confluent's clients, is what the worker sends the registry.
 */
#define SCHEMA_REGISTRY_PREFIX		"schema.registry."
#define SCHEMA_REGISTRY_USER_INFO	"schema.registry.basic.auth.user.info"

static bool
set_registry_secret(const char *name, const char *value, char *errbuf, size_t errlen)
{
	if (pg_strcasecmp(name, SCHEMA_REGISTRY_USER_INFO) != 0)
	{
		snprintf(errbuf, errlen, "Unknown schema registry property \"%s\"; the secrets file takes \"%s\".",
				 name, SCHEMA_REGISTRY_USER_INFO);
		return false;
	}
	if (strchr(value, ':') == NULL || value[0] == ':')
	{
		snprintf(errbuf, errlen, "The value of \"%s\" is not of the form user:password.", name);
		return false;
	}
	registry_set_user_info(value);
	return true;
}

/*
 * Set the properties of the secrets file, name=value lines (# comments).
 * Errors name the line and, when it has one, the property, never a value:
 * a line that is not name=value may be a secret written the wrong way.
 */
static bool
set_secret_properties(rd_kafka_conf_t *conf, char *text, char *errbuf, size_t errlen)
{
	PropertyTarget t = {conf, true};
	char	   *rest = text;
	char	   *line;
	int			lineno = 0;

	while ((line = next_line(&rest)) != NULL)
	{
		int			first = ++lineno;
		char	   *eq;
		char	   *name;
		char	   *value;
		char		why[400];

		line = trim(line);
		if (*line == '\0' || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (eq == NULL || eq == line)
		{
			snprintf(errbuf, errlen, "Line %d is not of the form name=value.", first);
			return false;
		}
		*eq = '\0';
		name = trim(line);
		value = trim(eq + 1);
		if (!join_pem(value, &rest, &lineno))
		{
			snprintf(errbuf, errlen, "Line %d: the PEM value of property \"%s\" has no \"-----END\" line.",
					 first, name);
			return false;
		}
		if (pg_strncasecmp(name, SCHEMA_REGISTRY_PREFIX, strlen(SCHEMA_REGISTRY_PREFIX)) == 0)
		{
			if (!set_registry_secret(name, value, why, sizeof(why)))
			{
				snprintf(errbuf, errlen, "Line %d: %s", first, why);
				return false;
			}
			continue;
		}
		if (!set_property(name, value, &t, why, sizeof(why)))
		{
			snprintf(errbuf, errlen, "Line %d: %s", first, why);
			return false;
		}
	}
	return true;
}

static void
apply_properties(rd_kafka_conf_t *conf, const CdcProducerConfig *cfg)
{
	char		errbuf[512];
	PropertyTarget user = {conf, false};

	if (!for_each_property(cfg->properties, set_property, &user,
						   errbuf, sizeof(errbuf)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"cdc_kafka.kafka_properties\""),
				 errdetail("%s", errbuf)));
	registry_set_user_info(NULL);	/* unless the secrets file has them */
	if (cfg->secrets_file != NULL && cfg->secrets_file[0] != '\0')
	{
		char	   *secrets = read_secrets_file(cfg->secrets_file);
		size_t		len = strlen(secrets);
		bool		ok = set_secret_properties(conf, secrets, errbuf, sizeof(errbuf));

		explicit_bzero(secrets, len);
		pfree(secrets);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIG_FILE_ERROR),
					 errmsg("invalid contents of cdc_kafka.kafka_secrets_file \"%s\"",
							cfg->secrets_file),
					 errdetail("%s", errbuf)));
	}
}

/*
 * The configuration of another client of the same cluster (the offsets
 * topic's reader and admin): the same servers, properties and secrets, its
 * log lines dropped below warnings (they would come on librdkafka's threads).
 */
rd_kafka_conf_t *
producer_client_conf(const CdcProducerConfig *cfg, const char *role)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char		client_id[NAMEDATALEN + 32];

	snprintf(client_id, sizeof(client_id), "cdc_kafka-%s-%s", cfg->dbname, role);
	conf_set_or_fail(conf, "client.id", client_id);
	apply_properties(conf, cfg);
	conf_set_or_fail(conf, "bootstrap.servers", cfg->bootstrap_servers);
	rd_kafka_conf_set_log_cb(conf, quiet_log_cb);
	return conf;
}

static void
close_wakeup_pipe(CdcProducer *p)
{
	close(p->wakeup[0]);
	close(p->wakeup[1]);
	ReleaseExternalFD();
	ReleaseExternalFD();
}

/* The pipe librdkafka's main queue signals on (both ends non-blocking). */
static void
open_wakeup_pipe(CdcProducer *p, rd_kafka_conf_t *conf)
{
	if (pipe(p->wakeup) != 0)
	{
		int			save_errno = errno;

		rd_kafka_conf_destroy(conf);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("cdc_kafka could not create a pipe for its Kafka producer: %m")));
	}
	ReserveExternalFD();
	ReserveExternalFD();
	if (fcntl(p->wakeup[0], F_SETFL, O_NONBLOCK) != 0 ||
		fcntl(p->wakeup[1], F_SETFL, O_NONBLOCK) != 0)
	{
		int			save_errno = errno;

		close_wakeup_pipe(p);
		rd_kafka_conf_destroy(conf);
		errno = save_errno;
		elog(ERROR, "cdc_kafka could not make its wakeup pipe non-blocking: %m");
	}
}

/* Empty the wakeup pipe: the queue is served right after. */
static void
drain_wakeup_pipe(CdcProducer *p)
{
	char		buf[64];

	while (read(p->wakeup[0], buf, sizeof(buf)) > 0)
		;
}

/*
 * Create the producer cfg describes.  on_delivery is called from
 * producer_poll for every record, with the opaque given to producer_send.
 */
CdcProducer *
producer_create(const CdcProducerConfig *cfg, producer_delivery_cb on_delivery, void *cb_arg)
{
	CdcProducer *p = MemoryContextAllocZero(TopMemoryContext, sizeof(CdcProducer));
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char		errbuf[512];
	char		client_id[NAMEDATALEN + 16];

	p->on_delivery = on_delivery;
	p->cb_arg = cb_arg;
	snprintf(client_id, sizeof(client_id), "cdc_kafka-%s", cfg->dbname);
	conf_set_or_fail(conf, "client.id", client_id);
	/*
	 * Debezium's records compress well (the schemas repeat): lz4 halves the
	 * producer's and the broker's work.  cdc_kafka.kafka_properties may say
	 * otherwise; consumers decompress whatever the batch says.
	 */
	conf_set_or_fail(conf, "compression.type", "lz4");
	/*
	 * A record waits this long for others to share its batch (librdkafka's
	 * default is 5 ms): at a steady rate that is most of the latency, and a
	 * catch-up fills batches while earlier ones are in flight regardless.
	 */
	conf_set_or_fail(conf, "linger.ms", "1");
	/* cdc_kafka.max_inflight_bytes bounds what is queued, not librdkafka */
	conf_set_or_fail(conf, "queue.buffering.max.messages", "10000000");
	conf_set_or_fail(conf, "queue.buffering.max.kbytes", "2147483647");
	apply_properties(conf, cfg);
	/*
	 * A broker refuses a produce batch whole: to tell which record it cannot
	 * take, records travel alone until the stream is past the refusal.
	 */
	if (cfg->one_per_batch)
	{
		conf_set_or_fail(conf, "batch.num.messages", "1");
		conf_set_or_fail(conf, "linger.ms", "0");
	}
	conf_set_or_fail(conf, "bootstrap.servers", cfg->bootstrap_servers);
	conf_set_or_fail(conf, "enable.idempotence", "true");
	conf_set_or_fail(conf, "acks", "all");
	conf_set_or_fail(conf, "partitioner", "murmur2_random");
	if (cfg->transactional_id != NULL)
	{
		/*
		 * A record may wait no longer than its transaction lives (the
		 * default, transaction.timeout.ms): one that times out aborts the
		 * transaction, and the stream starts again from its last commit.
		 */
		conf_set_or_fail(conf, "transactional.id", cfg->transactional_id);
		p->transactional = true;
	}
	else
		conf_set_or_fail(conf, "message.timeout.ms", "0");
	conf_set_or_fail(conf, "log.queue", "true");
	rd_kafka_conf_set_events(conf, RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_LOG);
	open_wakeup_pipe(p, conf);

	p->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errbuf, sizeof(errbuf));
	if (p->rk == NULL)
	{
		close_wakeup_pipe(p);
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("cdc_kafka could not create its Kafka producer: %s", errbuf)));
	}
	/* log lines go to the main queue too, handled by producer_poll */
	rd_kafka_set_log_queue(p->rk, NULL);
	p->mainq = rd_kafka_queue_get_main(p->rk);
	rd_kafka_queue_io_event_enable(p->mainq, p->wakeup[1], "1", 1);
	p->waitset = compat_create_wait_event_set(3);
	AddWaitEventToSet(p->waitset, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(p->waitset, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(p->waitset, WL_SOCKET_READABLE, p->wakeup[0], NULL, NULL);
	return p;
}

/*
 * Set *rkt to the handle of a topic, created at its first record.  Given a
 * name instead, librdkafka looks it up in the list of every topic it knows,
 * under a lock, for each record: with a thousand captured tables that walk
 * was over half of the worker's main thread.  Returns the error of a name
 * librdkafka refuses.
 */
static rd_kafka_resp_err_t
topic_handle(CdcProducer *p, const char *name, rd_kafka_topic_t **rkt)
{
	TopicHandle *th;
	bool		found;

	if (p->last_topic != NULL && strcmp(p->last_topic->name, name) == 0)
	{
		*rkt = p->last_topic->rkt;
		return RD_KAFKA_RESP_ERR_NO_ERROR;
	}
	if (strlen(name) >= TOPIC_KEY_LEN)
		return RD_KAFKA_RESP_ERR__INVALID_ARG;	/* as rd_kafka_topic_new says */
	if (p->topics == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = TOPIC_KEY_LEN;
		ctl.entrysize = sizeof(TopicHandle);
		ctl.hcxt = TopMemoryContext;
		p->topics = hash_create("cdc_kafka topic handles", 64, &ctl,
								HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	th = hash_search(p->topics, name, HASH_ENTER, &found);
	if (!found)
	{
		th->rkt = rd_kafka_topic_new(p->rk, name, NULL);
		if (th->rkt == NULL)
		{
			rd_kafka_resp_err_t err = rd_kafka_last_error();

			hash_search(p->topics, name, HASH_REMOVE, NULL);
			return err != RD_KAFKA_RESP_ERR_NO_ERROR ? err : RD_KAFKA_RESP_ERR__INVALID_ARG;
		}
	}
	p->last_topic = th;
	*rkt = th->rkt;
	return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Give back the topic handles; before rd_kafka_destroy, which waits for them. */
static void
release_topic_handles(CdcProducer *p)
{
	HASH_SEQ_STATUS seq;
	TopicHandle *th;

	if (p->topics == NULL)
		return;
	hash_seq_init(&seq, p->topics);
	while ((th = hash_seq_search(&seq)) != NULL)
		rd_kafka_topic_destroy(th->rkt);
	hash_destroy(p->topics);
	p->topics = NULL;
	p->last_topic = NULL;
}

/*
 * Hand one record to librdkafka.  Returns RD_KAFKA_RESP_ERR_NO_ERROR, or
 * the error of a record librdkafka refuses outright (too large, ...);
 * a full local queue is waited out here (the caller's back-pressure keeps
 * that rare).
 */
rd_kafka_resp_err_t
producer_send(CdcProducer *p, const CdcOutRecord *rec, void *opaque)
{
	for (;;)
	{
		rd_kafka_headers_t *hdrs = NULL;
		rd_kafka_resp_err_t err;
		rd_kafka_topic_t *rkt = NULL;

		err = topic_handle(p, rec->topic, &rkt);
		if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
			return err;
		if (rec->nheaders > 0)
		{
			hdrs = rd_kafka_headers_new(rec->nheaders);
			for (int i = 0; i < rec->nheaders; i++)
				rd_kafka_header_add(hdrs, rec->header_names[i], -1,
									rec->header_values[i], rec->header_lens[i]);
		}
		err = rd_kafka_producev(p->rk,
								RD_KAFKA_V_RKT(rkt),
								RD_KAFKA_V_PARTITION(rec->partition),
								RD_KAFKA_V_TIMESTAMP(rec->timestamp),
								RD_KAFKA_V_KEY(rec->key, rec->keylen),
								RD_KAFKA_V_VALUE((void *) rec->value, rec->valuelen),
								RD_KAFKA_V_HEADERS(hdrs),
								RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
								RD_KAFKA_V_OPAQUE(opaque),
								RD_KAFKA_V_END);
		if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
			return err;
		if (hdrs != NULL)
			rd_kafka_headers_destroy(hdrs);
		if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return err;
		producer_wait(p, 100);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Wait, at most timeout_ms, until a broker answers.  A record produced
 * before the first connection waits for librdkafka's next scan of unknown
 * topics, a second later: every session would start with that stall.
 */
void
producer_connect(CdcProducer *p, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 250)
	{
		const struct rd_kafka_metadata *md;

		if (rd_kafka_metadata(p->rk, 0, NULL, &md, 250) == RD_KAFKA_RESP_ERR_NO_ERROR)
		{
			rd_kafka_metadata_destroy(md);
			return;
		}
		/* rd_kafka_metadata cannot wait on the latch: look every 250 ms */
		if (!PostmasterIsAlive())
			proc_exit(1);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Handle the delivery reports, errors and log lines librdkafka has queued;
 * returns how many events there were.  Never waits.
 */
int
producer_poll(CdcProducer *p)
{
	rd_kafka_event_t *ev;
	int			n = 0;

	drain_wakeup_pipe(p);
	while ((ev = rd_kafka_queue_poll(p->mainq, 0)) != NULL)
	{
		handle_event(p, ev);
		n++;
	}
	return n;
}

/*
 * Sleep until librdkafka has something for producer_poll, the latch is set
 * or timeout_ms pass, then handle what librdkafka queued.  If the postmaster
 * dies meanwhile the process exits at once (proc_exit(1), confirming
 * nothing); a SIGTERM sets the latch, for the caller's CHECK_FOR_INTERRUPTS.
 */
void
producer_wait(CdcProducer *p, long timeout_ms)
{
	WaitEvent	event;

	if (rd_kafka_queue_length(p->mainq) == 0 &&
		WaitEventSetWait(p->waitset, timeout_ms, &event, 1, PG_WAIT_EXTENSION) == 1 &&
		(event.events & WL_LATCH_SET))
		ResetLatch(MyLatch);
	(void) producer_poll(p);
}

/* ---- Kafka transactions (cdc_kafka.delivery = exactly_once) -------------------- */

/*
 * The transactional calls block; each is given this long, then the worker
 * serves its queue, interrupts and postmaster death before calling again
 * (a call that timed out is retriable and resumes where it was).
 */
#define TXN_CALL_MS 500

/* Did another producer with this transactional.id take over? */
static bool
fenced_code(rd_kafka_resp_err_t code)
{
	return code == RD_KAFKA_RESP_ERR__FENCED ||
		code == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
		code == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

/* The hint for an error of a transactional call: what the operator can do. */
static const char *
txn_hint(rd_kafka_resp_err_t code)
{
	switch (code)
	{
		case RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
		case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
		case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
			return "Grant the worker's Kafka principal WRITE and DESCRIBE on its transactional id, "
				"and WRITE on the topics, or set cdc_kafka.delivery = at_least_once.";
		case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
		case RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT:
		case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
			return "exactly_once needs Kafka transactions (brokers 0.11 or newer, "
				"transaction.state.log.* settings the cluster can meet), or set cdc_kafka.delivery = at_least_once.";
		default:
			return NULL;
	}
}

/*
 * A transactional call failed for good: remember a fatal error (fencing
 * among them) for producer_fenced, then raise it.
 */
static void
txn_error(CdcProducer *p, const char *call, rd_kafka_error_t *error)
{
	rd_kafka_resp_err_t code = rd_kafka_error_code(error);
	char		reason[512];
	const char *hint = txn_hint(code);

	snprintf(reason, sizeof(reason), "%s: %s", rd_kafka_error_name(error),
			 rd_kafka_error_string(error));
	if (rd_kafka_error_is_fatal(error) || fenced_code(code))
	{
		p->fatal = true;
		p->fatal_code = code;
		strlcpy(p->fatal_reason, reason, sizeof(p->fatal_reason));
	}
	rd_kafka_error_destroy(error);
	if (fenced_code(code))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("Kafka producer fenced at transaction %s: %s", call, reason),
				 errdetail("Another producer with this worker's transactional id took over the stream."),
				 errhint("Another server streams the same slot (a copy of this one?). Stop one of them; then cdc_kafka.restart() here.")));
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("Kafka transaction %s failed: %s", call, reason),
			 hint ? errhint("%s", hint) : 0));
}

/* Sleep briefly serving the queue; exit with the postmaster, honour SIGTERM. */
static void
txn_pause(CdcProducer *p)
{
	producer_wait(p, 10);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Register the transactional id with its coordinator: fences any older
 * producer with the same id and aborts the transaction it left open.
 * Waits for ever for an unreachable cluster, as records do.
 */
void
producer_txn_init(CdcProducer *p)
{
	for (;;)
	{
		rd_kafka_error_t *error = rd_kafka_init_transactions(p->rk, TXN_CALL_MS);

		if (error == NULL)
			return;
		if (!rd_kafka_error_is_retriable(error))
			txn_error(p, "initialization", error);
		rd_kafka_error_destroy(error);
		txn_pause(p);
	}
}

void
producer_txn_begin(CdcProducer *p)
{
	rd_kafka_error_t *error = rd_kafka_begin_transaction(p->rk);

	if (error != NULL)
		txn_error(p, "begin", error);
}

/*
 * Commit the open transaction.  The caller has waited for every record's
 * delivery report first (with delivery reports as events, librdkafka's own
 * flush would wait for this thread).  Returns false, with reason, if the
 * transaction cannot commit and must be aborted (a record failed, the
 * coordinator aborted it after transaction.timeout.ms).
 */
bool
producer_txn_commit(CdcProducer *p, char *reason, size_t len)
{
	for (;;)
	{
		rd_kafka_error_t *error = rd_kafka_commit_transaction(p->rk, TXN_CALL_MS);

		if (error == NULL)
			return true;
		if (rd_kafka_error_txn_requires_abort(error))
		{
			snprintf(reason, len, "%s: %s", rd_kafka_error_name(error),
					 rd_kafka_error_string(error));
			rd_kafka_error_destroy(error);
			return false;
		}
		if (!rd_kafka_error_is_retriable(error))
			txn_error(p, "commit", error);
		rd_kafka_error_destroy(error);
		txn_pause(p);
	}
}

/* Abort the open transaction: its records never reach read_committed consumers. */
void
producer_txn_abort(CdcProducer *p)
{
	for (;;)
	{
		rd_kafka_error_t *error = rd_kafka_abort_transaction(p->rk, TXN_CALL_MS);

		if (error == NULL)
			return;
		if (!rd_kafka_error_is_retriable(error))
			txn_error(p, "abort", error);
		rd_kafka_error_destroy(error);
		txn_pause(p);
	}
}

/* Did the producer stop because another one with its transactional.id took over? */
bool
producer_fenced(CdcProducer *p)
{
	return p->fatal && fenced_code(p->fatal_code);
}

/* Records not yet acknowledged, and reports and events not yet served. */
int
producer_outq_len(CdcProducer *p)
{
	return rd_kafka_outq_len(p->rk);
}

bool
producer_failed(CdcProducer *p, const char **reason)
{
	*reason = p->fatal_reason;
	return p->fatal;
}

int64
producer_transient_errors(CdcProducer *p, const char **last_reason)
{
	if (last_reason != NULL)
		*last_reason = p->transient_reason;
	return p->transient_errors;
}

/*
 * Destroy the producer.  What is still queued or in flight is dropped
 * unreported, which loses nothing: its transactions were not confirmed to
 * the slot.  The callers' per-record state (the opaques given to
 * producer_send) is theirs to free: no report comes for it any more.
 * Never waits for a broker, so it is safe when exiting during an outage.
 */
void
producer_destroy(CdcProducer *p)
{
	if (p == NULL)
		return;
	rd_kafka_queue_io_event_enable(p->mainq, -1, NULL, 0);
	rd_kafka_purge(p->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT |
				   RD_KAFKA_PURGE_F_NON_BLOCKING);
	rd_kafka_queue_destroy(p->mainq);
	release_topic_handles(p);
	rd_kafka_destroy(p->rk);
	FreeWaitEventSet(p->waitset);
	close_wakeup_pipe(p);
	pfree(p);
}
