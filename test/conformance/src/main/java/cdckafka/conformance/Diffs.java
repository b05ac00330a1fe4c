package cdckafka.conformance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The comparison engine: pairs the records of two runs and compares each pair field by field.
 *
 * Pairing: records are matched in order; when record i (Debezium) and record j (ours) do not
 * have the same identity (topic, key, op, source.lsn), the nearest match within a window is
 * looked for on either side, and the records skipped over are reported as missing in ours or
 * extra in ours. If no match is near, the two are compared as a pair anyway.
 *
 * Field comparison rules:
 * <ul>
 * <li>objects: missing/extra fields, then (separately) the order of the common fields;</li>
 * <li>arrays of objects that all carry a distinct "field" name (struct schemas) are matched by
 *     name like objects, other arrays by position;</li>
 * <li>integers compare exactly, floating-point numbers by double value, except that a column
 *     (or array element, or schema default) of Connect type "float" (PostgreSQL real) compares
 *     as float32: Java's Float.toString differs between JDK versions (JDK 17 writes
 *     1.17549435E-38, JDK 19+ 1.1754944E-38 for the same float); an integer never equals a
 *     floating-point token (Debezium writes 1.0 for a double 1);</li>
 * <li>values not compared (their presence and position are): the wall-clock
 *     value.payload.ts_ms/ts_us/ts_ns of change and message events (records whose payload has
 *     "op"); the header __debezium.context.runId payload (a random
 *     UUID per connector run) is only checked to be a UUID on both sides.</li>
 * </ul>
 */
final class Diffs {

    enum Kind {
        VALUE("value"),
        TYPE("type"),
        MISSING_FIELD("missing field"),
        EXTRA_FIELD("extra field"),
        ORDER("field order"),
        LENGTH("array length"),
        MISSING_RECORD("missing record"),
        EXTRA_RECORD("extra record"),
        INVALID("invalid line");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One difference. debIndex/oursIndex are 1-based record positions, 0 when not applicable. */
    static final class Diff {
        final Kind kind;
        final int debIndex;
        final int oursIndex;
        final String topic;
        final String path;
        final String text;

        Diff(Kind kind, int debIndex, int oursIndex, String topic, String path, String text) {
            this.kind = kind;
            this.debIndex = debIndex;
            this.oursIndex = oursIndex;
            this.topic = topic;
            this.path = path;
            this.text = text;
        }

        /** One report line, e.g. {@code #17 conf.public.t value.payload.after.x: debezium 1 ours 2}. */
        String line() {
            if (debIndex == 0 && oursIndex == 0) {
                return text;
            }
            String where = debIndex > 0 ? "#" + debIndex : "ours #" + oursIndex;
            if (debIndex > 0 && oursIndex > 0 && oursIndex != debIndex) {
                where += " (ours #" + oursIndex + ")";
            }
            return where + " " + topic + (path.isEmpty() ? "" : " " + path) + ": " + text;
        }

        /** Grouping key for the summary: kind and path with array indexes removed. */
        String pattern() {
            if (kind == Kind.INVALID || kind == Kind.MISSING_RECORD || kind == Kind.EXTRA_RECORD) {
                return kind.label + (topic.isEmpty() ? "" : " on " + topic);
            }
            return kind.label + " " + path.replaceAll("\\[\\d+\\]", "[]");
        }
    }

    static final class Result {
        final List<Diff> diffs = new ArrayList<>();
        int compared;
        int debCount;
        int oursCount;

        int count(Kind k) {
            return (int) diffs.stream().filter(d -> d.kind == k).count();
        }
    }

    /** How far ahead to look for the counterpart of an unmatched record. */
    static final int WINDOW = 64;

    private static final Pattern MESSAGE_OBJECT_ID = Pattern.compile(
            "io\\.debezium\\.connector\\.postgresql\\.LogicalDecodingMessageMonitor\\$LogicalDecodingMessageId@[0-9a-f]+");
    private static final Pattern UUID_TEXT = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final String RUN_ID_HEADER = "__debezium.context.runId";

    private Diffs() {
    }

    // ------------------------------------------------------------------ pairing

    static Result compare(List<Record> deb, List<Record> ours) {
        Result res = new Result();
        res.debCount = deb.size();
        res.oursCount = ours.size();
        int i = 0;
        int j = 0;
        while (i < deb.size() && j < ours.size()) {
            Record d = deb.get(i);
            Record o = ours.get(j);
            if (d.strongId().equals(o.strongId())) {
                comparePair(d, o, res);
                i++;
                j++;
                continue;
            }
            int[] skip = resync(deb, ours, i, j, true);
            if (skip == null && d.weakId().equals(o.weakId())) {
                comparePair(d, o, res);
                i++;
                j++;
                continue;
            }
            if (skip == null) {
                skip = resync(deb, ours, i, j, false);
            }
            if (skip == null) {
                comparePair(d, o, res);
                i++;
                j++;
            }
            else if (skip[0] > 0) {
                for (int k = 0; k < skip[0]; k++) {
                    missing(deb.get(i + k), res);
                }
                i += skip[0];
            }
            else {
                for (int k = 0; k < skip[1]; k++) {
                    extra(ours.get(j + k), res);
                }
                j += skip[1];
            }
        }
        for (; i < deb.size(); i++) {
            missing(deb.get(i), res);
        }
        for (; j < ours.size(); j++) {
            extra(ours.get(j), res);
        }
        return res;
    }

    /**
     * Looks ahead for the counterpart of deb[i] in ours and of ours[j] in deb. Returns
     * {debSkip, oursSkip} (one of them 0) for the nearer one, or null when neither is in reach.
     */
    private static int[] resync(List<Record> deb, List<Record> ours, int i, int j, boolean strong) {
        String wantInOurs = strong ? deb.get(i).strongId() : deb.get(i).weakId();
        String wantInDeb = strong ? ours.get(j).strongId() : ours.get(j).weakId();
        int extraInOurs = -1;
        for (int k = 1; k <= WINDOW && j + k < ours.size(); k++) {
            Record o = ours.get(j + k);
            if ((strong ? o.strongId() : o.weakId()).equals(wantInOurs)) {
                extraInOurs = k;
                break;
            }
        }
        int missingInOurs = -1;
        for (int k = 1; k <= WINDOW && i + k < deb.size(); k++) {
            Record d = deb.get(i + k);
            if ((strong ? d.strongId() : d.weakId()).equals(wantInDeb)) {
                missingInOurs = k;
                break;
            }
        }
        if (extraInOurs < 0 && missingInOurs < 0) {
            return null;
        }
        if (missingInOurs < 0 || (extraInOurs >= 0 && extraInOurs <= missingInOurs)) {
            return new int[]{ 0, extraInOurs };
        }
        return new int[]{ missingInOurs, 0 };
    }

    private static void missing(Record d, Result res) {
        res.diffs.add(new Diff(Kind.MISSING_RECORD, d.index, 0, d.topic(), "",
                "missing in ours (debezium record: " + d.describe() + ")"));
    }

    private static void extra(Record o, Result res) {
        res.diffs.add(new Diff(Kind.EXTRA_RECORD, 0, o.index, o.topic(), "",
                "extra in ours (not in debezium: " + o.describe() + ")"));
    }

    // ------------------------------------------------------------------ field comparison

    /** Compares two paired records; the line object's own key order is not significant. */
    static void comparePair(Record d, Record o, Result res) {
        res.compared++;
        new PairComparer(d, o, res).compareRoot();
    }

    private static final class PairComparer {
        private final Record d;
        private final Record o;
        private final Result res;
        private final boolean isEvent;
        /** value.payload.before/after column paths whose Connect type is float32. */
        private final Set<String> float32Columns = new HashSet<>();

        PairComparer(Record d, Record o, Result res) {
            this.d = d;
            this.o = o;
            this.res = res;
            this.isEvent = d.payload().has("op");
            JsonNode valueSchema = d.root.path("value").path("schema");
            // a flattened value (ExtractNewRecordState): the row's columns are the value's fields
            if (valueSchema.path("name").asText("").endsWith(".Value")) {
                for (JsonNode col : valueSchema.path("fields")) {
                    if (isFloat32Schema(col) || isFloat32Schema(col.path("items"))) {
                        float32Columns.add("value.payload." + col.path("field").asText());
                    }
                }
            }
            for (JsonNode part : valueSchema.path("fields")) {
                String name = part.path("field").asText();
                if (!name.equals("before") && !name.equals("after")) {
                    continue;
                }
                for (JsonNode col : part.path("fields")) {
                    if (isFloat32Schema(col) || isFloat32Schema(col.path("items"))) {
                        float32Columns.add("value.payload." + name + "." + col.path("field").asText());
                    }
                }
            }
        }

        private boolean isFloat32(String path) {
            // schemas.enable=false: no schema tells float32 columns apart; every float is compared as one
            if (path.startsWith("value.") && !d.root.path("value").has("schema")) {
                return true;
            }
            int bracket = path.indexOf('[', path.lastIndexOf('.') + 1);
            return float32Columns.contains(bracket < 0 ? path : path.substring(0, bracket));
        }

        void compareRoot() {
            compareObject("", d.root, o.root, false);
        }

        private void add(Kind kind, String path, String text) {
            res.diffs.add(new Diff(kind, d.index, o.index, d.topic(), path, text));
        }

        private boolean skipped(String path) {
            return isEvent && (path.equals("value.payload.ts_ms") || path.equals("value.payload.ts_us")
                    || path.equals("value.payload.ts_ns") || !d.root.path("value").has("schema")
                    && (path.equals("value.ts_ms") || path.equals("value.ts_us") || path.equals("value.ts_ns")));
        }

        private void compare(String path, JsonNode a, JsonNode b) {
            if (skipped(path)) {
                return;
            }
            if (path.equals("headers." + RUN_ID_HEADER + ".payload")
                    || path.equals("headers." + RUN_ID_HEADER) && !d.root.path("value").has("schema")) {
                compareRunId(path, a, b);
                return;
            }
            if (path.equals("timestamp") && a.isNumber() && b.isNumber() && wallClock(a.asLong(), b.asLong())) {
                return;
            }
            if (path.equals("value.payload.data_collections") && a.isArray() && hasMessageObjectId(a)) {
                compareArray(path, sortedByCollection(normalizeMessageIds(a)), sortedByCollection(b));
                return;
            }
            if (a.isObject() && b.isObject()) {
                compareObject(path, a, b, true);
            }
            else if (a.isArray() && b.isArray()) {
                compareArray(path, a, b);
            }
            else if (a.isNumber() && b.isNumber()) {
                compareNumber(path, a, b, isFloat32(path));
            }
            else if (a.getNodeType() != b.getNodeType()) {
                add(Kind.TYPE, path, "debezium " + show(a) + " ours " + show(b));
            }
            else if (!a.equals(b)) {
                add(Kind.VALUE, path, "debezium " + show(a) + " ours " + show(b) + firstDifference(a, b));
            }
        }

        /*
         * A record timestamp taken from the envelope's ts_ms (the outbox EventRouter without an
         * event timestamp column) is the processing time, as ts_ms is: two such timestamps within
         * ten minutes of each other and of now are equal.  Timestamps from a column are exact.
         */
        private boolean wallClock(long a, long b) {
            long now = System.currentTimeMillis();
            return Math.abs(a - b) < 600_000 && Math.abs(now - a) < 86_400_000L;
        }

        /*
         * Debezium 3.6.1 names the data collection of logical decoding messages in transaction
         * END records with the Java object's default toString(), "...LogicalDecodingMessageId@<hash>",
         * a different random value in every run; its identifier() is LOGICAL_DECODING_MESSAGE,
         * which cdc_kafka writes.  The random name also decides the HashMap order of the list, so
         * such lists are compared by content, not order.
         */
        private boolean hasMessageObjectId(JsonNode list) {
            for (JsonNode e : list) {
                if (MESSAGE_OBJECT_ID.matcher(e.path("data_collection").asText()).matches()) {
                    return true;
                }
            }
            return false;
        }

        private JsonNode normalizeMessageIds(JsonNode list) {
            com.fasterxml.jackson.databind.node.ArrayNode out = Record.MAPPER.createArrayNode();
            for (JsonNode e : list) {
                JsonNode copy = e.deepCopy();
                if (MESSAGE_OBJECT_ID.matcher(e.path("data_collection").asText()).matches()) {
                    ((com.fasterxml.jackson.databind.node.ObjectNode) copy).put("data_collection", "LOGICAL_DECODING_MESSAGE");
                }
                out.add(copy);
            }
            return out;
        }

        private JsonNode sortedByCollection(JsonNode list) {
            java.util.List<JsonNode> items = new java.util.ArrayList<>();
            list.forEach(items::add);
            items.sort(java.util.Comparator.comparing(e -> e.path("data_collection").asText()));
            com.fasterxml.jackson.databind.node.ArrayNode out = Record.MAPPER.createArrayNode();
            items.forEach(out::add);
            return out;
        }

        private void compareRunId(String path, JsonNode a, JsonNode b) {
            boolean aOk = a.isTextual() && UUID_TEXT.matcher(a.asText()).matches();
            boolean bOk = b.isTextual() && UUID_TEXT.matcher(b.asText()).matches();
            if (aOk && !bOk) {
                add(Kind.VALUE, path, "debezium a UUID string (" + show(a) + ") ours " + show(b));
            }
        }

        private void compareNumber(String path, JsonNode a, JsonNode b, boolean float32) {
            boolean same;
            if (a.isIntegralNumber() && b.isIntegralNumber()) {
                same = a.bigIntegerValue().equals(b.bigIntegerValue());
            }
            else if (a.isFloatingPointNumber() && b.isFloatingPointNumber()) {
                same = float32 ? Float.compare((float) a.doubleValue(), (float) b.doubleValue()) == 0
                        : Double.compare(a.doubleValue(), b.doubleValue()) == 0;
            }
            else {
                add(Kind.TYPE, path, "debezium " + show(a) + " ours " + show(b)
                        + " (integer vs floating-point token)");
                return;
            }
            if (!same) {
                add(Kind.VALUE, path, "debezium " + show(a) + " ours " + show(b));
            }
        }

        private void compareObject(String path, JsonNode a, JsonNode b, boolean orderMatters) {
            List<String> aKeys = fieldNames(a);
            List<String> bKeys = fieldNames(b);
            for (String k : aKeys) {
                if (!b.has(k)) {
                    add(Kind.MISSING_FIELD, join(path, k), "missing in ours (debezium " + show(a.get(k)) + ")");
                }
            }
            for (String k : bKeys) {
                if (!a.has(k)) {
                    add(Kind.EXTRA_FIELD, join(path, k), "extra in ours (ours " + show(b.get(k)) + ")");
                }
            }
            if (orderMatters) {
                checkOrder(path, aKeys, bKeys);
            }
            boolean float32Default = isFloat32Schema(a);
            for (String k : aKeys) {
                if (!b.has(k)) {
                    continue;
                }
                if (float32Default && k.equals("default") && a.get(k).isNumber() && b.get(k).isNumber()) {
                    compareNumber(join(path, k), a.get(k), b.get(k), true);
                }
                else {
                    compare(join(path, k), a.get(k), b.get(k));
                }
            }
        }

        private void checkOrder(String path, List<String> aKeys, List<String> bKeys) {
            List<String> aCommon = new ArrayList<>(aKeys);
            aCommon.retainAll(bKeys);
            List<String> bCommon = new ArrayList<>(bKeys);
            bCommon.retainAll(aKeys);
            if (!aCommon.equals(bCommon)) {
                add(Kind.ORDER, path.isEmpty() ? "(top level)" : path,
                        "field order differs: debezium " + aCommon + " ours " + bCommon);
            }
        }

        private void compareArray(String path, JsonNode a, JsonNode b) {
            Map<String, JsonNode> aNamed = namedElements(a);
            Map<String, JsonNode> bNamed = namedElements(b);
            if (aNamed != null && bNamed != null) {
                compareNamedArray(path, aNamed, bNamed);
                return;
            }
            if (a.size() != b.size()) {
                add(Kind.LENGTH, path, "debezium " + a.size() + " elements, ours " + b.size()
                        + " (debezium " + show(a) + " ours " + show(b) + ")");
            }
            for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
                compare(path + "[" + k + "]", a.get(k), b.get(k));
            }
        }

        /** Struct schema "fields" lists: matched by the "field" name of each element. */
        private void compareNamedArray(String path, Map<String, JsonNode> a, Map<String, JsonNode> b) {
            for (String k : a.keySet()) {
                if (!b.containsKey(k)) {
                    add(Kind.MISSING_FIELD, path + "[" + k + "]", "missing in ours (debezium " + show(a.get(k)) + ")");
                }
            }
            for (String k : b.keySet()) {
                if (!a.containsKey(k)) {
                    add(Kind.EXTRA_FIELD, path + "[" + k + "]", "extra in ours (ours " + show(b.get(k)) + ")");
                }
            }
            checkOrder(path, new ArrayList<>(a.keySet()), new ArrayList<>(b.keySet()));
            for (Map.Entry<String, JsonNode> e : a.entrySet()) {
                JsonNode other = b.get(e.getKey());
                if (other != null) {
                    compare(path + "[" + e.getKey() + "]", e.getValue(), other);
                }
            }
        }
    }

    private static boolean isFloat32Schema(JsonNode schema) {
        return "float".equals(schema.path("type").asText(null));
    }

    /** Elements by their "field" name if every element is an object with a distinct one, else null. */
    private static Map<String, JsonNode> namedElements(JsonNode array) {
        if (array.isEmpty()) {
            return null;
        }
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (JsonNode e : array) {
            if (!e.isObject() || !e.path("field").isTextual() || byName.containsKey(e.get("field").asText())) {
                return null;
            }
            byName.put(e.get("field").asText(), e);
        }
        return byName;
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        Iterator<String> it = n.fieldNames();
        while (it.hasNext()) {
            names.add(it.next());
        }
        return names;
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    // ------------------------------------------------------------------ rendering values

    static String show(JsonNode n) {
        return shorten(n == null ? "(absent)" : n.toString(), 160);
    }

    static String shorten(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        return s.substring(0, max) + "...(" + s.length() + " chars)";
    }

    /** For long strings: where they start to differ. */
    private static String firstDifference(JsonNode a, JsonNode b) {
        if (!a.isTextual() || !b.isTextual()) {
            return "";
        }
        String x = a.asText();
        String y = b.asText();
        if (x.length() <= 60 && y.length() <= 60) {
            return "";
        }
        int k = 0;
        while (k < x.length() && k < y.length() && x.charAt(k) == y.charAt(k)) {
            k++;
        }
        return " (first difference at char " + k + ": debezium ..." + shorten(x.substring(k), 40)
                + " ours ..." + shorten(y.substring(k), 40) + ")";
    }

    /** Difference counts per pattern (kind, topic, path), most frequent first. */
    static List<Map.Entry<String, Integer>> patterns(List<Diff> diffs) {
        Map<String, Integer> counts = new HashMap<>();
        Set<String> order = new LinkedHashSet<>();
        for (Diff d : diffs) {
            counts.merge(d.pattern(), 1, Integer::sum);
            order.add(d.pattern());
        }
        List<Map.Entry<String, Integer>> list = new ArrayList<>();
        for (String p : order) {
            list.add(Map.entry(p, counts.get(p)));
        }
        list.sort((x, y) -> y.getValue() - x.getValue());
        return list;
    }
}
