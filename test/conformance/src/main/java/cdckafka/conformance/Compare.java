package cdckafka.conformance;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares the records of one profile: Debezium's JSON lines against ours.
 *
 * <pre>
 * Compare [--profile NAME] [--max-details N] DEBEZIUM.jsonl OURS.jsonl
 * </pre>
 *
 * Both files are trimmed to the workload (see {@link Record#trimToWorkload}), paired and compared
 * by {@link Diffs}. Prints {@code profile NAME: N records compared, M differences}, a breakdown,
 * up to N detail lines (default 200; a difference repeated identically in several records, such
 * as a schema difference, is one line naming the other records) and the most frequent patterns.
 * Exit status: 0 no difference, 1 differences, 2 unreadable input.
 */
public final class Compare {

    public static void main(String[] args) {
        String profile = null;
        int maxDetails = 200;
        String debFile = null;
        String oursFile = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--profile" -> profile = args[++i];
                case "--max-details" -> maxDetails = Integer.parseInt(args[++i]);
                default -> {
                    if (debFile == null) {
                        debFile = args[i];
                    }
                    else if (oursFile == null) {
                        oursFile = args[i];
                    }
                    else {
                        usage("unexpected argument " + args[i]);
                    }
                }
            }
        }
        if (oursFile == null) {
            usage("two files are needed");
        }
        if (profile == null) {
            profile = Path.of(oursFile).getFileName().toString().replaceFirst("\\.jsonl$", "");
        }
        Diffs.Result res;
        try {
            res = run(Path.of(debFile), Path.of(oursFile));
        }
        catch (IOException e) {
            System.out.println("profile " + profile + ": cannot compare: " + e.getMessage());
            System.exit(2);
            return;
        }
        report(System.out, profile, res, maxDetails);
        System.exit(res.diffs.isEmpty() ? 0 : 1);
    }

    private static void usage(String problem) {
        System.err.println("compare: " + problem);
        System.err.println("usage: Compare [--profile NAME] [--max-details N] DEBEZIUM.jsonl OURS.jsonl");
        System.exit(2);
    }

    static Diffs.Result run(Path deb, Path ours) throws IOException {
        List<Record> a = Record.trimToWorkload(Record.readAll(deb, null));
        List<Record.BadLine> bad = new ArrayList<>();
        List<Record> b = Record.trimToWorkload(Record.readAll(ours, bad));
        Diffs.Result res = Diffs.compare(a, b);
        for (int k = 0; k < bad.size(); k++) {
            Record.BadLine e = bad.get(k);
            res.diffs.add(k, new Diffs.Diff(Diffs.Kind.INVALID, 0, 0, "", "",
                    "ours line " + e.line + " is not a JSON object (" + e.why + "); the record is left out"));
        }
        return res;
    }

    static void report(PrintStream out, String profile, Diffs.Result res, int maxDetails) {
        out.printf("profile %s: %d records compared, %d differences%n", profile, res.compared, res.diffs.size());
        if (res.diffs.isEmpty() && res.debCount == res.oursCount) {
            return;
        }
        out.printf("  records: debezium %d, ours %d; differences: %d values, %d types, %d missing fields,"
                + " %d extra fields, %d field order, %d array lengths, %d missing records, %d extra records,"
                + " %d invalid lines%n",
                res.debCount, res.oursCount,
                res.count(Diffs.Kind.VALUE), res.count(Diffs.Kind.TYPE),
                res.count(Diffs.Kind.MISSING_FIELD), res.count(Diffs.Kind.EXTRA_FIELD),
                res.count(Diffs.Kind.ORDER), res.count(Diffs.Kind.LENGTH),
                res.count(Diffs.Kind.MISSING_RECORD), res.count(Diffs.Kind.EXTRA_RECORD),
                res.count(Diffs.Kind.INVALID));
        List<Group> groups = group(res.diffs);
        int shown = 0;
        for (Group g : groups) {
            if (shown++ >= maxDetails) {
                out.printf("  ... %d more distinct differences not shown%n", groups.size() - maxDetails);
                break;
            }
            out.println("  " + g.describe());
        }
        List<Map.Entry<String, Integer>> patterns = Diffs.patterns(res.diffs);
        if (patterns.size() > 1) {
            out.println("  most frequent differences (kind path: count):");
            for (int k = 0; k < Math.min(20, patterns.size()); k++) {
                out.printf("    %s: %d%n", patterns.get(k).getKey(), patterns.get(k).getValue());
            }
        }
    }

    /** Identical differences (same kind, path and text; any topic) found in several records. */
    private static final class Group {
        final Diffs.Diff first;
        final List<Diffs.Diff> more = new ArrayList<>();

        Group(Diffs.Diff first) {
            this.first = first;
        }

        String describe() {
            if (more.isEmpty()) {
                return first.line();
            }
            StringBuilder also = new StringBuilder();
            for (int k = 0; k < Math.min(8, more.size()); k++) {
                Diffs.Diff d = more.get(k);
                also.append(k == 0 ? "" : " ").append(d.debIndex > 0 ? "#" + d.debIndex : "ours #" + d.oursIndex);
            }
            if (more.size() > 8) {
                also.append(" ...");
            }
            return first.line() + "  [same in " + more.size() + " more record" + (more.size() == 1 ? "" : "s")
                    + ": " + also + "]";
        }
    }

    /**
     * Groups identical differences, in order of first appearance (so a missing header or a schema
     * difference repeated in every record is one line); record-level ones stay apart.
     */
    static List<Group> group(List<Diffs.Diff> diffs) {
        Map<String, Group> groups = new LinkedHashMap<>();
        int unique = 0;
        for (Diffs.Diff d : diffs) {
            boolean recordLevel = d.kind == Diffs.Kind.MISSING_RECORD || d.kind == Diffs.Kind.EXTRA_RECORD
                    || d.kind == Diffs.Kind.INVALID;
            String key = recordLevel ? "#" + (unique++) : d.kind + "|" + d.path + "|" + d.text;
            Group g = groups.get(key);
            if (g == null) {
                groups.put(key, new Group(d));
            }
            else {
                g.more.add(d);
            }
        }
        return new ArrayList<>(groups.values());
    }
}
