package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * HTTP requests the Java SDK (gateway mode, caches warm) makes per operation, counted in
 * the emulator's --log-requests log (cosmos.emulatorLog; mk/java.mk starts the emulator
 * so). The figures are in docs/benchmarks.md.
 */
class RoundTripTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("rt");
    static CosmosDatabase db;
    static Path log;

    @BeforeAll
    static void setUp() {
        String p = System.getProperty("cosmos.emulatorLog", "");
        org.junit.jupiter.api.Assumptions.assumeFalse(p.isEmpty() && !"true".equals(System.getenv("CI")),
            "no emulator log (run through make java-sdk-tests)");
        assertFalse(p.isEmpty(), "no emulator log given (cosmos.emulatorLog)");
        log = Path.of(p);
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabase(dbId);
        db = client.getDatabase(dbId);
        db.createContainer("one", "/pk");
        db.createContainer(new CosmosContainerProperties("five", "/pk"), ThroughputProperties.createManualThroughput(30000));
        for (String c : List.of("one", "five")) {
            for (int i = 0; i < 20; i++) {
                db.getContainer(c).createItem(Map.of("id", "i" + i, "pk", "p" + (i % 4), "n", i));
            }
        }
    }

    @AfterAll
    static void tearDown() {
        if (db != null) {
            db.delete();
            client.close();
            async.close();
        }
    }

    /** The request lines of the log so far. */
    static List<String> requests() throws Exception {
        List<String> out = new ArrayList<>();
        for (String l : Files.readAllLines(log)) {
            if (l.contains("msg=request ")) {
                out.add(l.replaceAll(".* method=(\\S+) path=(\\S+) status=(\\d+).*", "$1 $2 $3"));
            }
        }
        return out;
    }

    /** The requests op made: the log's lines after it ran. */
    static List<String> count(Runnable op) throws Exception {
        int before = requests().size();
        op.run();
        Thread.sleep(200); // the log line is written after the answer
        List<String> all = requests();
        return all.subList(before, all.size());
    }

    @Test
    void requestsPerOperation() throws Exception {
        CosmosContainer one = db.getContainer("one");
        CosmosContainer five = db.getContainer("five");
        // Warm the caches (container, ranges) of both containers in both clients.
        for (CosmosContainer c : List.of(one, five)) {
            c.readItem("i0", new PartitionKey("p0"), JsonNode.class);
            c.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(), JsonNode.class).stream().count();
            CosmosAsyncContainer ac = async.getDatabase(dbId).getContainer(c.getId());
            ac.readItem("i0", new PartitionKey("p0"), JsonNode.class).block();
            ac.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(), JsonNode.class).collectList().block();
        }
        Map<String, List<String>> got = new java.util.LinkedHashMap<>();
        got.put("point read", count(() -> one.readItem("i1", new PartitionKey("p1"), JsonNode.class)));
        got.put("create", count(() -> one.createItem(Map.of("id", "new", "pk", "p0"))));
        got.put("upsert", count(() -> one.upsertItem(Map.of("id", "new", "pk", "p0", "v", 1))));
        Map<String, Integer> plans = new java.util.LinkedHashMap<>();
        for (String cn : List.of("one", "five")) {
            CosmosAsyncContainer c = async.getDatabase(dbId).getContainer(cn);
            String name = cn.equals("one") ? "1 range" : "5 ranges";
            for (String kind : List.of("single-partition", "cross-partition", "cross-partition ORDER BY")) {
                String q = kind.contains("ORDER BY") ? "SELECT * FROM c ORDER BY c.n" : "SELECT * FROM c";
                java.util.function.Supplier<CosmosQueryRequestOptions> opts = () -> kind.equals("single-partition")
                    ? new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p1")) : new CosmosQueryRequestOptions();
                String[] cont = new String[1];
                for (String page : List.of("first page", "later page")) {
                    String label = kind + ", " + page + ", " + name;
                    String fault = Env.uid("plans");
                    Env.fault(fault, Map.of("match", Map.of("operation", "QueryPlan", "database", dbId),
                        "response", Map.of("delayMs", 1)));
                    // One page from a fresh paged flux, resumed from the last continuation.
                    got.put(label, count(() -> cont[0] = c.queryItems(q, opts.get(), JsonNode.class)
                        .byPage(cont[0], 2).take(1).blockLast().getContinuationToken()));
                    plans.put(label, Env.faultHits(fault));
                    Env.deleteFault(fault);
                }
            }
        }
        // Whole drains: requests per page once the pages are counted (the SDK fetches ahead,
        // so a page's own request may be made while the caller still reads the one before).
        Map<String, int[]> drains = new java.util.LinkedHashMap<>();
        for (String cn : List.of("one", "five")) {
            CosmosAsyncContainer c = async.getDatabase(dbId).getContainer(cn);
            for (String kind : List.of("single-partition", "cross-partition")) {
                CosmosQueryRequestOptions o = kind.equals("single-partition")
                    ? new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p1")) : new CosmosQueryRequestOptions();
                String fault = Env.uid("plans");
                Env.fault(fault, Map.of("match", Map.of("operation", "QueryPlan", "database", dbId), "response", Map.of("delayMs", 1)));
                int[] pages = new int[1];
                List<String> reqs = count(() -> pages[0] = c.queryItems("SELECT * FROM c", o, JsonNode.class).byPage(2)
                    .collectList().block().size());
                drains.put("drain, " + kind + ", " + (cn.equals("one") ? "1 range" : "5 ranges"),
                    new int[] {reqs.size(), pages[0], Env.faultHits(fault)});
                Env.deleteFault(fault);
            }
        }
        // The sync iterable fetches ahead: its first page pulls the following ones too.
        got.put("sync iterableByPage(2), first page, 5 pk values", count(() ->
            one.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p1")),
                JsonNode.class).iterableByPage(2).iterator().next()));
        StringBuilder report = new StringBuilder();
        got.forEach((k, v) -> report.append(String.format("%-50s %2d requests (%s query plan)%n", k, v.size(),
            plans.getOrDefault(k, 0))));
        drains.forEach((k, v) -> report.append(String.format("%-50s %2d requests (%d query plan) for %d pages%n", k, v[0], v[2], v[1])));
        System.out.print(report);
        Files.writeString(Path.of("target", "roundtrips.txt"), report.toString());
        // Point operations: one request each, nothing hidden.
        assertEquals(1, got.get("point read").size(), report.toString());
        assertEquals(1, got.get("create").size(), report.toString());
        assertEquals(1, got.get("upsert").size(), report.toString());
        // Drained: one request per page, plus the query plan (none for a single-partition
        // query once the client has cached its plan).
        // Across 5 ranges, a range without items answers one empty page, which the SDK
        // does not hand on.
        int emptyRanges = 0;
        for (var r : five.getFeedRanges()) {
            if (five.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions().setFeedRange(r), Integer.class)
                    .stream().findFirst().orElse(0) == 0) {
                emptyRanges++;
            }
        }
        report.append("ranges of the 5-range container without items: ").append(emptyRanges).append('\n');
        Files.writeString(Path.of("target", "roundtrips.txt"), report.toString());
        for (var e : drains.entrySet()) {
            int[] v = e.getValue();
            int empty = e.getKey().equals("drain, cross-partition, 5 ranges") ? emptyRanges : 0;
            assertEquals(v[1] + v[2] + empty, v[0], e.getKey() + "\n" + report);
        }
    }
}
