package cdckafka.conformance;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Proves the comparator can fail: applies deliberate mutations to a copy of Debezium's records
 * and checks that {@link Diffs} reports exactly the expected differences, no more, no fewer.
 *
 * <pre>
 * MutationCheck DEBEZIUM.jsonl
 * </pre>
 *
 * Each case prints "ok" or "FAILED" with what was reported; the last line is
 * "mutation-check: N passed, M failed". Exit status 0 only if every case passed.
 */
public final class MutationCheck {

    /** What a case expects: each entry is "kind|debIndex|path" (oursIndex for extra records). */
    private record Case(String name, Function<List<String>, List<String>> mutate, List<String> expected) {
    }

    private final List<String> lines;
    private final List<Record> base;
    private int passed;
    private int failed;

    private MutationCheck(List<String> lines) throws IOException {
        this.lines = lines;
        this.base = parse(lines);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: MutationCheck DEBEZIUM.jsonl");
            System.exit(2);
        }
        List<String> lines = new ArrayList<>();
        for (String l : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (!l.isBlank()) {
                lines.add(l);
            }
        }
        if (lines.size() < 10) {
            System.err.println("mutation-check: need at least 10 records, " + args[0] + " has " + lines.size());
            System.exit(2);
        }
        MutationCheck check = new MutationCheck(lines);
        check.runAll();
        System.out.printf("mutation-check: %d passed, %d failed%n", check.passed, check.failed);
        System.exit(check.failed == 0 ? 0 : 1);
    }

    // ------------------------------------------------------------------ the cases

    private void runAll() throws IOException {
        int ins = find(r -> "c".equals(r.op()) && r.payload().path("after").size() >= 3
                && firstScalar(r.payload().path("after")) != null);
        int upd = find(r -> "u".equals(r.op()) && base.stream()
                .filter(o -> o.index > r.index && o.weakId().equals(r.weakId())).findAny().isEmpty());
        int flt = find(r -> findFloat(r.root.path("value").path("payload").path("after")) != null);
        int intField = find(r -> findInt(r.root.path("value").path("payload").path("after")) != null);
        int withHeader = find(r -> r.root.path("headers").has("__debezium.oldkey"));
        int mid = base.size() / 2;

        check(new Case("unmodified copy", l -> l, List.of()));

        String afterField = firstScalar(base.get(ins).payload().path("after"));
        check(new Case("one value changed", l -> edit(l, ins, root -> {
            ObjectNode after = (ObjectNode) root.path("value").path("payload").path("after");
            JsonNode old = after.get(afterField);
            after.set(afterField, old.isNumber() ? IntNode.valueOf(old.asInt() + 1) : TextNode.valueOf(old.asText() + "x"));
        }), List.of("value|" + (ins + 1) + "|value.payload.after." + afterField)));

        check(new Case("two fields swapped", l -> edit(l, ins, root -> {
            ObjectNode payload = (ObjectNode) root.path("value").path("payload");
            payload.set("after", swapFirstTwo((ObjectNode) payload.get("after")));
        }), List.of("field order|" + (ins + 1) + "|value.payload.after")));

        check(new Case("schema field order swapped", l -> edit(l, ins, root -> {
            ArrayNode fields = (ArrayNode) root.path("value").path("schema").path("fields");
            JsonNode first = fields.remove(0);
            fields.insert(1, first);
        }), List.of("field order|" + (ins + 1) + "|value.schema.fields")));

        check(new Case("field missing in ours", l -> edit(l, ins, root ->
                ((ObjectNode) root.path("value").path("payload").path("source")).remove("xmin")),
                List.of("missing field|" + (ins + 1) + "|value.payload.source.xmin")));

        check(new Case("schema field missing in ours", l -> edit(l, ins, root -> {
            ArrayNode fields = (ArrayNode) root.path("value").path("schema").path("fields").get(1).path("fields");
            fields.remove(fields.size() - 1);
        }), List.of("missing field|" + (ins + 1) + "|value.schema.fields[after].fields["
                + lastFieldName(base.get(ins)) + "]")));

        check(new Case("one record dropped", l -> without(l, mid),
                List.of("missing record|" + (mid + 1) + "|")));

        check(new Case("one record duplicated", l -> duplicated(l, mid),
                List.of("extra record|" + (mid + 2) + "|")));

        check(new Case("first record dropped", l -> without(l, 0), List.of("missing record|1|")));

        check(new Case("last record dropped", l -> without(l, l.size() - 1),
                List.of("missing record|" + base.size() + "|")));

        check(new Case("source.lsn changed", l -> edit(l, ins, root -> {
            ObjectNode source = (ObjectNode) root.path("value").path("payload").path("source");
            source.put("lsn", source.path("lsn").asLong() + 8);
        }), List.of("value|" + (ins + 1) + "|value.payload.source.lsn")));

        check(new Case("key changed", l -> edit(l, ins, root -> {
            ObjectNode key = (ObjectNode) root.path("key").path("payload");
            String f = key.fieldNames().next();
            key.set(f, key.get(f).isNumber() ? IntNode.valueOf(987654321) : TextNode.valueOf("no such key"));
        }), List.of("value|" + (ins + 1) + "|key.payload." + base.get(ins).root.path("key").path("payload").fieldNames().next())));

        check(new Case("wall-clock ts_ms/ts_us/ts_ns changed (skipped)", l -> edit(l, ins, root -> {
            ObjectNode payload = (ObjectNode) root.path("value").path("payload");
            payload.put("ts_ms", 1L);
            payload.put("ts_us", 2L);
            payload.put("ts_ns", 3L);
        }), List.of()));

        check(new Case("source.ts_ms changed (compared)", l -> edit(l, ins, root ->
                ((ObjectNode) root.path("value").path("payload").path("source")).put("ts_ms", 1L)),
                List.of("value|" + (ins + 1) + "|value.payload.source.ts_ms")));

        check(new Case("run id header is another UUID (not compared)", l -> editAll(l, root -> {
            JsonNode h = root.path("headers").path("__debezium.context.runId");
            if (h.isObject()) {
                ((ObjectNode) h).put("payload", "00000000-0000-4000-8000-000000000000");
            }
        }), List.of()));

        if (upd >= 0) {
            check(new Case("operation changed", l -> edit(l, upd, root ->
                    ((ObjectNode) root.path("value").path("payload")).put("op", "c")),
                    List.of("value|" + (upd + 1) + "|value.payload.op")));
        }
        if (flt >= 0) {
            String path = findFloat(base.get(flt).root.path("value").path("payload").path("after"));
            double v = base.get(flt).root.path("value").path("payload").path("after").get(path).doubleValue();
            check(new Case("float written in another notation (equal)", l -> textEdit(l, flt, path, exponentForm(v)),
                    List.of()));
            String next = isFloat32(base.get(flt), path) ? Float.toString(Math.nextUp((float) v))
                    : Double.toString(Math.nextUp(v));
            check(new Case("float changed in the last digit", l -> textEdit(l, flt, path, next),
                    List.of("value|" + (flt + 1) + "|value.payload.after." + path)));
        }
        int real = find(r -> findFloat32(r) != null);
        if (real >= 0) {
            String path = findFloat32(base.get(real));
            float f = (float) base.get(real).payload().path("after").get(path).doubleValue();
            String exact = new BigDecimal((double) f).toString();
            check(new Case("real written as its exact binary value (equal as float32)",
                    l -> textEdit(l, real, path, exact), List.of()));
        }
        if (intField >= 0) {
            String path = findInt(base.get(intField).root.path("value").path("payload").path("after"));
            long v = base.get(intField).root.path("value").path("payload").path("after").get(path).longValue();
            check(new Case("integer written as floating point", l -> textEdit(l, intField, path, v + ".0"),
                    List.of("type|" + (intField + 1) + "|value.payload.after." + path)));
        }
        if (withHeader >= 0) {
            check(new Case("header missing", l -> edit(l, withHeader, root ->
                    ((ObjectNode) root.path("headers")).remove("__debezium.oldkey")),
                    List.of("missing field|" + (withHeader + 1) + "|headers.__debezium.oldkey")));
        }

        check(new Case("three mutations in different records", l -> {
            List<String> m = edit(l, ins, root -> {
                ObjectNode after = (ObjectNode) root.path("value").path("payload").path("after");
                JsonNode old = after.get(afterField);
                after.set(afterField, old.isNumber() ? IntNode.valueOf(old.asInt() + 1) : TextNode.valueOf(old.asText() + "x"));
            });
            m = without(m, mid);
            return edit(m, m.size() - 1, root -> ((ObjectNode) root).put("topic", "conf.other.topic"));
        }, List.of("value|" + (ins + 1) + "|value.payload.after." + afterField,
                "missing record|" + (mid + 1) + "|",
                "value|" + base.size() + "|topic")));
    }

    // ------------------------------------------------------------------ running a case

    private void check(Case c) throws IOException {
        List<Record> mutated = parse(c.mutate.apply(new ArrayList<>(lines)));
        Diffs.Result res = Diffs.compare(base, mutated);
        List<String> got = new ArrayList<>();
        for (Diffs.Diff d : res.diffs) {
            int idx = d.kind == Diffs.Kind.EXTRA_RECORD ? d.oursIndex : d.debIndex;
            got.add(d.kind.label + "|" + idx + "|" + d.path);
        }
        List<String> want = new ArrayList<>(c.expected);
        boolean ok = got.size() == want.size() && got.containsAll(want) && want.containsAll(got);
        if (ok) {
            passed++;
            System.out.printf("  ok      %s (%d difference%s)%n", c.name, got.size(), got.size() == 1 ? "" : "s");
        }
        else {
            failed++;
            System.out.printf("  FAILED  %s%n    expected %s%n    reported %s%n", c.name, want, got);
            for (Diffs.Diff d : res.diffs) {
                System.out.println("      " + d.line());
            }
        }
    }

    private static List<Record> parse(List<String> lines) throws IOException {
        List<Record> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            out.add(Record.parse(Path.of("mutated"), i + 1, lines.get(i)));
        }
        return Record.trimToWorkload(out);
    }

    // ------------------------------------------------------------------ mutations

    private interface Editor {
        void apply(ObjectNode root) throws IOException;
    }

    private static List<String> edit(List<String> l, int index, Editor e) {
        List<String> out = new ArrayList<>(l);
        try {
            ObjectNode root = (ObjectNode) Record.MAPPER.readTree(out.get(index));
            e.apply(root);
            out.set(index, Record.MAPPER.writeValueAsString(root));
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        return out;
    }

    private static List<String> editAll(List<String> l, Editor e) {
        List<String> out = l;
        for (int i = 0; i < l.size(); i++) {
            out = edit(out, i, e);
        }
        return out;
    }

    /** Replaces the JSON text of value.payload.after.FIELD by {@code text}, verbatim. */
    private static List<String> textEdit(List<String> l, int index, String field, String text) {
        String marker = "\"@@MUTATION@@\"";
        List<String> out = edit(l, index, root ->
                ((ObjectNode) root.path("value").path("payload").path("after")).put(field, "@@MUTATION@@"));
        out.set(index, out.get(index).replace(marker, text));
        return out;
    }

    private static List<String> without(List<String> l, int index) {
        List<String> out = new ArrayList<>(l);
        out.remove(index);
        return out;
    }

    private static List<String> duplicated(List<String> l, int index) {
        List<String> out = new ArrayList<>(l);
        out.add(index + 1, l.get(index));
        return out;
    }

    private static ObjectNode swapFirstTwo(ObjectNode o) {
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = o.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            fields.put(e.getKey(), e.getValue());
        }
        List<String> names = new ArrayList<>(fields.keySet());
        ObjectNode swapped = o.objectNode();
        swapped.set(names.get(1), fields.get(names.get(1)));
        swapped.set(names.get(0), fields.get(names.get(0)));
        for (int i = 2; i < names.size(); i++) {
            swapped.set(names.get(i), fields.get(names.get(i)));
        }
        return swapped;
    }

    // ------------------------------------------------------------------ finding suitable records

    private int find(Predicate<Record> p) {
        for (int i = 1; i < base.size(); i++) {
            if (p.test(base.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String firstScalar(JsonNode obj) {
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isTextual() || e.getValue().isIntegralNumber()) {
                return e.getKey();
            }
        }
        return null;
    }

    private static String findFloat(JsonNode obj) {
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isFloatingPointNumber() && v.doubleValue() != 0 && !Double.isInfinite(v.doubleValue())) {
                return e.getKey();
            }
        }
        return null;
    }

    private static boolean isFloat32(Record r, String column) {
        for (JsonNode col : r.root.path("value").path("schema").path("fields").get(1).path("fields")) {
            if (col.path("field").asText().equals(column)) {
                return "float".equals(col.path("type").asText());
            }
        }
        return false;
    }

    /** A real (float32) column of the after image with a non-zero finite value whose exact value has many digits. */
    private static String findFloat32(Record r) {
        Iterator<Map.Entry<String, JsonNode>> it = r.payload().path("after").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isFloatingPointNumber() && isFloat32(r, e.getKey())) {
                float f = (float) v.doubleValue();
                if (f != 0 && !Float.isInfinite(f) && (double) f != v.doubleValue()) {
                    return e.getKey();
                }
            }
        }
        return null;
    }

    private static String findInt(JsonNode obj) {
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isIntegralNumber()) {
                return e.getKey();
            }
        }
        return null;
    }

    private static String lastFieldName(Record r) {
        JsonNode fields = r.root.path("value").path("schema").path("fields").get(1).path("fields");
        return fields.get(fields.size() - 1).path("field").asText();
    }

    /** The same double in exponent notation, e.g. 4.44 -> 444E-2. */
    private static String exponentForm(double v) {
        BigDecimal d = new BigDecimal(Double.toString(v));
        return d.unscaledValue() + "E" + (-d.scale());
    }
}
