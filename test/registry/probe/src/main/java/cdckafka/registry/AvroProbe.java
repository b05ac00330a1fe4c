package cdckafka.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apicurio.registry.utils.converter.AvroConverter;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.debezium.embedded.Connect;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Runs Debezium 3.6.1 (embedded engine, pgoutput) with Apicurio's Kafka Connect AvroConverter
 * (io.apicurio.registry.utils.converter.AvroConverter) on each record's key and value, the way
 * Kafka Connect calls a converter (fromConnectData(topic, headers, schema, value)), against a
 * running Apicurio Registry, and writes what a Kafka consumer would see:
 *
 * <pre>
 *   OUT/records-ENGINE.jsonl   one line a record between the start and end sentinels:
 *                              topic, key and value each as {magic, id, hex, avro_json}
 *                              (the payload decoded with the schema the registry returns for
 *                              that id, in Avro's JSON encoding), the Kafka headers the
 *                              converter wrote (none expected)
 *   OUT/subjects.json          every subject: versions and their ids
 *   OUT/schemas/SUBJECT.vN.avsc   each registered schema, pretty-printed
 * </pre>
 *
 * Usage: AvroProbe --host H --port P --user U --dbname D --registry http://127.0.0.1:PORT
 * --work DIR --out DIR [--timeout S] [--set ENGINE:key=value]... ENGINE=PROFILE.properties...
 */
public final class AvroProbe {

    static final String SENTINEL_PREFIX = "cdc_kafka_conformance";
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Object CONVERT_LOCK = new Object();
    static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        Map<String, Path> engines = new LinkedHashMap<>();
        Map<String, Properties> overrides = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--set")) {
                String s = args[++i];
                int colon = s.indexOf(':');
                int eq = s.indexOf('=');
                overrides.computeIfAbsent(s.substring(0, colon), k -> new Properties())
                        .setProperty(s.substring(colon + 1, eq), s.substring(eq + 1));
            }
            else if (a.startsWith("--")) {
                opts.put(a.substring(2), args[++i]);
            }
            else {
                engines.put(a.substring(0, a.indexOf('=')), Path.of(a.substring(a.indexOf('=') + 1)));
            }
        }
        String registry = opts.get("registry");
        Path out = Path.of(opts.get("out"));
        Path work = Path.of(opts.get("work"));
        long timeout = Long.parseLong(opts.getOrDefault("timeout", "180"));
        Files.createDirectories(out.resolve("schemas"));
        Files.createDirectories(work);

        List<EngineRun> runs = new ArrayList<>();
        ExecutorService executor = Executors.newCachedThreadPool();
        for (Map.Entry<String, Path> e : engines.entrySet()) {
            Properties props = engineProperties(e.getKey(), e.getValue(), opts, work,
                    overrides.getOrDefault(e.getKey(), new Properties()));
            EngineRun run = new EngineRun(e.getKey(), props, converterConfig(registry));
            runs.add(run);
            run.start(executor);
        }
        boolean ok = true;
        for (EngineRun run : runs) {
            if (!run.done.await(timeout, TimeUnit.SECONDS)) {
                System.err.println("probe " + run.name + ": TIMED OUT waiting for the end sentinel");
                ok = false;
            }
        }
        for (EngineRun run : runs) {
            run.close();
        }
        executor.shutdown();
        executor.awaitTermination(60, TimeUnit.SECONDS);

        Registry reg = new Registry(registry);
        for (EngineRun run : runs) {
            try (Writer w = Files.newBufferedWriter(out.resolve("records-" + run.name + ".jsonl"))) {
                for (Captured c : run.captured) {
                    w.write(MAPPER.writeValueAsString(c.toJson(reg)));
                    w.write('\n');
                }
            }
            System.out.printf("probe %s: %d records, %d conversion errors%n", run.name, run.captured.size(),
                    run.captured.stream().filter(c -> c.error != null).count());
            if (run.failure != null) {
                System.err.println("probe " + run.name + ": " + run.failure);
                ok = false;
            }
        }
        dumpSubjects(reg, out);
        System.exit(ok ? 0 : 1);
    }

    /** The converter settings: Confluent wire format (magic 0, 4-byte id, no headers), contentId. */
    static Map<String, Object> converterConfig(String registry) {
        Map<String, Object> c = new HashMap<>();
        c.put("apicurio.registry.url", registry + "/apis/registry/v2");
        c.put("apicurio.registry.auto-register", "true");
        c.put("apicurio.registry.headers.enabled", "false");
        c.put("apicurio.registry.as-confluent", "true");
        c.put("apicurio.registry.use-id", "contentId");
        return c;
    }

    static Properties engineProperties(String engine, Path profile, Map<String, String> opts, Path work,
                                       Properties overrides) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", "avro-probe-" + engine);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("publication.name", "dbz_publication");
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("topic.prefix", "conf");
        p.setProperty("database.hostname", opts.getOrDefault("host", "127.0.0.1"));
        p.setProperty("database.port", opts.get("port"));
        p.setProperty("database.user", opts.get("user"));
        p.setProperty("database.password", "");
        p.setProperty("database.dbname", opts.get("dbname"));
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "0");
        // Avro names: Debezium's own adjustment, as a Connect + Avro deployment would set it
        p.setProperty("schema.name.adjustment.mode", "avro");
        Properties fromProfile = new Properties();
        try (InputStream in = Files.newInputStream(profile)) {
            fromProfile.load(in);
        }
        for (String key : fromProfile.stringPropertyNames()) {
            p.setProperty(key, fromProfile.getProperty(key).trim());
        }
        for (String key : overrides.stringPropertyNames()) {
            p.setProperty(key, overrides.getProperty(key));
        }
        // dbz_*: the workload waits for these slots before a rename, as for the conformance run's
        p.setProperty("slot.name", "dbz_avro_" + engine);
        p.setProperty("offset.storage.file.filename", work.resolve(engine + ".offsets").toString());
        p.setProperty("custom.metric.tags", "engine=" + engine);
        return p;
    }

    // ---------------------------------------------------------------- one engine

    static final class EngineRun implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
        final String name;
        final Properties props;
        final AvroConverter<Object> keyConverter = new AvroConverter<>();
        final AvroConverter<Object> valueConverter = new AvroConverter<>();
        final List<Captured> captured = new ArrayList<>();
        final CountDownLatch done = new CountDownLatch(1);
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
        boolean sawStart;
        volatile String failure;

        EngineRun(String name, Properties props, Map<String, Object> converterConfig) {
            this.name = name;
            this.props = props;
            keyConverter.configure(converterConfig, true);
            valueConverter.configure(converterConfig, false);
        }

        void start(ExecutorService executor) {
            engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                    .using(props)
                    .using((success, message, error) -> {
                        if (done.getCount() > 0) {
                            failure = "engine stopped before the end sentinel: " + message;
                            done.countDown();
                        }
                    })
                    .notifying(this)
                    .build();
            executor.execute(engine);
        }

        @Override
        public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
                                DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
                throws InterruptedException {
            for (RecordChangeEvent<SourceRecord> r : records) {
                SourceRecord rec = r.record();
                String sentinel = sentinel(rec);
                if ("start".equals(sentinel)) {
                    sawStart = true;
                }
                else if ("end".equals(sentinel)) {
                    done.countDown();
                }
                else if (sawStart && done.getCount() > 0) {
                    captured.add(convert(rec));
                }
                committer.markProcessed(r);
            }
            committer.markBatchFinished();
        }

        Captured convert(SourceRecord rec) {
            Captured c = new Captured(rec.topic());
            // one registration at a time: Apicurio 2.1.5 on H2 fails concurrent first
            // registrations ("Timeout trying to lock table", unique key violations)
            synchronized (CONVERT_LOCK) {
                convertInto(rec, c);
            }
            return c;
        }

        private void convertInto(SourceRecord rec, Captured c) {
            try {
                RecordHeaders kh = new RecordHeaders();
                c.key = keyConverter.fromConnectData(rec.topic(), kh, rec.keySchema(), rec.key());
                RecordHeaders vh = new RecordHeaders();
                c.value = valueConverter.fromConnectData(rec.topic(), vh, rec.valueSchema(), rec.value());
                kh.forEach(h -> c.headers.add("key:" + h.key()));
                vh.forEach(h -> c.headers.add("value:" + h.key()));
            }
            catch (RuntimeException e) {
                c.error = e.toString() + (e.getCause() != null ? " caused by " + e.getCause() : "");
            }
        }

        /** "start"/"end" for the harness's logical-decoding messages, else null. */
        static String sentinel(SourceRecord rec) {
            if (rec.topic() == null || !rec.topic().endsWith(".message") || !(rec.value() instanceof Struct v)) {
                return null;
            }
            if (!"m".equals(v.getString("op"))) {
                return null;
            }
            Struct m = v.getStruct("message");
            if (m == null || !SENTINEL_PREFIX.equals(m.getString("prefix"))) {
                return null;
            }
            Object content = m.get("content");
            byte[] raw = content instanceof ByteBuffer b ? toArray(b) : (byte[]) content;
            return raw == null ? null : new String(raw, StandardCharsets.UTF_8);
        }

        void close() throws IOException {
            if (engine != null) {
                engine.close();
            }
        }
    }

    static byte[] toArray(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    // ---------------------------------------------------------------- output

    static final class Captured {
        final String topic;
        byte[] key;
        byte[] value;
        final List<String> headers = new ArrayList<>();
        String error;

        Captured(String topic) {
            this.topic = topic;
        }

        ObjectNode toJson(Registry reg) throws IOException, InterruptedException {
            ObjectNode n = MAPPER.createObjectNode();
            n.put("topic", topic);
            if (error != null) {
                n.put("error", error);
                return n;
            }
            n.set("key", decode(key, reg));
            n.set("value", decode(value, reg));
            ArrayNode h = n.putArray("headers");
            headers.forEach(h::add);
            return n;
        }

        static JsonNode decode(byte[] bytes, Registry reg) throws IOException, InterruptedException {
            if (bytes == null) {
                return MAPPER.nullNode();
            }
            ObjectNode n = MAPPER.createObjectNode();
            n.put("magic", bytes[0]);
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            n.put("id", id);
            n.put("hex", HexFormat.of().formatHex(bytes));
            Schema schema = reg.schemaById(id);
            Object datum = new GenericDatumReader<Object>(schema)
                    .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
            ByteArrayOutputStream json = new ByteArrayOutputStream();
            JsonEncoder enc = EncoderFactory.get().jsonEncoder(schema, json);
            new GenericDatumWriter<Object>(schema).write(datum, enc);
            enc.flush();
            n.set("avro_json", MAPPER.readTree(json.toByteArray()));
            return n;
        }
    }

    /**
     * The registry: its Confluent-compatible API (ccompat v6 in Apicurio 2.1.5) and, where that
     * fails, Apicurio's own (core v2).
     */
    static final class Registry {
        final String ccompat;
        final String core;
        final HttpClient http = HttpClient.newHttpClient();
        final Map<Integer, Schema> byId = new HashMap<>();
        final Map<Integer, String> ccompatErrors = new HashMap<>();

        Registry(String base) {
            ccompat = base + "/apis/ccompat/v6";
            core = base + "/apis/registry/v2";
        }

        String getRaw(String url) throws IOException, InterruptedException {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("GET " + url + ": HTTP " + r.statusCode() + " " + r.body());
            }
            return r.body();
        }

        JsonNode get(String path) throws IOException, InterruptedException {
            return MAPPER.readTree(getRaw(ccompat + path));
        }

        /** The schema text for a content id: ccompat /schemas/ids/ID, else core /ids/contentIds/ID. */
        String schemaText(int id) throws IOException, InterruptedException {
            try {
                return get("/schemas/ids/" + id).get("schema").asText();
            }
            catch (IOException e) {
                ccompatErrors.put(id, e.getMessage());
                return getRaw(core + "/ids/contentIds/" + id);
            }
        }

        Schema schemaById(int id) throws IOException, InterruptedException {
            Schema s = byId.get(id);
            if (s == null) {
                s = new Schema.Parser().setValidateDefaults(false).parse(schemaText(id));
                byId.put(id, s);
            }
            return s;
        }
    }

    static void dumpSubjects(Registry reg, Path out) throws IOException, InterruptedException {
        ArrayNode index = MAPPER.createArrayNode();
        List<String> subjects = new ArrayList<>();
        reg.get("/subjects").forEach(s -> subjects.add(s.asText()));
        subjects.sort(null);
        for (String subject : subjects) {
            String enc = URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
            ObjectNode entry = index.addObject();
            entry.put("subject", subject);
            ArrayNode versions = entry.putArray("versions");
            for (JsonNode v : reg.get("/subjects/" + enc + "/versions")) {
                ObjectNode vo = versions.addObject();
                String text;
                try {
                    JsonNode sv = reg.get("/subjects/" + enc + "/versions/" + v.asText());
                    vo.put("version", sv.get("version").asInt());
                    vo.put("id", sv.get("id").asInt());
                    text = sv.get("schema").asText();
                }
                catch (IOException e) {
                    // ccompat could not serve it: Apicurio's own API has the same version
                    JsonNode meta = MAPPER.readTree(reg.getRaw(reg.core + "/groups/default/artifacts/" + enc
                            + "/versions/" + v.asText() + "/meta"));
                    vo.put("version", v.asInt());
                    vo.put("id", meta.get("contentId").asInt());
                    vo.put("ccompat_error", e.getMessage());
                    text = reg.getRaw(reg.core + "/groups/default/artifacts/" + enc + "/versions/" + v.asText());
                }
                String file = subject.replaceAll("[^A-Za-z0-9._-]", "_") + ".v" + v.asText() + ".avsc";
                vo.put("file", "schemas/" + file);
                Files.writeString(out.resolve("schemas").resolve(file),
                        PRETTY.writeValueAsString(MAPPER.readTree(text)) + "\n");
            }
        }
        Files.writeString(out.resolve("subjects.json"), PRETTY.writeValueAsString(index) + "\n");
        if (!reg.ccompatErrors.isEmpty()) {
            ObjectNode errs = MAPPER.createObjectNode();
            reg.ccompatErrors.forEach((id, msg) -> errs.put(String.valueOf(id), msg));
            Files.writeString(out.resolve("ccompat-errors.json"), PRETTY.writeValueAsString(errs) + "\n");
        }
    }
}
