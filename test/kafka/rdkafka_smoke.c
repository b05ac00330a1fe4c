/*
 * rdkafka_smoke.c - check that the system librdkafka can do what cdc_kafka
 * needs against the test broker: idempotent produce (enable.idempotence,
 * acks=all), transactional produce (init/begin/produce/commit/abort) and the
 * Java-compatible murmur2_random partitioner.
 *
 * Built and driven by test/kafka/kafka.sh smoke, which consumes the topics
 * back with kcat.  Build by hand:
 *     gcc -O2 -Wall -o rdkafka_smoke rdkafka_smoke.c -lrdkafka
 *
 * Usage:
 *     rdkafka_smoke BOOTSTRAP create TOPIC PARTITIONS
 *     rdkafka_smoke BOOTSTRAP idempotent TOPIC COUNT
 *     rdkafka_smoke BOOTSTRAP transactional TOPIC COUNT
 *
 * "create" makes TOPIC with PARTITIONS partitions and the broker's default
 * replication factor.  "idempotent" produces COUNT keyed messages ("key-<i>" ->
 * "idem-<i>") and prints one "DR <key> <partition> <offset>" line per
 * delivery report.  "transactional" commits COUNT messages "commit1-<i>",
 * aborts COUNT messages "abort-<i>" (flushed to the log before the abort) and
 * commits COUNT messages "commit2-<i>".  Both producing modes use
 * partitioner=murmur2_random and check every delivery report against the
 * partition Kafka's Java client would choose.  Exit status 0 means PASS.
 * Set SMOKE_DEBUG (e.g. to "eos,protocol") to get librdkafka debug logs.
 */
#include <librdkafka/rdkafka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TIMEOUT_MS 60000

static int failures;       /* number of problems seen so far */
static int delivered;      /* successful delivery reports */
static int npartitions;    /* partition count of the topic being produced to */
static int print_reports;  /* print "DR ..." lines (idempotent mode) */
static int misplaced;      /* keys not on the Java murmur2 partition */

/* ---- Java-compatible murmur2 (org.apache.kafka.common.utils.Utils) ---- */

static int32_t murmur2(const void *data, size_t len)
{
    const uint32_t m = 0x5bd1e995;
    const int r = 24;
    const unsigned char *p = data;
    uint32_t h = 0x9747b28c ^ (uint32_t) len;
    size_t i;

    for (i = 0; i + 4 <= len; i += 4) {
        uint32_t k = (uint32_t) p[i] | (uint32_t) p[i + 1] << 8 |
                     (uint32_t) p[i + 2] << 16 | (uint32_t) p[i + 3] << 24;
        k *= m;
        k ^= k >> r;
        k *= m;
        h *= m;
        h ^= k;
    }
    switch (len % 4) {
    case 3:
        h ^= (uint32_t) p[i + 2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t) p[i + 1] << 8;
        /* fall through */
    case 1:
        h ^= (uint32_t) p[i];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t) h;
}

/* The partition the Java producer's default partitioner picks for a key. */
static int java_partition(const void *key, size_t len, int partitions)
{
    return (int) ((uint32_t) murmur2(key, len) & 0x7fffffff) % partitions;
}

/* Values printed by Utils.murmur2() of kafka-clients 4.4.0. */
static void murmur2_selftest(void)
{
    static const struct { const char *s; int32_t h; } v[] = {
        {"", 275646681},
        {"a", -1563381124},
        {"ab", 316155434},
        {"abc", 479470107},
        {"abcd", -1323649548},
        {"key-0", 29210041},
        {"key-42", -187086521},
        {"appdb.public.customers", 1933311926},
        {"The quick brown fox jumps over the lazy dog", 495243318},
    };
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        int32_t h = murmur2(v[i].s, strlen(v[i].s));
        if (h != v[i].h) {
            fprintf(stderr, "FAIL murmur2 self-test: \"%s\" gave %d, Java gives %d\n",
                    v[i].s, h, v[i].h);
            exit(1);
        }
    }
}

/* ---- callbacks ---- */

static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    int want;

    (void) rk;
    (void) opaque;
    if (msg->err) {
        fprintf(stderr, "FAIL delivery of key %.*s: %s\n", (int) msg->key_len,
                (const char *) msg->key, rd_kafka_err2str(msg->err));
        failures++;
        return;
    }
    delivered++;
    want = java_partition(msg->key, msg->key_len, npartitions);
    if (msg->partition != want && ++misplaced <= 3)
        fprintf(stderr, "FAIL key %.*s went to partition %d, Java murmur2 says %d\n",
                (int) msg->key_len, (const char *) msg->key, (int) msg->partition, want);
    if (print_reports)
        printf("DR %.*s %d %lld\n", (int) msg->key_len, (const char *) msg->key,
               (int) msg->partition, (long long) msg->offset);
}

static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void) opaque;
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        char buf[512];
        rd_kafka_resp_err_t orig = rd_kafka_fatal_error(rk, buf, sizeof(buf));
        fprintf(stderr, "FAIL fatal error %s: %s\n", rd_kafka_err2name(orig), buf);
        failures++;
    } else {
        /* transient errors (e.g. a broker connection refused) are only logged */
        fprintf(stderr, "note: %s: %s\n", rd_kafka_err2name(err), reason);
    }
}

/* ---- helpers ---- */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "FAIL %s: %s\n", what, detail);
    exit(1);
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value)
{
    char err[512];

    if (rd_kafka_conf_set(conf, name, value, err, sizeof(err)) != RD_KAFKA_CONF_OK)
        die(name, err);
}

static rd_kafka_t *new_client(rd_kafka_type_t type, rd_kafka_conf_t *conf,
                              const char *bootstrap)
{
    char err[512];
    const char *debug = getenv("SMOKE_DEBUG");
    rd_kafka_t *rk;

    set(conf, "bootstrap.servers", bootstrap);
    if (debug && *debug)
        set(conf, "debug", debug);
    rd_kafka_conf_set_error_cb(conf, error_cb);
    rk = rd_kafka_new(type, conf, err, sizeof(err));
    if (!rk)
        die("rd_kafka_new", err);
    return rk;
}

/* Number of partitions of topic. */
static int partition_count(rd_kafka_t *rk, const char *topic)
{
    const struct rd_kafka_metadata *md;
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    rd_kafka_resp_err_t err;
    int n;

    err = rd_kafka_metadata(rk, 0, rkt, &md, TIMEOUT_MS);
    if (err)
        die("metadata request", rd_kafka_err2str(err));
    if (md->topic_cnt != 1 || md->topics[0].err)
        die("topic metadata", md->topic_cnt ? rd_kafka_err2str(md->topics[0].err) : "none");
    n = md->topics[0].partition_cnt;
    rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(rkt);
    return n;
}

static void produce(rd_kafka_t *rk, const char *topic, const char *prefix, int i)
{
    char key[64], value[64];
    rd_kafka_resp_err_t err;

    snprintf(key, sizeof(key), "key-%d", i);
    snprintf(value, sizeof(value), "%s-%d", prefix, i);
    for (;;) {
        err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
                                RD_KAFKA_V_KEY(key, strlen(key)),
                                RD_KAFKA_V_VALUE(value, strlen(value)),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_END);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            break;
        rd_kafka_poll(rk, 100);
    }
    if (err)
        die("produce", rd_kafka_err2str(err));
}

static void check_txn(const char *what, rd_kafka_error_t *error)
{
    if (error) {
        fprintf(stderr, "FAIL %s: %s (%s%s%s)\n", what, rd_kafka_error_string(error),
                rd_kafka_error_is_fatal(error) ? "fatal" : "",
                rd_kafka_error_is_retriable(error) ? "retriable" : "",
                rd_kafka_error_txn_requires_abort(error) ? "abortable" : "");
        exit(1);
    }
}

static rd_kafka_t *new_producer(const char *bootstrap, const char *topic,
                                const char *txn_id)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_t *rk;

    set(conf, "enable.idempotence", "true");
    set(conf, "acks", "all");
    set(conf, "partitioner", "murmur2_random");
    set(conf, "linger.ms", "5");
    if (txn_id)
        set(conf, "transactional.id", txn_id);
    else
        set(conf, "message.timeout.ms", "30000");
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    rk = new_client(RD_KAFKA_PRODUCER, conf, bootstrap);
    npartitions = partition_count(rk, topic);
    return rk;
}

static int finish(rd_kafka_t *rk, const char *mode, int expected)
{
    if (rd_kafka_flush(rk, TIMEOUT_MS) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        fprintf(stderr, "FAIL %s: flush timed out\n", mode);
        failures++;
    }
    rd_kafka_destroy(rk);
    if (delivered != expected) {
        fprintf(stderr, "FAIL %s: %d of %d messages delivered\n", mode, delivered, expected);
        failures++;
    }
    if (misplaced) {
        fprintf(stderr, "FAIL %s: %d keys not on the partition Java murmur2 gives\n",
                mode, misplaced);
        failures++;
    }
    if (failures)
        return 1;
    fprintf(stderr, "ok %s: %d messages delivered over %d partitions, "
            "all on the Java murmur2 partition\n", mode, delivered, npartitions);
    return 0;
}

/* ---- modes ---- */

static int create_topic(const char *bootstrap, const char *topic, int partitions)
{
    char err[512];
    rd_kafka_t *rk = new_client(RD_KAFKA_PRODUCER, rd_kafka_conf_new(), bootstrap);
    /* -1: the broker's default.replication.factor (3 on a 3-node test cluster) */
    rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, partitions, -1, err, sizeof(err));
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    const rd_kafka_topic_result_t **res;
    rd_kafka_event_t *ev;
    size_t n;
    rd_kafka_resp_err_t terr;

    if (!nt)
        die("NewTopic", err);
    rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
    ev = rd_kafka_queue_poll(q, TIMEOUT_MS);
    if (!ev)
        die("CreateTopics", "no answer");
    if (rd_kafka_event_error(ev))
        die("CreateTopics", rd_kafka_event_error_string(ev));
    res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    terr = n == 1 ? rd_kafka_topic_result_error(res[0]) : RD_KAFKA_RESP_ERR__FAIL;
    if (terr && terr != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        die("CreateTopics", n == 1 ? rd_kafka_topic_result_error_string(res[0]) : "no result");
    fprintf(stderr, "ok created topic %s with %d partitions\n", topic, partitions);
    rd_kafka_event_destroy(ev);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return 0;
}

static int run_idempotent(const char *bootstrap, const char *topic, int count)
{
    rd_kafka_t *rk = new_producer(bootstrap, topic, NULL);
    int i;

    print_reports = 1;
    for (i = 0; i < count; i++) {
        produce(rk, topic, "idem", i);
        rd_kafka_poll(rk, 0);
    }
    return finish(rk, "idempotent", count);
}

static int run_transactional(const char *bootstrap, const char *topic, int count)
{
    char txn_id[128];
    rd_kafka_t *rk;
    int i;

    snprintf(txn_id, sizeof(txn_id), "rdkafka-smoke-%s-%ld", topic, (long) getpid());
    rk = new_producer(bootstrap, topic, txn_id);
    check_txn("init_transactions", rd_kafka_init_transactions(rk, TIMEOUT_MS));

    check_txn("begin_transaction", rd_kafka_begin_transaction(rk));
    for (i = 0; i < count; i++)
        produce(rk, topic, "commit1", i);
    check_txn("commit_transaction", rd_kafka_commit_transaction(rk, TIMEOUT_MS));

    check_txn("begin_transaction", rd_kafka_begin_transaction(rk));
    for (i = 0; i < count; i++)
        produce(rk, topic, "abort", i);
    /* put the doomed messages into the log, so the abort must hide them */
    if (rd_kafka_flush(rk, TIMEOUT_MS))
        die("flush before abort", "timed out");
    check_txn("abort_transaction", rd_kafka_abort_transaction(rk, TIMEOUT_MS));

    check_txn("begin_transaction", rd_kafka_begin_transaction(rk));
    for (i = 0; i < count; i++)
        produce(rk, topic, "commit2", i);
    check_txn("commit_transaction", rd_kafka_commit_transaction(rk, TIMEOUT_MS));

    return finish(rk, "transactional", 3 * count);
}

int main(int argc, char **argv)
{
    const char *bootstrap, *mode, *topic;
    int n;

    if (argc != 5) {
        fprintf(stderr, "usage: %s BOOTSTRAP create|idempotent|transactional TOPIC N\n",
                argv[0]);
        return 2;
    }
    bootstrap = argv[1];
    mode = argv[2];
    topic = argv[3];
    n = atoi(argv[4]);
    if (n <= 0)
        die("argument N", "must be a positive number");
    murmur2_selftest();
    setvbuf(stdout, NULL, _IOLBF, 0);
    fprintf(stderr, "librdkafka %s\n", rd_kafka_version_str());

    if (strcmp(mode, "create") == 0)
        return create_topic(bootstrap, topic, n);
    if (strcmp(mode, "idempotent") == 0)
        return run_idempotent(bootstrap, topic, n);
    if (strcmp(mode, "transactional") == 0)
        return run_transactional(bootstrap, topic, n);
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
