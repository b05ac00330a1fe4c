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
 * Secret properties come from the file named by cdc_kafka.kafka_secrets_file
 * and are never logged; error messages about properties name the property,
 * not its value.
 *
 * src/producer.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <librdkafka/rdkafka.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "utils/memutils.h"

#include "producer.h"
#include "worker.h"

struct CdcProducer
{
	rd_kafka_t *rk;
	rd_kafka_queue_t *mainq;	/* delivery reports, errors, log lines */
	int			wakeup[2];		/* pipe the main queue writes to when non-empty */
	WaitEventSet *waitset;		/* latch, postmaster death, wakeup[0] */
	producer_delivery_cb on_delivery;
	void	   *cb_arg;
	bool		fatal;
	char		fatal_reason[512];
	int64		transient_errors;
	char		transient_reason[512];	/* the last one */
};

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

/* Names that carry secrets must come from the secrets file. */
static bool
is_secret(const char *name)
{
	return strstr(name, "password") != NULL || strstr(name, "secret") != NULL ||
		strstr(name, "jaas") != NULL || strcmp(name, "sasl.oauthbearer.config") == 0;
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

/* Call fn for each name=value of text, separated by sep; stop at a failure. */
static bool
for_each_property(const char *text, char sep, property_fn fn, void *arg,
				  char *errbuf, size_t errlen)
{
	char	   *copy = strdup(text ? text : "");
	char	   *item = copy;
	bool		ok = true;

	while (ok && item != NULL)
	{
		char	   *next = strchr(item, sep);
		char	   *eq;
		char	   *name;

		if (next != NULL)
			*next++ = '\0';
		item = trim(item);
		if (*item != '\0' && *item != '#')
		{
			eq = strchr(item, '=');
			if (eq == NULL)
			{
				snprintf(errbuf, errlen, "Expected name=value, found \"%s\".", item);
				ok = false;
				break;
			}
			*eq = '\0';
			name = trim(item);
			ok = fn(name, trim(eq + 1), arg, errbuf, errlen);
		}
		item = next;
	}
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

/* Check hook helper of cdc_kafka.kafka_properties (no producer is created). */
bool
producer_check_properties(const char *props, char *errbuf, size_t errlen)
{
	PropertyTarget t = {rd_kafka_conf_new(), false};
	bool		ok = for_each_property(props, ';', set_property, &t, errbuf, errlen);

	rd_kafka_conf_destroy(t.conf);
	return ok;
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
		snprintf(p->fatal_reason, sizeof(p->fatal_reason), "%s: %s",
				 rd_kafka_err2name(orig), buf);
		return;
	}
	/* transient (broker down, connection refused): librdkafka keeps retrying */
	p->transient_errors++;
	snprintf(p->transient_reason, sizeof(p->transient_reason), "%s: %s",
			 rd_kafka_err2name(err), rd_kafka_event_error_string(ev));
	ereport(LOG,
			(errmsg("cdc_kafka: Kafka client: %s: %s", rd_kafka_err2name(err),
					rd_kafka_event_error_string(ev))));
}

static void
handle_log(rd_kafka_event_t *ev)
{
	const char *fac;
	const char *buf;
	int			level;

	/* syslog levels: only warnings and worse are worth the server log */
	if (rd_kafka_event_log(ev, &fac, &buf, &level) == 0 && level <= 4)
		ereport(LOG, (errmsg("cdc_kafka: Kafka client %s: %s", fac, buf)));
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

static char *
read_secrets_file(const char *path)
{
	FILE	   *f;
	StringInfoData buf;
	char		line[1024];

	if (path == NULL || path[0] == '\0')
		return NULL;
	f = AllocateFile(path, "r");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open cdc_kafka.kafka_secrets_file \"%s\": %m", path)));
	initStringInfo(&buf);
	while (fgets(line, sizeof(line), f) != NULL)
		appendStringInfoString(&buf, line);
	FreeFile(f);
	return buf.data;
}

static void
apply_properties(rd_kafka_conf_t *conf)
{
	char		errbuf[512];
	char	   *secrets = read_secrets_file(cdc_kafka_secrets_file);
	PropertyTarget user = {conf, false};
	PropertyTarget secret = {conf, true};

	if (!for_each_property(cdc_kafka_properties, ';', set_property, &user,
						   errbuf, sizeof(errbuf)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"cdc_kafka.kafka_properties\""),
				 errdetail("%s", errbuf)));
	if (secrets != NULL &&
		!for_each_property(secrets, '\n', set_property, &secret, errbuf, sizeof(errbuf)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid contents of cdc_kafka.kafka_secrets_file \"%s\"",
						cdc_kafka_secrets_file),
				 errdetail("%s", errbuf)));
	if (secrets != NULL)
	{
		memset(secrets, 0, strlen(secrets));
		pfree(secrets);
	}
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
 * Create the producer for the worker of dbname.  on_delivery is called from
 * producer_poll for every record, with the opaque given to producer_send.
 * one_per_batch: every record in a produce request of its own.
 */
CdcProducer *
producer_create(const char *dbname, producer_delivery_cb on_delivery, void *cb_arg,
				bool one_per_batch)
{
	CdcProducer *p = MemoryContextAllocZero(TopMemoryContext, sizeof(CdcProducer));
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char		errbuf[512];
	char		client_id[NAMEDATALEN + 16];

	p->on_delivery = on_delivery;
	p->cb_arg = cb_arg;
	snprintf(client_id, sizeof(client_id), "cdc_kafka-%s", dbname);
	conf_set_or_fail(conf, "client.id", client_id);
	/*
	 * Debezium's records compress well (the schemas repeat): lz4 halves the
	 * producer's and the broker's work.  cdc_kafka.kafka_properties may say
	 * otherwise; consumers decompress whatever the batch says.
	 */
	conf_set_or_fail(conf, "compression.type", "lz4");
	/* cdc_kafka.max_inflight_bytes bounds what is queued, not librdkafka */
	conf_set_or_fail(conf, "queue.buffering.max.messages", "10000000");
	conf_set_or_fail(conf, "queue.buffering.max.kbytes", "2147483647");
	apply_properties(conf);
	/*
	 * A broker refuses a produce batch whole: to tell which record it cannot
	 * take, records travel alone until the stream is past the refusal.
	 */
	if (one_per_batch)
	{
		conf_set_or_fail(conf, "batch.num.messages", "1");
		conf_set_or_fail(conf, "linger.ms", "0");
	}
	conf_set_or_fail(conf, "bootstrap.servers", cdc_bootstrap_servers);
	conf_set_or_fail(conf, "enable.idempotence", "true");
	conf_set_or_fail(conf, "acks", "all");
	conf_set_or_fail(conf, "partitioner", "murmur2_random");
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
	p->waitset = CreateWaitEventSet(TopMemoryContext, 3);
	AddWaitEventToSet(p->waitset, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(p->waitset, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(p->waitset, WL_SOCKET_READABLE, p->wakeup[0], NULL, NULL);
	return p;
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

		if (rec->nheaders > 0)
		{
			hdrs = rd_kafka_headers_new(rec->nheaders);
			for (int i = 0; i < rec->nheaders; i++)
				rd_kafka_header_add(hdrs, rec->header_names[i], -1,
									rec->header_values[i], rec->header_lens[i]);
		}
		err = rd_kafka_producev(p->rk,
								RD_KAFKA_V_TOPIC(rec->topic),
								RD_KAFKA_V_PARTITION(rec->partition),
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
	rd_kafka_destroy(p->rk);
	FreeWaitEventSet(p->waitset);
	close_wakeup_pipe(p);
	pfree(p);
}
