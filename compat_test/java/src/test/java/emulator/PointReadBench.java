package emulator;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Point reads of one 1 KB item through one synchronous client, in gateway mode
 * and in the SDK's default direct mode side by side, for docs/benchmarks.md:
 * make java-bench (or run.sh -Dtest=PointReadBench -Dcosmos.bench=N). For each
 * mode and each caller count of cosmos.benchThreads (default "1,8") it reads
 * the item N times in all (after 500 reads of warm-up) and prints one row:
 * ops/s, p50 and p99 of the reads' latencies. cosmos.benchMode=gateway or
 * direct runs one mode only. cosmos.benchSlow=true prints the SDK's diagnostics (with the
 * direct-mode transport timeline) of up to 12 reads: those over 50 ms and every 200th. Excluded from the suite (pom.xml) and skipped
 * without cosmos.bench.
 */
class PointReadBench {
    @Test
    void pointReads() throws Exception {
        String n = System.getProperty("cosmos.bench");
        Assumptions.assumeTrue(n != null && System.getProperty("javax.net.ssl.trustStore") != null,
            "a benchmark: -Dcosmos.bench=N in the trust store's execution");
        int reads = Integer.parseInt(n);
        String only = System.getProperty("cosmos.benchMode", "");
        List<String> modes = only.isEmpty() ? List.of("gateway", "direct") : List.of(only);
        int[] threads = Arrays.stream(System.getProperty("cosmos.benchThreads", "1,8").split(","))
            .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        String db = Env.uid("bench");
        try (CosmosClient setup = Env.client()) {
            setup.createDatabase(db);
            setup.getDatabase(db).createContainer("c", "/pk");
            setup.getDatabase(db).getContainer("c").createItem(Map.of("id", "1", "pk", "a", "payload", "x".repeat(1000)));
            System.out.println("| mode | callers | reads | ops/s | p50 | p99 |");
            System.out.println("| --- | --- | --- | --- | --- | --- |");
            for (int callers : threads) {
                for (String mode : modes) {
                    try (CosmosClient client = DirectModeTest.client(mode)) {
                        CosmosContainer c = client.getDatabase(db).getContainer("c");
                        for (int i = 0; i < 500; i++) { // warm-up
                            c.readItem("1", new PartitionKey("a"), JsonNode.class);
                        }
                        DirectModeTest.assertTransport(mode, c.readItem("1", new PartitionKey("a"), JsonNode.class).getDiagnostics());
                        run(mode, callers, reads, c);
                    }
                }
            }
            setup.getDatabase(db).delete();
        }
    }

    /** Reads the item reads times in all from callers threads and prints the row. */
    static void run(String mode, int callers, int reads, CosmosContainer c) throws Exception {
        int each = reads / callers;
        long[] lat = new long[each * callers];
        AtomicInteger slowShown = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<?>> done = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < callers; t++) {
                int base = t * each;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        long s = System.nanoTime();
                        CosmosItemResponse<JsonNode> r = c.readItem("1", new PartitionKey("a"), JsonNode.class);
                        JsonNode item = r.getItem();
                        lat[base + i] = System.nanoTime() - s;
                        if ((lat[base + i] > 50_000_000L || i % 200 == 199) && slowShown.getAndIncrement() < 12 && Boolean.getBoolean("cosmos.benchSlow")) {
                            System.out.println("slow read (" + lat[base + i] / 1_000_000 + " ms): " + r.getDiagnostics());
                        }
                        assertEquals("1", item.get("id").asText());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            double secs = (System.nanoTime() - start) / 1e9;
            Arrays.sort(lat);
            System.out.printf("| %s | %d | %d | %.0f | %.2f ms | %.2f ms |%n", mode, callers, lat.length, lat.length / secs,
                lat[lat.length / 2] / 1e6, lat[lat.length * 99 / 100] / 1e6);
        } finally {
            pool.shutdown();
        }
    }
}
