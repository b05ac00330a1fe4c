package cdckafka.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads Avro records the way a Debezium consumer does, and writes them as JsonConverter JSON
 * lines ({"topic","key","value","headers":{}}) for the conformance harness's Compare.
 *
 * Each key and value (Confluent wire format) is read as Apicurio's AvroConverter reads it: the
 * writer's schema by the record's id from the registry (its Confluent-compatible API: the
 * converter 2.6.13's own lookup asks Apicurio 2.1.5 for an endpoint it does not have), Avro's
 * GenericDatumReader, then the converter's own Avro-to-Connect mapping (AvroData), as a Kafka
 * Connect sink reading the topic would; then JsonConverter with schemas enabled. Both sides of the Avro conformance pass through here: Debezium's records
 * (the probe's records-*.jsonl, bytes as "hex") and cdc_kafka's (its record output format with
 * format 'avro', bytes as base64 strings, cut to the records between the harness's sentinels).
 * A record the converter cannot read is a line with "error", which Compare counts as a
 * difference. With --exclude-error-topics PROBE_FILE, the topics on which Debezium's own
 * converter failed (field names Avro refuses under field.name.adjustment.mode=none) are left out,
 * all their records, on either side.
 *
 * Usage: AvroRead --registry URL --in FILE --out FILE --input probe|ours
 *                 [--exclude-error-topics PROBE_FILE]
 */
public final class AvroRead {

    private AvroRead() {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> opts = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        boolean ours = "ours".equals(opts.get("input"));
        AvroProbe.Registry registry = new AvroProbe.Registry(opts.get("registry"));
        AvroData avroData = new AvroData(new AvroDataConfig(AvroProbe.converterConfig(opts.get("registry"))));
        JsonConverter jsonKeys = new JsonConverter();
        JsonConverter jsonValues = new JsonConverter();
        jsonKeys.configure(Map.of("schemas.enable", "true"), true);
        jsonValues.configure(Map.of("schemas.enable", "true"), false);

        Set<String> excluded = errorTopics(opts.get("exclude-error-topics"));
        int read = 0;
        int written = 0;
        int errors = 0;
        int leftOut = 0;
        boolean between = !ours;
        try (BufferedReader in = Files.newBufferedReader(Path.of(opts.get("in")), StandardCharsets.UTF_8);
             Writer out = Files.newBufferedWriter(Path.of(opts.get("out")), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                read++;
                JsonNode rec = AvroProbe.MAPPER.readTree(line);
                String topic = rec.path("topic").asText();
                if (excluded.contains(topic)) {
                    leftOut++;
                    continue;
                }
                ObjectNode o = AvroProbe.MAPPER.createObjectNode();
                o.put("topic", topic);
                try {
                    o.set("key", toJson(jsonKeys, registry, avroData, topic, bytes(rec.get("key"), ours)));
                    o.set("value", toJson(jsonValues, registry, avroData, topic, bytes(rec.get("value"), ours)));
                }
                catch (RuntimeException | IOException | InterruptedException e) {
                    o.put("error", e.toString());
                    errors++;
                }
                o.putObject("headers");
                if (ours) {
                    String sentinel = sentinel(o.get("value"));
                    if ("start".equals(sentinel) || "end".equals(sentinel)) {
                        between = "start".equals(sentinel);
                        continue;
                    }
                }
                if (between) {
                    out.write(AvroProbe.MAPPER.writeValueAsString(o));
                    out.write('\n');
                    written++;
                }
            }
        }
        System.out.printf("avro-read %s: %d records read, %d written, %d the converter could not read, "
                + "%d left out on %s%n", opts.get("in"), read, written, errors, leftOut, excluded);
        System.exit(errors == 0 ? 0 : 1);
    }

    /** The topics of the probe's records that Debezium's converter could not write. */
    static Set<String> errorTopics(String probeFile) throws IOException {
        Set<String> topics = new TreeSet<>();
        if (probeFile == null) {
            return topics;
        }
        for (String line : Files.readAllLines(Path.of(probeFile), StandardCharsets.UTF_8)) {
            JsonNode rec = line.isBlank() ? null : AvroProbe.MAPPER.readTree(line);
            if (rec != null && rec.has("error")) {
                topics.add(rec.path("topic").asText());
            }
        }
        return topics;
    }

    /** The bytes of a key or value: base64 text (ours) or the probe's {"hex": ...}; null for none. */
    static byte[] bytes(JsonNode n, boolean ours) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (ours) {
            return Base64.getDecoder().decode(n.asText());
        }
        return HexFormat.of().parseHex(n.path("hex").asText());
    }

    static JsonNode toJson(JsonConverter json, AvroProbe.Registry registry, AvroData avroData, String topic,
                           byte[] bytes) throws IOException, InterruptedException {
        if (bytes == null) {
            return AvroProbe.MAPPER.nullNode();
        }
        if (bytes.length < 5 || bytes[0] != 0) {
            throw new IllegalArgumentException("not the Confluent wire format (magic byte " + bytes[0] + ")");
        }
        Schema schema = registry.schemaById(ByteBuffer.wrap(bytes, 1, 4).getInt());
        Object datum = new GenericDatumReader<Object>(schema)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
        SchemaAndValue data = avroData.toConnectData(schema, datum, null);
        byte[] text = json.fromConnectData(topic, data.schema(), data.value());
        return text == null ? AvroProbe.MAPPER.nullNode() : AvroProbe.MAPPER.readTree(text);
    }

    /** "start"/"end" for the harness's sentinel messages (content in base64), else null. */
    static String sentinel(JsonNode value) {
        JsonNode p = value == null ? null : value.path("payload");
        if (p == null || !"m".equals(p.path("op").asText()) ||
                !AvroProbe.SENTINEL_PREFIX.equals(p.path("message").path("prefix").asText())) {
            return null;
        }
        try {
            return new String(Base64.getDecoder().decode(p.path("message").path("content").asText()),
                    StandardCharsets.UTF_8);
        }
        catch (IllegalArgumentException e) {
            return null;
        }
    }
}
