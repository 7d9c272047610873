package emulator;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A point-read loop at one synchronous client, for docs/benchmarks.md:
 * make java-sdk-tests JAVA_SDK_PORT=... JAVA_SDK_ARGS="-Dtest=PointReadBench -Dcosmos.bench=5000"
 * (gateway mode; -Dcosmos.benchMode=direct reads in the SDK's default direct mode).
 * Excluded from the suite (pom.xml) and skipped without cosmos.bench.
 */
class PointReadBench {
    @Test
    void pointReads() {
        String n = System.getProperty("cosmos.bench");
        Assumptions.assumeTrue(n != null && System.getProperty("javax.net.ssl.trustStore") != null,
            "a benchmark: -Dcosmos.bench=N in the trust store's execution");
        int reads = Integer.parseInt(n);
        String mode = System.getProperty("cosmos.benchMode", "gateway");
        try (CosmosClient client = mode.equals("direct") ? DirectModeTest.client("direct") : Env.client()) {
            String db = Env.uid("bench");
            client.createDatabase(db);
            client.getDatabase(db).createContainer("c", "/pk");
            CosmosContainer c = client.getDatabase(db).getContainer("c");
            c.createItem(Map.of("id", "1", "pk", "a", "payload", "x".repeat(1000)));
            for (int i = 0; i < 500; i++) { // warm-up
                c.readItem("1", new PartitionKey("a"), JsonNode.class);
            }
            long[] lat = new long[reads];
            long start = System.nanoTime();
            for (int i = 0; i < reads; i++) {
                long t = System.nanoTime();
                c.readItem("1", new PartitionKey("a"), JsonNode.class);
                lat[i] = System.nanoTime() - t;
            }
            double secs = (System.nanoTime() - start) / 1e9;
            Arrays.sort(lat);
            System.out.printf("java point read (%s mode): %d reads in %.2f s = %.0f ops/s, p50 %.3f ms, p99 %.3f ms%n",
                mode, reads, secs, reads / secs, lat[reads / 2] / 1e6, lat[reads * 99 / 100] / 1e6);
            client.getDatabase(db).delete();
            assertTrue(secs > 0);
        }
    }
}
