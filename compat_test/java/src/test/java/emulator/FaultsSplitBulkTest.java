package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Injected 429 and 503, splits during a paged query and a change feed, and bulk. */
class FaultsSplitBulkTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("fsb");
    static CosmosDatabase db;

    @BeforeAll
    static void setUp() {
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabase(dbId);
        db = client.getDatabase(dbId);
    }

    @AfterAll
    static void tearDown() {
        db.delete();
        client.close();
        async.close();
    }

    static ObjectNode doc(String id, String pk) {
        return Env.JSON.createObjectNode().put("id", id).put("pk", pk);
    }

    static Map<String, Object> rule(String op, String coll, int status, int count) {
        return Map.of("match", Map.of("operation", op, "database", dbId, "container", coll),
            "response", Map.of("status", status, "retryAfterMs", 20), "count", count);
    }

    @Test
    void throttledReadIsRetried() {
        db.createContainer("t429", "/pk");
        CosmosContainer c = db.getContainer("t429");
        c.createItem(doc("a", "p"));
        String name = Env.uid("r429");
        Env.fault(name, rule("Read", "t429", 429, 2));
        try {
            var r = c.readItem("a", new PartitionKey("p"), JsonNode.class);
            assertEquals(200, r.getStatusCode());
            assertEquals(2, Env.faultHits(name));
            assertTrue(r.getDiagnostics().toString().contains("429"), "diagnostics show the throttled tries");
        } finally {
            Env.deleteFault(name);
        }
    }

    /**
     * A 503 on a read: the Java SDK retries a 503 only in another preferred region
     * (ClientRetryPolicy.shouldRetryOnServiceUnavailable: "No other regions available"),
     * so with the emulator's one region it surfaces at once, as from a one-region
     * account; the caller's own retry then succeeds.
     */
    @Test
    void unavailableReadSurfacesInOneRegion() {
        db.createContainer("t503", "/pk");
        CosmosAsyncContainer c = async.getDatabase(dbId).getContainer("t503");
        c.createItem(doc("a", "p")).block();
        String name = Env.uid("r503");
        Env.fault(name, rule("Read", "t503", 503, 1));
        try {
            CosmosException e = assertThrows(CosmosException.class,
                () -> c.readItem("a", new PartitionKey("p"), JsonNode.class).block());
            assertEquals(503, e.getStatusCode());
            assertEquals(1, Env.faultHits(name));
            assertEquals(200, c.readItem("a", new PartitionKey("p"), JsonNode.class).block().getStatusCode());
        } finally {
            Env.deleteFault(name);
        }
    }

    @Test
    void splitDuringPagedQueryAndChangeFeed() {
        db.createContainer("split", "/pk");
        CosmosContainer c = db.getContainer("split");
        for (int i = 0; i < 30; i++) {
            c.createItem(doc("s" + i, "p" + i).put("n", i));
        }
        assertEquals(1, c.getFeedRanges().size());
        // First page of an ORDER BY query and a change feed, then the split.
        String q = "SELECT c.n FROM c ORDER BY c.n";
        Iterator<FeedResponse<JsonNode>> qit = c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(5).iterator();
        FeedResponse<JsonNode> first = qit.next();
        List<Integer> seen = new ArrayList<>();
        first.getResults().forEach(j -> seen.add(j.get("n").asInt()));
        Iterator<FeedResponse<JsonNode>> cfit = c.queryChangeFeed(
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()).setMaxItemCount(5),
            JsonNode.class).iterableByPage().iterator();
        FeedResponse<JsonNode> cfFirst = cfit.next();
        List<String> cfSeen = new ArrayList<>();
        cfFirst.getResults().forEach(j -> cfSeen.add(j.get("id").asText()));

        JsonNode children = Env.split(dbId, "split", "0");
        assertNotNull(children);
        assertEquals(2, c.getFeedRanges().size());

        // Resumed later from the continuations, on the children.
        c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(first.getContinuationToken(), 5)
            .forEach(p -> p.getResults().forEach(j -> seen.add(j.get("n").asInt())));
        assertEquals(java.util.stream.IntStream.range(0, 30).boxed().toList(), seen);
        c.queryChangeFeed(CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(cfFirst.getContinuationToken()),
            JsonNode.class).iterableByPage().forEach(p -> p.getResults().forEach(j -> cfSeen.add(j.get("id").asText())));
        assertEquals(30, cfSeen.size(), cfSeen.toString());
        assertEquals(30, new HashSet<>(cfSeen).size());
        // A query of the split container over both children.
        assertEquals(30, c.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class)
            .stream().findFirst().orElseThrow());
    }

    @Test
    void bulk() {
        db.createContainer(new CosmosContainerProperties("bulk", "/pk"), ThroughputProperties.createManualThroughput(30000));
        CosmosAsyncContainer c = async.getDatabase(dbId).getContainer("bulk");
        List<CosmosItemOperation> creates = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            creates.add(CosmosBulkOperations.getCreateItemOperation(doc("b" + i, "p" + (i % 13)), new PartitionKey("p" + (i % 13))));
        }
        List<CosmosBulkOperationResponse<Object>> res = c.executeBulkOperations(Flux.fromIterable(creates)).collectList().block();
        assertEquals(100, res.size());
        for (var r : res) {
            assertNull(r.getException(), () -> String.valueOf(r.getException()));
            assertEquals(201, r.getResponse().getStatusCode());
        }
        // Mixed: upsert, replace, delete, and a create that collides (409, the rest go on).
        List<CosmosItemOperation> mixed = List.of(
            CosmosBulkOperations.getUpsertItemOperation(doc("b0", "p0").put("v", 1), new PartitionKey("p0")),
            CosmosBulkOperations.getReplaceItemOperation("b1", doc("b1", "p1").put("v", 2), new PartitionKey("p1")),
            CosmosBulkOperations.getDeleteItemOperation("b2", new PartitionKey("p2")),
            CosmosBulkOperations.getCreateItemOperation(doc("b3", "p3"), new PartitionKey("p3")),
            CosmosBulkOperations.getReadItemOperation("b4", new PartitionKey("p4")));
        List<CosmosBulkOperationResponse<Object>> mr = new ArrayList<>();
        client.getDatabase(dbId).getContainer("bulk").executeBulkOperations(mixed).forEach(mr::add);
        Map<String, Integer> status = new java.util.HashMap<>();
        for (var r : mr) {
            status.put(r.getOperation().getPartitionKeyValue().toString().replaceAll("[^a-z0-9]", ""), r.getResponse().getStatusCode());
        }
        assertEquals(Map.of("p0", 200, "p1", 200, "p2", 204, "p3", 409, "p4", 200), status);
        assertEquals(99, c.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class)
            .blockFirst());
        assertEquals(404, assertThrows(CosmosException.class,
            () -> c.readItem("b2", new PartitionKey("p2"), JsonNode.class).block()).getStatusCode());
    }
}
