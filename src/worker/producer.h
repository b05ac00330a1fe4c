/*-------------------------------------------------------------------------
 *
 * producer.h
 *		The streaming worker's Kafka producer (see producer.c).
 *
 * src/worker/producer.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_PRODUCER_H
#define CDC_KAFKA_PRODUCER_H

#include <librdkafka/rdkafka.h>

#define CDC_MAX_HEADERS 16

/* One record as decoded from a binary frame (pointers into the frame). */
typedef struct CdcOutRecord
{
	const char *topic;			/* NUL-terminated copy */
	int32		partition;		/* RD_KAFKA_PARTITION_UA: by key */
	int64		timestamp;		/* ms since the epoch; 0: the producer's clock */
	const char *key;			/* NULL for a null key */
	size_t		keylen;
	const char *value;			/* NULL for a tombstone */
	size_t		valuelen;
	int			nheaders;
	const char *header_names[CDC_MAX_HEADERS];	/* NUL-terminated copies */
	const char *header_values[CDC_MAX_HEADERS];
	size_t		header_lens[CDC_MAX_HEADERS];
} CdcOutRecord;

typedef struct CdcProducer CdcProducer;

/* What a producer is made of: the caller's settings (cdc_kafka.*). */
typedef struct CdcProducerConfig
{
	const char *dbname;			/* whose worker: the client.id */
	const char *bootstrap_servers;
	const char *properties;		/* cdc_kafka.kafka_properties, "name=value; ..." */
	const char *secrets_file;	/* cdc_kafka.kafka_secrets_file, or NULL or "" */
	bool		one_per_batch;	/* every record in a produce request of its own */
	const char *transactional_id;	/* a transactional producer (exactly_once), or NULL */
} CdcProducerConfig;

/*
 * Called from producer_poll once per acknowledged or refused record (err 0
 * means Kafka has it), outside librdkafka's frames: it may ereport.
 */
typedef void (*producer_delivery_cb) (void *arg, void *opaque, rd_kafka_resp_err_t err,
									  const rd_kafka_message_t *msg);

extern CdcProducer *producer_create(const CdcProducerConfig *cfg,
									 producer_delivery_cb on_delivery, void *cb_arg);
extern rd_kafka_resp_err_t producer_send(CdcProducer *p, const CdcOutRecord *rec,
										 void *opaque);
extern int	producer_poll(CdcProducer *p);
extern void producer_wait(CdcProducer *p, long timeout_ms);
extern bool producer_failed(CdcProducer *p, const char **reason);
extern void producer_connect(CdcProducer *p, int timeout_ms);
extern int64 producer_transient_errors(CdcProducer *p, const char **last_reason);
extern void producer_destroy(CdcProducer *p);
extern rd_kafka_conf_t *producer_client_conf(const CdcProducerConfig *cfg, const char *role);
extern void producer_txn_init(CdcProducer *p);
extern void producer_txn_begin(CdcProducer *p);
extern bool producer_txn_commit(CdcProducer *p, char *reason, size_t len);
extern void producer_txn_abort(CdcProducer *p);
extern bool producer_fenced(CdcProducer *p);
extern int	producer_outq_len(CdcProducer *p);
extern bool producer_check_properties(const char *props, char *errbuf, size_t errlen);

#endif							/* CDC_KAFKA_PRODUCER_H */
