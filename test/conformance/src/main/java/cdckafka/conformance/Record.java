package cdckafka.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * One Kafka record as a JSON line: {"topic":..,"key":..,"value":..,"headers":{..}}.
 *
 * Lines are parsed with object key order preserved, duplicate keys rejected, and NaN/Infinity
 * tokens accepted (so a side that writes them bare is reported as a difference, not a crash).
 */
final class Record {

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    /** 1-based position after sentinel trimming. */
    int index;
    /** 1-based line number in the file. */
    final int line;
    final JsonNode root;

    Record(int line, JsonNode root) {
        this.line = line;
        this.root = root;
    }

    String topic() {
        return root.path("topic").asText("");
    }

    JsonNode value() {
        return root.get("value");
    }

    JsonNode payload() {
        JsonNode v = root.path("value");
        // schemas.enable=false: the value is the payload itself
        return v.has("schema") && v.has("payload") ? v.path("payload") : v;
    }

    boolean isTombstone() {
        JsonNode v = value();
        return v == null || v.isNull();
    }

    /** "c", "u", "d", "t", "m", "tombstone", a transaction status (BEGIN/END), or "?". */
    String op() {
        if (isTombstone()) {
            return "tombstone";
        }
        JsonNode p = payload();
        if (p.hasNonNull("op")) {
            return p.get("op").asText();
        }
        if (p.hasNonNull("status")) {
            return p.get("status").asText();
        }
        return "?";
    }

    /** The change position: source.lsn, or the transaction id of a BEGIN/END record. */
    String position() {
        JsonNode p = payload();
        if (p.path("source").hasNonNull("lsn")) {
            return p.path("source").get("lsn").asText();
        }
        if (p.hasNonNull("status") && p.hasNonNull("id")) {
            return p.get("id").asText();
        }
        return "";
    }

    /** Key payload with object keys sorted, so identity ignores key field order. */
    String keyText() {
        JsonNode key = root.get("key");
        if (key == null || key.isNull()) {
            return "null";
        }
        return canonical(key.has("payload") ? key.get("payload") : key);
    }

    /** Identity used to pair records: topic, key, operation and position. */
    String strongId() {
        return weakId() + "|" + position();
    }

    /** Identity without the position, for when one side's positions are wrong throughout. */
    String weakId() {
        return topic() + "|" + keyText() + "|" + op();
    }

    /** Short human description: topic, op, key, lsn. */
    String describe() {
        String pos = position();
        JsonNode key = root.get("key");
        String keyShown = key == null || key.isNull() ? "null" : key.path("payload").toString();
        return topic() + " op " + op() + " key " + Diffs.shorten(keyShown, 80) + (pos.isEmpty() ? "" : " lsn/id " + pos);
    }

    static String canonical(JsonNode n) {
        if (n.isObject()) {
            Map<String, String> sorted = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                sorted.put(e.getKey(), canonical(e.getValue()));
            }
            StringBuilder sb = new StringBuilder("{");
            sorted.forEach((k, v) -> sb.append(k).append(':').append(v).append(','));
            return sb.append('}').toString();
        }
        if (n.isArray()) {
            StringBuilder sb = new StringBuilder("[");
            n.forEach(e -> sb.append(canonical(e)).append(','));
            return sb.append(']').toString();
        }
        return n.toString();
    }

    // ------------------------------------------------------------------ reading files

    /** Thrown for a line that is not a JSON object. */
    static final class BadLine extends IOException {
        final int line;
        final String why;

        BadLine(Path file, int line, String why) {
            super(file + ":" + line + ": " + why);
            this.line = line;
            this.why = why;
        }
    }

    /**
     * Reads every line of a JSON-lines file. Lines that are not JSON objects go to {@code bad}
     * (when given) instead of stopping the read; without {@code bad} the first one is thrown.
     */
    static List<Record> readAll(Path file, List<BadLine> bad) throws IOException {
        List<Record> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String text;
            int line = 0;
            while ((text = in.readLine()) != null) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                try {
                    out.add(parse(file, line, text));
                }
                catch (BadLine e) {
                    if (bad == null) {
                        throw e;
                    }
                    bad.add(e);
                }
            }
        }
        return out;
    }

    static Record parse(Path file, int line, String text) throws BadLine {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        }
        catch (com.fasterxml.jackson.core.JacksonException e) {
            String at = e.getLocation() != null ? " at column " + e.getLocation().getColumnNr() : "";
            throw new BadLine(file, line, "not valid JSON" + at + ": " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new BadLine(file, line, "not a JSON object");
        }
        return new Record(line, node);
    }

    /**
     * Drops everything up to and including the first start sentinel (if there is one) and
     * everything from the first end sentinel on; numbers the remaining records from 1.
     */
    static List<Record> trimToWorkload(List<Record> all) {
        int from = 0;
        for (int i = 0; i < all.size(); i++) {
            if (Sentinel.of(all.get(i).value()) == Sentinel.Kind.START) {
                from = i + 1;
                break;
            }
        }
        List<Record> out = new ArrayList<>();
        for (int i = from; i < all.size(); i++) {
            Record r = all.get(i);
            Sentinel.Kind k = Sentinel.of(r.value());
            if (k == Sentinel.Kind.END) {
                break;
            }
            if (k == Sentinel.Kind.START) {
                continue;
            }
            r.index = out.size() + 1;
            out.add(r);
        }
        return out;
    }
}
