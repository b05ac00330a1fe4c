import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import com.fasterxml.jackson.databind.*;
import org.apache.kafka.connect.data.*;
import org.apache.kafka.connect.json.JsonConverter;
import io.debezium.transforms.outbox.JsonSchemaData;
import io.debezium.transforms.outbox.EventRouterConfigDefinition.JsonPayloadNullFieldBehavior;
import io.debezium.config.CommonConnectorConfig.FieldNameAdjustmentMode;
import io.debezium.schema.FieldNameSelector;

/*
 * The oracle behind test/unit/jsonexpand_test.c: Debezium 3.6.1 JsonSchemaData and
 * Kafka JsonConverter on the same inputs.  Run with the conformance harness jars:
 *   javac -cp "$(ls test/conformance/target/lib/*.jar | tr "\n" :)" JsonExpandOracle.java
 *   java -cp "$(ls test/conformance/target/lib/*.jar | tr "\n" :):." JsonExpandOracle cases.txt
 * Input: cases separated by a line "=====", each case: first line "<mode> <nullbehavior>", rest the payload (final newline dropped). */
public class JsonExpandOracle {
    public static void main(String[] a) throws Exception {
        String all = new String(Files.readAllBytes(Paths.get(a[0])), StandardCharsets.UTF_8);
        JsonConverter conv = new JsonConverter();
        conv.configure(Map.of("schemas.enable", "true"), false);
        for (String c : all.split("\n=====\n", -1)) {
            int nl = c.indexOf('\n');
            String[] hdr = c.substring(0, nl).split(" ");
            String payload = c.substring(nl + 1);
            if (payload.endsWith("\n")) payload = payload.substring(0, payload.length() - 1);
            JsonSchemaData d = new JsonSchemaData(JsonPayloadNullFieldBehavior.parse(hdr[1]),
                FieldNameSelector.defaultNonRelationalSelector(FieldNameAdjustmentMode.parse(hdr[0]).createAdjuster()));
            String out;
            try {
                if (!(payload.startsWith("{") || payload.startsWith("["))) throw new Exception("Unable to parse payload starting with '" + payload.charAt(0) + "'");
                JsonNode n = new ObjectMapper().readTree(payload);
                Schema s = d.toConnectSchema("payload", n);
                Object v = d.toConnectData(n, s);
                Struct outer = new Struct(SchemaBuilder.struct().field("payload", s).build()).put("payload", v);
                byte[] b = conv.fromConnectData("t", s, v);
                out = new String(b, StandardCharsets.UTF_8);
            } catch (Throwable e) {
                out = "FAIL " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace("\n", " ");
                if (out.length() > 200) out = out.substring(0, 200);
            }
            System.out.println(out);
        }
    }
}
