/*-------------------------------------------------------------------------
 *
 * offsets.c
 *		The offsets topic of exactly_once streams: made if missing, and read
 *		back when a stream starts.
 *
 * Each stream (its transactional id is the record key) commits its
 * position inside every Kafka transaction (stream.c, position.h).  The
 * topic is compacted, so it keeps the last position of every stream; it is
 * made with one partition and the cluster's replication factor up to 3.  A
 * topic of that name that is not compacted is refused: Kafka would delete
 * positions after retention.ms and a restart would send records again.
 *
 * On start the stream reads the whole topic (read_committed: records of
 * aborted transactions never count) up to its end and keeps its own last
 * record; a tombstone for its key (a null value) forgets what came before.  Everything here blocks the worker only in short steps that look
 * at interrupts: a cluster out of reach is waited for, as records are.
 *
 * src/worker/offsets.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <librdkafka/rdkafka.h>

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/memutils.h"

#include "common/position.h"
#include "worker/offsets.h"

/* Each blocking call of librdkafka here takes at most this long. */
#define STEP_MS 500

static void
step_done(void)
{
	if (!PostmasterIsAlive())
		proc_exit(1);
	CHECK_FOR_INTERRUPTS();
}

static rd_kafka_t *
new_client(const CdcProducerConfig *cfg, rd_kafka_type_t type, const char *role,
		   rd_kafka_conf_t *conf)
{
	char		errbuf[512];
	rd_kafka_t *rk;

	if (conf == NULL)
		conf = producer_client_conf(cfg, role);
	rk = rd_kafka_new(type, conf, errbuf, sizeof(errbuf));
	if (rk == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("cdc_kafka could not create its Kafka %s client: %s", role, errbuf)));
	return rk;
}

/*
 * The cluster's metadata (all topics: asking for one topic may create it
 * with the broker's defaults).  Waits until a broker answers.
 */
static const struct rd_kafka_metadata *
cluster_metadata(rd_kafka_t *rk)
{
	for (;;)
	{
		const struct rd_kafka_metadata *md;

		if (rd_kafka_metadata(rk, 1, NULL, &md, STEP_MS) == RD_KAFKA_RESP_ERR_NO_ERROR)
			return md;
		step_done();
	}
}

/* The topic's partition count in md, or 0 if there is no such topic. */
static int
partition_count(const struct rd_kafka_metadata *md, const char *topic)
{
	for (int i = 0; i < md->topic_cnt; i++)
		if (strcmp(md->topics[i].topic, topic) == 0 && md->topics[i].err == 0)
			return md->topics[i].partition_cnt;
	return 0;
}

/* Wait for an admin result of type on q. */
static rd_kafka_event_t *
admin_result(rd_kafka_queue_t *q, rd_kafka_event_type_t type)
{
	for (;;)
	{
		rd_kafka_event_t *ev = rd_kafka_queue_poll(q, STEP_MS);

		if (ev != NULL && rd_kafka_event_type(ev) == type)
			return ev;
		if (ev != NULL)
			rd_kafka_event_destroy(ev);
		step_done();
	}
}

static void
offsets_refuse(const char *topic, rd_kafka_resp_err_t err, const char *msg)
{
	bool		denied = err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
		err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED;

	ereport(ERROR,
			(errcode(denied ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_CONNECTION_FAILURE),
			 errmsg("cdc_kafka cannot use its offsets topic \"%s\": %s: %s",
					topic, rd_kafka_err2name(err), msg ? msg : rd_kafka_err2str(err)),
			 errdetail("cdc_kafka.delivery = exactly_once commits the stream's position to this topic."),
			 errhint(denied ?
					 "Grant the worker's Kafka principal CREATE, DESCRIBE, DESCRIBE_CONFIGS, READ and WRITE on the topic (cdc_kafka.offsets_topic), or create it yourself (compacted)." :
					 "Check the topic (cdc_kafka.offsets_topic) and the cluster.")));
}

static void
create_topic(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *topic, int brokers)
{
	char		errbuf[256];
	rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, 1, Min(brokers, 3),
													errbuf, sizeof(errbuf));
	rd_kafka_event_t *ev;
	const rd_kafka_topic_result_t **res;
	size_t		n;
	rd_kafka_resp_err_t err;
	char	   *msg;

	if (nt == NULL)
		elog(ERROR, "cdc_kafka could not describe its offsets topic: %s", errbuf);
	rd_kafka_NewTopic_set_config(nt, "cleanup.policy", "compact");
	rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
	rd_kafka_NewTopic_destroy(nt);
	ev = admin_result(q, RD_KAFKA_EVENT_CREATETOPICS_RESULT);
	res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
	err = n == 1 ? rd_kafka_topic_result_error(res[0]) : rd_kafka_event_error(ev);
	msg = pstrdup(n == 1 && rd_kafka_topic_result_error_string(res[0]) ?
				  rd_kafka_topic_result_error_string(res[0]) : rd_kafka_err2str(err));
	rd_kafka_event_destroy(ev);
	if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
		ereport(LOG, (errmsg("cdc_kafka created its offsets topic \"%s\" (compacted, replication factor %d)",
							 topic, Min(brokers, 3))));
	else if (err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
		offsets_refuse(topic, err, msg);
}

/* Refuse a topic whose cleanup.policy does not compact. */
static void
check_compacted(rd_kafka_t *rk, rd_kafka_queue_t *q, const char *topic)
{
	rd_kafka_ConfigResource_t *cr = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic);
	rd_kafka_event_t *ev;
	const rd_kafka_ConfigResource_t **res;
	size_t		n;
	char	   *policy = NULL;

	rd_kafka_DescribeConfigs(rk, &cr, 1, NULL, q);
	rd_kafka_ConfigResource_destroy(cr);
	ev = admin_result(q, RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT);
	res = rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n);
	if (n != 1 || rd_kafka_ConfigResource_error(res[0]) != RD_KAFKA_RESP_ERR_NO_ERROR)
	{
		rd_kafka_resp_err_t err = n == 1 ? rd_kafka_ConfigResource_error(res[0]) :
		rd_kafka_event_error(ev);

		rd_kafka_event_destroy(ev);
		offsets_refuse(topic, err, NULL);
	}
	{
		size_t		nc;
		const rd_kafka_ConfigEntry_t **entries = rd_kafka_ConfigResource_configs(res[0], &nc);

		for (size_t i = 0; i < nc; i++)
			if (strcmp(rd_kafka_ConfigEntry_name(entries[i]), "cleanup.policy") == 0 &&
				rd_kafka_ConfigEntry_value(entries[i]) != NULL)
				policy = pstrdup(rd_kafka_ConfigEntry_value(entries[i]));
	}
	rd_kafka_event_destroy(ev);
	if (policy == NULL || strstr(policy, "compact") == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cdc_kafka's offsets topic \"%s\" is not compacted (cleanup.policy=%s)",
						topic, policy ? policy : "unknown"),
				 errdetail("Kafka would delete the stream's positions after retention.ms, and a restart would send records again."),
				 errhint("Set cleanup.policy=compact on the topic, or name another one in cdc_kafka.offsets_topic.")));
}

/* Make the offsets topic if the cluster has none, and check it compacts. */
void
offsets_ensure_topic(const CdcProducerConfig *cfg, const char *topic)
{
	rd_kafka_t *rk = new_client(cfg, RD_KAFKA_PRODUCER, "admin", NULL);
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);

	PG_TRY();
	{
		const struct rd_kafka_metadata *md = cluster_metadata(rk);
		int			partitions = partition_count(md, topic);
		int			brokers = md->broker_cnt;

		rd_kafka_metadata_destroy(md);
		if (partitions == 0)
			create_topic(rk, q, topic, brokers);
		check_compacted(rk, q, topic);
	}
	PG_FINALLY();
	{
		rd_kafka_queue_destroy(q);
		rd_kafka_destroy(rk);
	}
	PG_END_TRY();
}

/* Keep rec if it is the stream's and newer than what *best holds. */
static void
consider(const rd_kafka_message_t *m, const char *key, PositionRecord *best, bool *found,
		 const char *topic)
{
	PositionRecord rec;
	char	   *out;

	if (m->key == NULL || m->key_len != strlen(key) || memcmp(m->key, key, m->key_len) != 0)
		return;
	/* a tombstone (an operator's reset of the stream): no position before it counts */
	if (m->payload == NULL)
	{
		*found = false;
		return;
	}
	out = palloc(m->len + 1);
	if (position_parse(m->payload, m->len, &rec, out) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cdc_kafka cannot read its position in offsets topic \"%s\" (partition %d, offset %lld)",
						topic, m->partition, (long long) m->offset),
				 errhint("Something other than cdc_kafka wrote this stream's key there.")));
	if (!*found || rec.seq >= best->seq)
	{
		*best = rec;
		*found = true;
	}
}

/* Read the topic's partitions from their start to their (stable) end. */
static bool
read_all(rd_kafka_t *rk, const char *topic, int partitions, const char *key,
		 PositionRecord *best)
{
	rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(partitions);
	int			at_end = 0;
	bool		found = false;

	for (int i = 0; i < partitions; i++)
		rd_kafka_topic_partition_list_add(parts, topic, i)->offset = RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_assign(rk, parts);
	rd_kafka_topic_partition_list_destroy(parts);
	while (at_end < partitions)
	{
		rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, STEP_MS);

		if (m != NULL)
		{
			if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
				at_end++;
			else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
				consider(m, key, best, &found, topic);
			else if (m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
					 m->err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED)
			{
				rd_kafka_resp_err_t err = m->err;

				rd_kafka_message_destroy(m);
				offsets_refuse(topic, err, NULL);
			}
			rd_kafka_message_destroy(m);
		}
		step_done();
	}
	return found;
}

/*
 * The stream's last committed position (key: its transactional id), read
 * as a read_committed consumer; false if the topic has none.
 */
bool
offsets_read(const CdcProducerConfig *cfg, const char *topic, const char *key,
			 PositionRecord *rec)
{
	rd_kafka_conf_t *conf = producer_client_conf(cfg, "offsets");
	char		errbuf[256];
	rd_kafka_t *rk;
	bool		found = false;

	/* assign() only: the group is never joined and nothing is committed */
	if (rd_kafka_conf_set(conf, "group.id", key, errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK ||
		rd_kafka_conf_set(conf, "isolation.level", "read_committed", errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK ||
		rd_kafka_conf_set(conf, "enable.auto.commit", "false", errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK ||
		rd_kafka_conf_set(conf, "enable.partition.eof", "true", errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK ||
	/* a fetch at the end waits this long for more: not the default 500 ms */
		rd_kafka_conf_set(conf, "fetch.wait.max.ms", "10", errbuf, sizeof(errbuf)) != RD_KAFKA_CONF_OK)
	{
		rd_kafka_conf_destroy(conf);
		elog(ERROR, "cdc_kafka could not configure its offsets reader: %s", errbuf);
	}
	rk = new_client(cfg, RD_KAFKA_CONSUMER, "offsets", conf);
	PG_TRY();
	{
		const struct rd_kafka_metadata *md = cluster_metadata(rk);
		int			partitions = partition_count(md, topic);

		rd_kafka_metadata_destroy(md);
		if (partitions > 0)
			found = read_all(rk, topic, partitions, key, rec);
	}
	PG_FINALLY();
	{
		rd_kafka_destroy(rk);
	}
	PG_END_TRY();
	return found;
}
