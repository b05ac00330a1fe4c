package cdckafka.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Creates topics for bench/stream.sh in one go (one JVM instead of one kafka-topics run per
 * topic): each with the given partitions, replication factor 1 and
 * message.timestamp.type=LogAppendTime, so that every message carries the broker's clock at the
 * moment it appended it.
 *
 * <pre>
 * CreateTopics BOOTSTRAP PARTITIONS TOPIC...
 * </pre>
 */
public final class CreateTopics {

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: CreateTopics BOOTSTRAP PARTITIONS TOPIC...");
            System.exit(2);
        }
        int partitions = Integer.parseInt(args[1]);
        List<NewTopic> topics = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            topics.add(new NewTopic(args[i], partitions, (short) 1)
                    .configs(Map.of("message.timestamp.type", "LogAppendTime")));
        }
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }
}
