package cdckafka.conformance;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Recognises the harness's start/end sentinels.
 *
 * The run script emits {@code pg_logical_emit_message(false, 'cdc_kafka_conformance', 'start')}
 * right before the workload and the same with {@code 'end'} right after it. Both sides turn them
 * into an op "m" record on {@code <prefix>.message}; the message content is encoded according to
 * {@code binary.handling.mode} (base64, url-safe base64 or hex), so all encodings are accepted.
 */
final class Sentinel {

    static final String PREFIX = "cdc_kafka_conformance";

    enum Kind {
        START,
        END,
        NONE
    }

    private Sentinel() {
    }

    /** Classifies a parsed record value (the JsonConverter envelope {schema, payload}); null-safe. */
    static Kind of(JsonNode value) {
        if (value == null || value.isNull()) {
            return Kind.NONE;
        }
        JsonNode payload = value.has("schema") && value.has("payload") ? value.path("payload") : value;
        if (!"m".equals(payload.path("op").asText(null))) {
            return Kind.NONE;
        }
        JsonNode message = payload.path("message");
        if (!PREFIX.equals(message.path("prefix").asText(null))) {
            return Kind.NONE;
        }
        String content = message.path("content").asText("");
        if (encodes(content, "start")) {
            return Kind.START;
        }
        if (encodes(content, "end")) {
            return Kind.END;
        }
        return Kind.NONE;
    }

    /** True if {@code content} is {@code word} in one of Debezium's binary encodings. */
    static boolean encodes(String content, String word) {
        byte[] raw = word.getBytes(StandardCharsets.UTF_8);
        String b64 = Base64.getEncoder().encodeToString(raw);
        String b64url = Base64.getUrlEncoder().encodeToString(raw);
        return content.equals(word)
                || content.equals(b64)
                || content.equals(b64url)
                || content.equals(b64.replace("=", ""))
                || content.equals(b64url.replace("=", ""))
                || content.equalsIgnoreCase(HexFormat.of().formatHex(raw));
    }
}
