package cdckafka.conformance;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.debezium.embedded.EmbeddedEngineChangeEvent;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;

/**
 * Runs one Debezium PostgreSQL connector (embedded engine, pgoutput) per profile, all in this
 * JVM, and writes every Kafka record each one emits between the start and end sentinels as one
 * JSON line: {"topic":..,"key":..,"value":..,"headers":{..}} in {@code <out>/<engine>.jsonl}.
 *
 * Key, value and header values are the exact JsonConverter output (schemas enabled), copied
 * verbatim into the line, so field order and number formatting are preserved byte for byte.
 *
 * <pre>
 * Capture --host H --port P --user U --dbname D --work DIR --out DIR [--timeout SECONDS]
 *         ENGINE=PROFILE.properties [ENGINE=PROFILE.properties ...]
 * </pre>
 *
 * ENGINE names the run (slot dbz_ENGINE, offsets in DIR/ENGINE.offsets); several engines may use
 * the same profile file (the self-check does). Exit status 0 when every engine saw the end
 * sentinel, 1 on timeout or engine failure, 2 on bad usage.
 */
public final class Capture {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        Map<String, Path> engines = new LinkedHashMap<>();
        parseArgs(args, opts, engines);

        Path work = Path.of(require(opts, "work"));
        Path out = Path.of(require(opts, "out"));
        long timeoutSec = Long.parseLong(opts.getOrDefault("timeout", "600"));
        Files.createDirectories(work);
        Files.createDirectories(out);

        List<EngineRun> runs = new ArrayList<>();
        for (Map.Entry<String, Path> e : engines.entrySet()) {
            Properties props = engineProperties(e.getKey(), e.getValue(), opts, work);
            runs.add(new EngineRun(e.getKey(), props, out.resolve(e.getKey() + ".jsonl")));
        }

        ExecutorService executor = Executors.newFixedThreadPool(runs.size());
        for (EngineRun run : runs) {
            run.start(executor);
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSec);
        for (EngineRun run : runs) {
            long left = deadline - System.nanoTime();
            run.finished.await(Math.max(left, 0), TimeUnit.NANOSECONDS);
        }

        int status = 0;
        for (EngineRun run : runs) {
            run.close();
            System.out.println(run.summary());
            if (!run.sawEnd) {
                status = 1;
            }
        }
        executor.shutdown();
        if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
            System.err.println("capture: engines did not stop within 60 s");
            executor.shutdownNow();
        }
        System.exit(status);
    }

    // ---------------------------------------------------------------- configuration

    private static void parseArgs(String[] args, Map<String, String> opts, Map<String, Path> engines) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--") && i + 1 < args.length) {
                opts.put(a.substring(2), args[++i]);
            }
            else if (a.contains("=") && !a.startsWith("-")) {
                String name = a.substring(0, a.indexOf('='));
                if (!name.matches("[a-z0-9_]+")) {
                    usage("engine name must match [a-z0-9_]+ (it becomes the slot name): " + name);
                }
                engines.put(name, Path.of(a.substring(a.indexOf('=') + 1)));
            }
            else {
                usage("unexpected argument: " + a);
            }
        }
        if (engines.isEmpty()) {
            usage("no ENGINE=PROFILE.properties given");
        }
    }

    private static String require(Map<String, String> opts, String key) {
        String v = opts.get(key);
        if (v == null) {
            usage("missing --" + key);
        }
        return v;
    }

    private static void usage(String problem) {
        System.err.println("capture: " + problem);
        System.err.println("usage: Capture --host H --port P --user U --dbname D --work DIR --out DIR"
                + " [--timeout SECONDS] ENGINE=PROFILE.properties ...");
        System.exit(2);
    }

    /** Harness defaults, then the profile's properties, then what must be unique per engine. */
    static Properties engineProperties(String engine, Path profile, Map<String, String> opts, Path work)
            throws IOException {
        Properties p = new Properties();
        p.setProperty("name", "conformance-" + engine);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("publication.name", "dbz_publication");
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("topic.prefix", "conf");
        p.setProperty("database.hostname", opts.getOrDefault("host", "127.0.0.1"));
        p.setProperty("database.port", require(opts, "port"));
        p.setProperty("database.user", require(opts, "user"));
        p.setProperty("database.password", "");
        p.setProperty("database.dbname", require(opts, "dbname"));
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "0");

        Properties fromProfile = new Properties();
        try (InputStream in = Files.newInputStream(profile)) {
            fromProfile.load(in);
        }
        for (String key : fromProfile.stringPropertyNames()) {
            p.setProperty(key, fromProfile.getProperty(key).trim());
        }

        p.setProperty("slot.name", "dbz_" + engine);
        p.setProperty("offset.storage.file.filename", work.resolve(engine + ".offsets").toString());
        // several engines share one JVM: keep their JMX metric names apart
        p.setProperty("custom.metric.tags", "engine=" + engine);
        return p;
    }

    // ---------------------------------------------------------------- one engine

    /** One embedded engine, its output file and its state. */
    private static final class EngineRun implements DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>> {

        final String name;
        final Properties props;
        final Path outFile;
        final CountDownLatch finished = new CountDownLatch(1);
        private final BufferedWriter writer;
        private DebeziumEngine<ChangeEvent<String, String>> engine;

        volatile boolean sawStart;
        volatile boolean sawEnd;
        volatile String failure;
        long written;
        long droppedBeforeStart;

        EngineRun(String name, Properties props, Path outFile) throws IOException {
            this.name = name;
            this.props = props;
            this.outFile = outFile;
            this.writer = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8);
        }

        void start(ExecutorService executor) {
            engine = DebeziumEngine
                    .create(KeyValueHeaderChangeEventFormat.of(Json.class, Json.class, Json.class))
                    .using(props)
                    .using(this::completed)
                    .notifying(this)
                    .build();
            executor.execute(engine);
        }

        private void completed(boolean success, String message, Throwable error) {
            if (!sawEnd) {
                failure = "engine stopped before the end sentinel: " + message
                        + (error != null ? " (" + error + ")" : "");
            }
            finished.countDown();
        }

        @Override
        public void handleBatch(List<ChangeEvent<String, String>> records,
                                DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer)
                throws InterruptedException {
            try {
                for (ChangeEvent<String, String> r : records) {
                    if (!sawEnd) {
                        handle(r);
                    }
                    committer.markProcessed(r);
                }
                writer.flush();
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            committer.markBatchFinished();
        }

        private void handle(ChangeEvent<String, String> r) throws IOException {
            Sentinel.Kind kind = sentinelKind(r);
            if (kind == Sentinel.Kind.START) {
                sawStart = true;
            }
            else if (kind == Sentinel.Kind.END) {
                sawEnd = true;
                finished.countDown();
            }
            else if (!sawStart) {
                droppedBeforeStart++;
            }
            else {
                writer.write(toLine(r));
                writer.write('\n');
                written++;
            }
        }

        private static Sentinel.Kind sentinelKind(ChangeEvent<String, String> r) {
            if (r.value() == null || r.destination() == null || !r.destination().endsWith(".message")) {
                return Sentinel.Kind.NONE;
            }
            try {
                return Sentinel.of(MAPPER.readTree(r.value()));
            }
            catch (JsonProcessingException e) {
                return Sentinel.Kind.NONE;
            }
        }

        void close() throws IOException {
            if (engine != null) {
                engine.close();
            }
            writer.close();
        }

        String summary() {
            String state = sawEnd ? "complete"
                    : failure != null ? "FAILED: " + failure
                            : "TIMED OUT waiting for the end sentinel" + (sawStart ? "" : " (start sentinel not seen either)");
            return String.format("capture %s: %d records written to %s, %d before the start sentinel dropped; %s",
                    name, written, outFile, droppedBeforeStart, state);
        }
    }

    /**
     * {"topic":..,"key":..,"value":..,"headers":{..}} with key/value/headers copied verbatim, and
     * "partition" / "timestamp" after the topic when the record sets them.
     */
    static String toLine(ChangeEvent<String, String> r) throws JsonProcessingException {
        StringBuilder sb = new StringBuilder(256 + (r.value() == null ? 0 : r.value().length()));
        sb.append("{\"topic\":").append(MAPPER.writeValueAsString(r.destination()));
        // only transforms set them (the outbox EventRouter): partition placement, event timestamp
        if (r.partition() != null) {
            sb.append(",\"partition\":").append(r.partition());
        }
        Long timestamp = r instanceof EmbeddedEngineChangeEvent<?, ?, ?> e ? e.sourceRecord().timestamp() : null;
        if (timestamp != null) {
            sb.append(",\"timestamp\":").append(timestamp);
        }
        sb.append(",\"key\":").append(r.key() == null ? "null" : r.key());
        sb.append(",\"value\":").append(r.value() == null ? "null" : r.value());
        sb.append(",\"headers\":{");
        List<Header<String>> headers = r.headers();
        for (int i = 0; i < headers.size(); i++) {
            Header<String> h = headers.get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append(MAPPER.writeValueAsString(h.getKey())).append(':');
            sb.append(h.getValue() == null ? "null" : h.getValue());
        }
        sb.append("}}");
        return sb.toString();
    }
}
