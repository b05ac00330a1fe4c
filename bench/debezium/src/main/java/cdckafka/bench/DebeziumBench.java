package cdckafka.bench;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.JsonByteArray;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;

/**
 * Debezium 3.6.1 streaming a PostgreSQL slot to Kafka, or taking its initial snapshot, timed.
 *
 * The PostgreSQL connector runs in Debezium's embedded engine (plugin.name=pgoutput,
 * JsonConverter with schemas for keys, values and headers, as Kafka Connect would configure it)
 * and every record it emits is produced to Kafka with a KafkaProducer (acks=all, idempotence
 * on). Records are sent asynchronously, as Kafka Connect's source tasks send them; offsets stay
 * in memory (this is a benchmark, not a deployment).
 *
 * The clock starts just before the engine starts (after the JVM and the producer are up) and
 * stops at the acknowledgement of the N-th record of the table's topic.
 *
 * Streaming (bench/stream.sh; --snapshot-mode no_data, the default): the slot must exist
 * already: with no stored offset, the connector streams from the slot's confirmed position, so
 * changes made while the engine was not running are what it catches up on.
 *
 * Initial snapshot (bench/snapshot.sh; --snapshot-mode initial or initial_only): the table
 * alone is captured (table.include.list) and its N rows are the N op "r" records counted. With
 * initial, the slot must not exist yet: the connector creates it and reads the table in the
 * snapshot the slot exported, as cdc_kafka's worker does; with initial_only, Debezium 3.6.1
 * creates no slot and reads the table in a REPEATABLE READ transaction of its own.
 *
 * <pre>
 * DebeziumBench --pg-port P --user U --dbname D --slot S --publication PUB --topic-prefix X
 *               --table schema.table --bootstrap HOST:PORT --records N
 *               [--pg-host H] [--timeout SECONDS] [--compression none|gzip|snappy|lz4|zstd]
 *               [--snapshot-mode no_data|initial|initial_only]
 * </pre>
 *
 * Prints one line on stdout:
 * {@code debezium records=N start_epoch_ms=T seconds=S first_record_s=F cpu_s=C rss_mb=R hwm_mb=H}
 * (start_epoch_ms: the wall clock at the start; seconds: from the engine's start to the last
 * acknowledgement; first_record_s: to the first record handed to the producer; cpu_s: the
 * JVM's CPU time in between; rss_mb/hwm_mb: VmRSS and VmHWM of the JVM at the last
 * acknowledgement). Exit status 0 when all N records were
 * acknowledged, 1 on failure or timeout, 2 on bad usage.
 */
public final class DebeziumBench {

    private final Map<String, String> opts;
    private final String targetTopic;
    private final long expected;

    private final KafkaProducer<byte[], byte[]> producer;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private volatile String failure;

    private long startNanos;
    private long startEpochMillis;
    private long startCpu;
    private volatile long firstRecordNanos;
    private volatile long lastAckNanos;
    private volatile long lastAckCpu;
    private volatile Map<String, Long> memoryAtEnd = Map.of();

    private DebeziumBench(Map<String, String> opts) {
        this.opts = opts;
        this.targetTopic = require("topic-prefix") + "." + require("table");
        this.expected = Long.parseLong(require("records"));
        this.producer = new KafkaProducer<>(producerProperties(require("bootstrap"),
                opts.getOrDefault("compression", "none")));
    }

    public static void main(String[] args) throws Exception {
        DebeziumBench bench = new DebeziumBench(parseArgs(args));
        System.exit(bench.run());
    }

    // ---------------------------------------------------------------- configuration

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                usage("unexpected argument: " + args[i]);
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }

    private String require(String key) {
        String v = opts.get(key);
        if (v == null) {
            usage("missing --" + key);
        }
        return v;
    }

    private static void usage(String problem) {
        System.err.println("DebeziumBench: " + problem);
        System.err.println("usage: DebeziumBench --pg-port P --user U --dbname D --slot S --publication PUB"
                + " --topic-prefix X --table schema.table --bootstrap HOST:PORT --records N"
                + " [--pg-host H] [--timeout SECONDS] [--compression CODEC]"
                + " [--snapshot-mode no_data|initial|initial_only]");
        System.exit(2);
    }

    /**
     * The connector: pgoutput on an existing publication; no snapshot on an existing slot, or
     * the initial snapshot of the table alone.
     */
    private Properties engineProperties() {
        String snapshotMode = opts.getOrDefault("snapshot-mode", "no_data");
        Properties p = new Properties();
        p.setProperty("name", "bench-" + require("slot"));
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", require("slot"));
        p.setProperty("publication.name", require("publication"));
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("snapshot.mode", snapshotMode);
        if (!snapshotMode.equals("no_data")) {
            p.setProperty("table.include.list", require("table"));
        }
        p.setProperty("topic.prefix", require("topic-prefix"));
        p.setProperty("database.hostname", opts.getOrDefault("pg-host", "127.0.0.1"));
        p.setProperty("database.port", require("pg-port"));
        p.setProperty("database.user", require("user"));
        p.setProperty("database.password", "");
        p.setProperty("database.dbname", require("dbname"));
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        return p;
    }

    /**
     * acks=all and idempotence as cdc_kafka has them; the batching budget of librdkafka's
     * defaults, which cdc_kafka uses (batch.size 1,000,000 bytes, linger 5 ms; in flight
     * bounded like cdc_kafka.max_inflight_bytes' default, 64 MB).
     */
    private static Properties producerProperties(String bootstrap, String compression) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("client.id", "debezium-bench");
        p.setProperty("acks", "all");
        p.setProperty("enable.idempotence", "true");
        p.setProperty("max.in.flight.requests.per.connection", "5");
        p.setProperty("linger.ms", "5");
        p.setProperty("batch.size", "1000000");
        p.setProperty("buffer.memory", String.valueOf(64L * 1024 * 1024));
        p.setProperty("compression.type", compression);
        p.setProperty("key.serializer", ByteArraySerializer.class.getName());
        p.setProperty("value.serializer", ByteArraySerializer.class.getName());
        return p;
    }

    // ---------------------------------------------------------------- the run

    private int run() throws Exception {
        long timeoutSec = Long.parseLong(opts.getOrDefault("timeout", "600"));
        DebeziumEngine<ChangeEvent<byte[], byte[]>> engine = DebeziumEngine
                .create(KeyValueHeaderChangeEventFormat.of(JsonByteArray.class, JsonByteArray.class,
                        JsonByteArray.class))
                .using(engineProperties())
                .using(this::engineStopped)
                .notifying(this::handleBatch)
                .build();
        ExecutorService executor = Executors.newSingleThreadExecutor();

        startCpu = processCpuNanos();
        startNanos = System.nanoTime();
        startEpochMillis = System.currentTimeMillis();
        executor.execute(engine);
        if (!done.await(timeoutSec, TimeUnit.SECONDS)) {
            failure = "timed out after " + timeoutSec + " s with " + acked.get() + " of " + expected
                    + " records acknowledged";
        }
        if (failure == null) {
            System.out.println(result());
        }
        else {
            System.err.println("DebeziumBench: " + failure);
        }
        engine.close();
        producer.close(Duration.ofSeconds(10));
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
        return failure == null ? 0 : 1;
    }

    /**
     * With snapshot.mode=initial_only the engine stops by itself once it has handed over the
     * last snapshot record: that is not a failure while its acknowledgements are on their way.
     */
    private void engineStopped(boolean success, String message, Throwable error) {
        if (success && error == null && sent.get() >= expected) {
            return;
        }
        if (done.getCount() > 0) {
            failure = "the engine stopped before the last record: " + message
                    + (error != null ? " (" + error + ")" : "");
            done.countDown();
        }
    }

    private void handleBatch(List<ChangeEvent<byte[], byte[]>> records,
                             DebeziumEngine.RecordCommitter<ChangeEvent<byte[], byte[]>> committer)
            throws InterruptedException {
        if (firstRecordNanos == 0 && !records.isEmpty()) {
            firstRecordNanos = System.nanoTime();
        }
        for (ChangeEvent<byte[], byte[]> r : records) {
            boolean counted = targetTopic.equals(r.destination());
            if (counted) {
                sent.incrementAndGet();
            }
            producer.send(toProducerRecord(r), (metadata, error) -> acknowledged(counted, error));
            committer.markProcessed(r);
        }
        committer.markBatchFinished();
    }

    private static ProducerRecord<byte[], byte[]> toProducerRecord(ChangeEvent<byte[], byte[]> r) {
        List<Header<Object>> headers = r.headers();
        List<org.apache.kafka.common.header.Header> kafkaHeaders = new ArrayList<>(headers.size());
        for (Header<Object> h : headers) {
            kafkaHeaders.add(new RecordHeader(h.getKey(), headerBytes(h.getValue())));
        }
        return new ProducerRecord<>(r.destination(), null, r.key(), r.value(), kafkaHeaders);
    }

    private static byte[] headerBytes(Object value) {
        if (value == null || value instanceof byte[]) {
            return (byte[]) value;
        }
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Runs on the producer's I/O thread. */
    private void acknowledged(boolean counted, Exception error) {
        if (error != null) {
            if (failure == null) {
                failure = "Kafka refused a record: " + error;
            }
            done.countDown();
            return;
        }
        if (counted && acked.incrementAndGet() == expected) {
            lastAckNanos = System.nanoTime();
            lastAckCpu = processCpuNanos();
            memoryAtEnd = readMemory();
            done.countDown();
        }
    }

    // ---------------------------------------------------------------- figures

    private String result() {
        Map<String, Long> mem = memoryAtEnd;
        return String.format(java.util.Locale.ROOT,
                "debezium records=%d start_epoch_ms=%d seconds=%.3f first_record_s=%.3f cpu_s=%.3f"
                        + " rss_mb=%.1f hwm_mb=%.1f",
                acked.get(), startEpochMillis,
                (lastAckNanos - startNanos) / 1e9,
                (firstRecordNanos - startNanos) / 1e9,
                (lastAckCpu - startCpu) / 1e9,
                mem.getOrDefault("VmRSS", 0L) / 1024.0,
                mem.getOrDefault("VmHWM", 0L) / 1024.0);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** VmRSS and VmHWM of this process, in kB (Linux). */
    private static Map<String, Long> readMemory() {
        Map<String, Long> m = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                String[] f = line.split("\\s+");
                if (f.length >= 2 && (f[0].equals("VmRSS:") || f[0].equals("VmHWM:"))) {
                    m.put(f[0].substring(0, f[0].length() - 1), Long.parseLong(f[1]));
                }
            }
        }
        catch (Exception e) {
            // not Linux: no memory figures
        }
        return m;
    }
}
