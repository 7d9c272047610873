package emulator;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.models.ChangeFeedProcessorItem;
import com.azure.cosmos.models.ChangeFeedProcessorOptions;
import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDiagnostics;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.CosmosPermissionProperties;
import com.azure.cosmos.models.CosmosStoredProcedureProperties;
import com.azure.cosmos.models.CosmosUserProperties;
import com.azure.cosmos.models.PermissionMode;
import com.azure.cosmos.models.CosmosStoredProcedureRequestOptions;
import com.azure.cosmos.models.CosmosStoredProcedureResponse;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.stream.IntStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The Java SDK in its default connection mode (direct: RNTBD over TLS to the
 * addresses GET /addresses hands out; no .gatewayMode()), and the same
 * operations in gateway mode: point operations on items, 404, 409 and 412.
 * In direct mode every answer's diagnostics must name an rntbd:// replica,
 * which only the direct transport produces.
 */
class DirectModeTest {
    static CosmosClient setup;
    static String dbId = Env.uid("direct");

    @BeforeAll
    static void setUp() {
        setup = Env.client();
        setup.createDatabase(dbId);
        setup.getDatabase(dbId).createContainer("c", "/pk");
        // 5 partition key ranges (30,000 RU/s), 20 items over 10 logical partitions
        setup.getDatabase(dbId).createContainer(new CosmosContainerProperties("q", "/pk"),
            ThroughputProperties.createManualThroughput(30000));
        CosmosContainer q = setup.getDatabase(dbId).getContainer("q");
        for (int i = 0; i < 20; i++) {
            q.createItem(doc("i" + i, "p" + (i % 10), i));
        }
        setup.getDatabase(dbId).getContainer("c").getScripts().createStoredProcedure(new CosmosStoredProcedureProperties("mk",
            "function (id, n) { console.log('making ' + id); var ctx = getContext(); var coll = ctx.getCollection();"
                + " var ok = coll.createDocument(coll.getSelfLink(), {id: id, pk: 'sp', n: n}, function (err, doc) {"
                + " if (err) throw err; ctx.getResponse().setBody({created: doc.id, twice: n * 2}); });"
                + " if (!ok) throw new Error('not accepted'); }"));
    }

    @AfterAll
    static void tearDown() {
        setup.getDatabase(dbId).delete();
        setup.close();
    }

    /** A client as users write it for production: direct mode is the default. */
    static CosmosClient client(String mode) {
        return builder(mode).buildClient();
    }

    /** The async client of client(mode). */
    static CosmosAsyncClient asyncClient(String mode) {
        return builder(mode).buildAsyncClient();
    }

    /** The builder of client(mode) and asyncClient(mode). */
    private static CosmosClientBuilder builder(String mode) {
        CosmosClientBuilder b = new CosmosClientBuilder()
            .endpoint(Env.endpoint())
            .key(Env.KEY)
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(true);
        if (mode.equals("gateway")) {
            b.gatewayMode();
        }
        return b;
    }

    static void assertTransport(String mode, CosmosDiagnostics diag) {
        String d = diag.toString();
        if (mode.equals("direct")) {
            assertTrue(d.contains("rntbd://"), "direct mode answered without an rntbd replica: " + d);
        } else {
            assertFalse(d.contains("rntbd://"), "gateway mode answered through an rntbd replica: " + d);
        }
    }

    static ObjectNode doc(String id, String pk, int v) {
        return Env.JSON.createObjectNode().put("id", id).put("pk", pk).put("v", v);
    }

    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void pointOperations(String mode) {
        try (CosmosClient client = client(mode)) {
            // a database read, which direct mode sends to the master partition
            assertEquals(200, client.createDatabaseIfNotExists(dbId).getStatusCode());
            CosmosContainer c = client.getDatabase(dbId).getContainer("c");
            String id = "item-" + mode;
            PartitionKey pk = new PartitionKey("p-" + mode);

            CosmosItemResponse<ObjectNode> created = c.createItem(doc(id, "p-" + mode, 1));
            assertEquals(201, created.getStatusCode());
            assertEquals(1, created.getItem().get("v").asInt());
            assertNotNull(created.getETag());
            assertTrue(created.getRequestCharge() > 0);
            assertNotNull(created.getSessionToken());
            assertTransport(mode, created.getDiagnostics());

            CosmosItemResponse<JsonNode> read = c.readItem(id, pk, JsonNode.class);
            assertEquals(200, read.getStatusCode());
            assertEquals(1, read.getItem().get("v").asInt());
            assertEquals(created.getETag(), read.getETag());
            assertTransport(mode, read.getDiagnostics());

            CosmosItemResponse<ObjectNode> upserted = c.upsertItem(doc(id, "p-" + mode, 2));
            assertEquals(200, upserted.getStatusCode());
            assertEquals(2, upserted.getItem().get("v").asInt());
            assertTransport(mode, upserted.getDiagnostics());
            assertEquals(201, c.upsertItem(doc(id + "-new", "p-" + mode, 1)).getStatusCode());

            CosmosItemResponse<ObjectNode> replaced = c.replaceItem(doc(id, "p-" + mode, 3), id, pk,
                new CosmosItemRequestOptions().setIfMatchETag(upserted.getETag()));
            assertEquals(200, replaced.getStatusCode());
            assertEquals(3, replaced.getItem().get("v").asInt());
            assertTransport(mode, replaced.getDiagnostics());

            CosmosItemResponse<JsonNode> patched = c.patchItem(id, pk, CosmosPatchOperations.create().set("/v", 4), JsonNode.class);
            assertEquals(200, patched.getStatusCode());
            assertEquals(4, patched.getItem().get("v").asInt());
            assertTransport(mode, patched.getDiagnostics());

            // 409: the id exists
            CosmosException conflict = assertThrows(CosmosException.class, () -> c.createItem(doc(id, "p-" + mode, 9)));
            assertEquals(409, conflict.getStatusCode());
            assertTransport(mode, conflict.getDiagnostics());

            // 412: a stale etag
            CosmosException stale = assertThrows(CosmosException.class, () -> c.replaceItem(doc(id, "p-" + mode, 9), id, pk,
                new CosmosItemRequestOptions().setIfMatchETag(created.getETag())));
            assertEquals(412, stale.getStatusCode());
            assertTransport(mode, stale.getDiagnostics());

            CosmosItemResponse<Object> deleted = c.deleteItem(id, pk, new CosmosItemRequestOptions());
            assertEquals(204, deleted.getStatusCode());
            assertTransport(mode, deleted.getDiagnostics());

            // 404: read after delete, in the same session
            CosmosException gone = assertThrows(CosmosException.class, () -> c.readItem(id, pk, JsonNode.class));
            assertEquals(404, gone.getStatusCode());
            assertEquals(0, gone.getSubStatusCode());
            assertTransport(mode, gone.getDiagnostics());
            CosmosException deleteAgain = assertThrows(CosmosException.class, () -> c.deleteItem(id, pk, new CosmosItemRequestOptions()));
            assertEquals(404, deleteAgain.getStatusCode());
        }
    }

    /**
     * Queries with the SDK's pipeline over a container of 5 ranges: the plan
     * comes from the gateway, each range's pages from the transport of the
     * mode (rntbd in direct mode): one logical partition, ORDER BY across
     * ranges in pages of 3, and an aggregate.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void queries(String mode) {
        try (CosmosClient client = client(mode)) {
            CosmosContainer q = client.getDatabase(dbId).getContainer("q");

            List<Integer> single = new ArrayList<>();
            for (FeedResponse<JsonNode> page : q.queryItems(
                    new SqlQuerySpec("SELECT * FROM c WHERE c.pk = @pk", new SqlParameter("@pk", "p3")),
                    new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p3")), JsonNode.class).iterableByPage()) {
                page.getResults().forEach(n -> single.add(n.get("v").asInt()));
                assertTransport(mode, page.getCosmosDiagnostics());
            }
            single.sort(null);
            assertEquals(List.of(3, 13), single);

            List<Integer> ordered = new ArrayList<>();
            int pages = 0;
            for (FeedResponse<JsonNode> page : q.queryItems("SELECT c.v FROM c WHERE c.v >= 5 ORDER BY c.v DESC",
                    new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(3)) {
                page.getResults().forEach(n -> ordered.add(n.get("v").asInt()));
                assertTransport(mode, page.getCosmosDiagnostics());
                pages++;
            }
            List<Integer> want = new ArrayList<>();
            for (int v = 19; v >= 5; v--) {
                want.add(v);
            }
            assertEquals(want, ordered);
            assertTrue(pages >= 5, "15 results in pages of 3 came in " + pages + " pages");

            long count = q.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Long.class)
                .stream().findFirst().orElseThrow();
            assertEquals(20, count);
        }
    }

    /**
     * A transactional batch (committed, and one rolled back by a 409) and
     * bulk operations over 5 ranges, in both modes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void batchAndBulk(String mode) {
        try (CosmosClient client = client(mode)) {
            String coll = "bulk-" + mode;
            client.getDatabase(dbId).createContainer(new CosmosContainerProperties(coll, "/pk"),
                ThroughputProperties.createManualThroughput(30000));
            CosmosContainer c = client.getDatabase(dbId).getContainer(coll);
            PartitionKey pk = new PartitionKey("batch");

            CosmosBatch ok = CosmosBatch.createCosmosBatch(pk);
            ok.createItemOperation(doc("b1", "batch", 1));
            ok.upsertItemOperation(doc("b2", "batch", 2));
            ok.readItemOperation("b1");
            CosmosBatchResponse r = c.executeCosmosBatch(ok);
            assertTrue(r.isSuccessStatusCode(), "batch status " + r.getStatusCode());
            assertEquals(3, r.size());
            assertEquals(201, r.getResults().get(0).getStatusCode());
            assertEquals(1, r.getResults().get(2).getItem(JsonNode.class).get("v").asInt());
            assertTransport(mode, r.getDiagnostics());

            CosmosBatch bad = CosmosBatch.createCosmosBatch(pk);
            bad.createItemOperation(doc("b3", "batch", 3));
            bad.createItemOperation(doc("b1", "batch", 9));
            CosmosBatchResponse br = c.executeCosmosBatch(bad);
            assertFalse(br.isSuccessStatusCode());
            assertEquals(409, br.getStatusCode());
            assertEquals(424, br.getResults().get(0).getStatusCode());
            assertEquals(409, br.getResults().get(1).getStatusCode());
            assertEquals(404, assertThrows(CosmosException.class, () -> c.readItem("b3", pk, JsonNode.class)).getStatusCode());

            List<CosmosItemOperation> ops = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                ops.add(CosmosBulkOperations.getCreateItemOperation(doc("k" + i, "p" + (i % 13), i), new PartitionKey("p" + (i % 13))));
            }
            ops.add(CosmosBulkOperations.getCreateItemOperation(doc("b1", "batch", 9), pk)); // 409, the rest go on
            Map<Integer, Integer> statuses = new TreeMap<>();
            for (CosmosBulkOperationResponse<Object> res : c.executeBulkOperations(ops)) {
                assertNull(res.getException(), () -> String.valueOf(res.getException()));
                statuses.merge(res.getResponse().getStatusCode(), 1, Integer::sum);
                assertTransport(mode, res.getResponse().getCosmosDiagnostics());
            }
            assertEquals(Map.of(201, 40, 409, 1), statuses);
            assertEquals(42, c.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Long.class)
                .stream().findFirst().orElseThrow());
        }
    }

    /** A stored procedure executed in a logical partition, with its log, and one that throws (400). */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void storedProcedure(String mode) throws Exception {
        try (CosmosClient client = client(mode)) {
            CosmosContainer c = client.getDatabase(dbId).getContainer("c");
            PartitionKey pk = new PartitionKey("sp");
            CosmosStoredProcedureResponse r = c.getScripts().getStoredProcedure("mk").execute(List.of("sp-" + mode, 21),
                new CosmosStoredProcedureRequestOptions().setPartitionKey(pk).setScriptLoggingEnabled(true));
            JsonNode res = Env.JSON.readTree(r.getResponseAsString());
            assertEquals("sp-" + mode, res.get("created").asText());
            assertEquals(42, res.get("twice").asInt());
            assertEquals("making sp-" + mode, r.getScriptLog());
            assertTransport(mode, r.getDiagnostics());
            assertEquals(21, c.readItem("sp-" + mode, pk, JsonNode.class).getItem().get("n").asInt());
            CosmosException e = assertThrows(CosmosException.class, () -> c.getScripts().getStoredProcedure("mk")
                .execute(List.of("sp-" + mode, 1), new CosmosStoredProcedureRequestOptions().setPartitionKey(pk)));
            assertEquals(400, e.getStatusCode());
            assertTransport(mode, e.getDiagnostics());
        }
    }

    /** Drains a change feed; returns the ids seen and the last continuation. */
    record Drained(List<String> ids, String continuation) {}

    static Drained drain(String mode, CosmosContainer c, CosmosChangeFeedRequestOptions o) {
        List<String> ids = new ArrayList<>();
        String cont = null;
        for (FeedResponse<JsonNode> page : c.queryChangeFeed(o, JsonNode.class).iterableByPage()) {
            page.getResults().forEach(j -> ids.add(j.get("id").asText()));
            if (!page.getResults().isEmpty()) {
                assertTransport(mode, page.getCosmosDiagnostics());
            }
            cont = page.getContinuationToken();
        }
        return new Drained(ids, cont);
    }

    /**
     * The change feed pull model (latest version) over 5 ranges: from now,
     * from the beginning, per feed range, from a continuation after an
     * update, and per logical partition.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void changeFeed(String mode) {
        try (CosmosClient client = client(mode)) {
            String coll = "cf-" + mode;
            client.getDatabase(dbId).createContainer(new CosmosContainerProperties(coll, "/pk"),
                ThroughputProperties.createManualThroughput(30000));
            CosmosContainer c = client.getDatabase(dbId).getContainer(coll);
            Drained now = drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()));
            assertEquals(List.of(), now.ids());
            for (int i = 0; i < 20; i++) {
                c.createItem(doc("d" + i, "p" + i, i));
            }
            Drained all = drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()));
            assertEquals(20, new HashSet<>(all.ids()).size());
            assertEquals(20, new HashSet<>(drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation())).ids()).size());
            int total = 0;
            for (FeedRange r : c.getFeedRanges()) {
                total += drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(r)).ids().size();
            }
            assertEquals(20, total);
            c.upsertItem(doc("d3", "p3", 99));
            assertEquals(List.of("d3"), drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(all.continuation())).ids());
            assertEquals(List.of("d3"), drain(mode, c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forLogicalPartition(new PartitionKey("p3")))).ids());
        }
    }

    /** Two 429s injected with the fault endpoints: the SDK retries after them and the read succeeds. */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void injectedThrottling(String mode) {
        try (CosmosClient client = client(mode)) {
            CosmosContainer c = client.getDatabase(dbId).getContainer("c");
            String id = "throttled-" + mode;
            c.createItem(doc(id, "t", 1));
            String rule = "direct-test-429-" + mode;
            Env.fault(rule, Map.of("match", Map.of("operation", "Read", "resourceType", "docs", "container", "c", "id", id),
                "response", Map.of("status", 429, "substatus", 3200, "retryAfterMs", 10), "count", 2));
            try {
                CosmosItemResponse<JsonNode> read = c.readItem(id, new PartitionKey("t"), JsonNode.class);
                assertEquals(200, read.getStatusCode());
                assertTransport(mode, read.getDiagnostics());
                assertEquals(2, Env.faultHits(rule));
            } finally {
                Env.deleteFault(rule);
            }
        }
    }

    /** A client holding only a read resource token on the container: reads and queries, 403 on a write. */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void resourceToken(String mode) {
        String user = "reader-" + mode;
        setup.getDatabase(dbId).createUser(new CosmosUserProperties().setId(user));
        String token;
        try (var async = Env.asyncClient()) {
            token = async.getDatabase(dbId).getUser(user).createPermission(new CosmosPermissionProperties().setId("read-c")
                .setContainerName("c").setPermissionMode(PermissionMode.READ), null).block().getProperties().getToken();
        }
        String id = "secret-" + mode;
        setup.getDatabase(dbId).getContainer("c").createItem(doc(id, "r", 5));
        CosmosClientBuilder b = new CosmosClientBuilder().endpoint(Env.endpoint()).resourceToken(token)
            .consistencyLevel(ConsistencyLevel.SESSION);
        if (mode.equals("gateway")) {
            b.gatewayMode();
        }
        try (CosmosClient limited = b.buildClient()) {
            CosmosContainer lc = limited.getDatabase(dbId).getContainer("c");
            CosmosItemResponse<JsonNode> read = lc.readItem(id, new PartitionKey("r"), JsonNode.class);
            assertEquals(5, read.getItem().get("v").asInt());
            assertTransport(mode, read.getDiagnostics());
            assertEquals(1, lc.queryItems("SELECT * FROM c WHERE c.id = '" + id + "'",
                new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("r")), JsonNode.class).stream().count());
            CosmosException e = assertThrows(CosmosException.class, () -> lc.createItem(doc("x-" + mode, "r", 1)));
            assertEquals(403, e.getStatusCode());
        }
    }

    /**
     * A split between the pages of an ORDER BY query and of a change feed:
     * both resume from their continuations on the children (the client's
     * caches still name the parent range: in direct mode its request to it
     * is answered 410/1002 and the SDK refreshes its ranges and addresses),
     * and point operations of the same session go on.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void splitDuringQueryAndChangeFeed(String mode) {
        try (CosmosClient client = client(mode)) {
            String coll = "split-" + mode;
            client.getDatabase(dbId).createContainer(coll, "/pk");
            CosmosContainer c = client.getDatabase(dbId).getContainer(coll);
            for (int i = 0; i < 30; i++) {
                c.createItem(doc("s" + i, "p" + i, i));
            }
            assertEquals(1, c.getFeedRanges().size());
            String q = "SELECT c.v FROM c ORDER BY c.v";
            Iterator<FeedResponse<JsonNode>> qit = c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class)
                .iterableByPage(5).iterator();
            FeedResponse<JsonNode> first = qit.next();
            assertTransport(mode, first.getCosmosDiagnostics());
            List<Integer> seen = new ArrayList<>();
            first.getResults().forEach(j -> seen.add(j.get("v").asInt()));
            Iterator<FeedResponse<JsonNode>> cfit = c.queryChangeFeed(
                CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()).setMaxItemCount(5),
                JsonNode.class).iterableByPage().iterator();
            FeedResponse<JsonNode> cfFirst = cfit.next();
            List<String> cfSeen = new ArrayList<>();
            cfFirst.getResults().forEach(j -> cfSeen.add(j.get("id").asText()));

            assertNotNull(Env.split(dbId, coll, "0"));
            // counted through another client: this one's caches still name the parent range
            assertEquals(2, setup.getDatabase(dbId).getContainer(coll).getFeedRanges().size());

            c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(first.getContinuationToken(), 5)
                .forEach(p -> p.getResults().forEach(j -> seen.add(j.get("v").asInt())));
            assertEquals(IntStream.range(0, 30).boxed().toList(), seen);
            c.queryChangeFeed(CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(cfFirst.getContinuationToken()),
                JsonNode.class).iterableByPage().forEach(p -> p.getResults().forEach(j -> cfSeen.add(j.get("id").asText())));
            assertEquals(30, new HashSet<>(cfSeen).size(), cfSeen.toString());
            assertEquals(30, c.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class)
                .stream().findFirst().orElseThrow());
            c.upsertItem(doc("s7", "p7", 70));
            CosmosItemResponse<JsonNode> read = c.readItem("s7", new PartitionKey("p7"), JsonNode.class);
            assertEquals(70, read.getItem().get("v").asInt());
            assertTransport(mode, read.getDiagnostics());
        }
    }

    /**
     * The all-versions-and-deletes change feed: a create, a replace and a
     * delete read from a continuation taken before them, in both modes. The
     * writes go over the mode's transport; the Java SDK reads this feed
     * through the gateway even in direct mode (ChangeFeedStateV1 sets
     * useGatewayMode for FULL_FIDELITY: "the Split-handling logic resides
     * within Compute Gateway"), which the diagnostics show.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void allVersionsAndDeletes(String mode) {
        try (CosmosClient client = client(mode)) {
            String coll = "avad-" + mode;
            client.getDatabase(dbId).createContainer(new CosmosContainerProperties(coll, "/pk"),
                ThroughputProperties.createManualThroughput(30000));
            CosmosContainer c = client.getDatabase(dbId).getContainer(coll);
            Drained start = drain("gateway", c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange())
                .allVersionsAndDeletes());
            assertTransport(mode, c.createItem(doc("x", "a", 1)).getDiagnostics());
            assertTransport(mode, c.upsertItem(doc("x", "a", 2)).getDiagnostics());
            assertTransport(mode, c.deleteItem("x", new PartitionKey("a"), new CosmosItemRequestOptions()).getDiagnostics());
            List<JsonNode> changes = new ArrayList<>();
            for (FeedResponse<JsonNode> page : c.queryChangeFeed(
                CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(start.continuation()).allVersionsAndDeletes(),
                JsonNode.class).iterableByPage()) {
                changes.addAll(page.getResults());
                assertTransport("gateway", page.getCosmosDiagnostics());
            }
            assertEquals(List.of("create", "replace", "delete"),
                changes.stream().map(j -> j.get("metadata").get("operationType").asText()).toList(), changes.toString());
            assertEquals(2, changes.get(1).get("current").get("v").asInt());
        }
    }

    /** Waits (60 s at most) until every id of want was seen; the failure names those missing. */
    static void awaitSeen(Map<String, AtomicInteger> seen, Set<String> want) throws InterruptedException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
        while (!seen.keySet().containsAll(want)) {
            if (System.nanoTime() > deadline) {
                Set<String> missing = new java.util.TreeSet<>(want);
                missing.removeAll(seen.keySet());
                fail("changes never delivered: " + missing);
            }
            Thread.sleep(100);
        }
    }

    /**
     * The Change Feed Processor with the mode's client over 5 ranges, a
     * latest-version processor (handleChanges) and an all-versions one
     * (handleAllVersionsAndDeletesChanges) on one lease container: every
     * create once to the first, every create and delete once to the
     * second; then a split while running, after which the latest-version
     * processor gets the new changes of the children exactly once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "gateway"})
    void changeFeedProcessor(String mode) throws Exception {
        String coll = "cfp-" + mode;
        setup.getDatabase(dbId).createContainer(new CosmosContainerProperties(coll, "/pk"),
            ThroughputProperties.createManualThroughput(30000));
        setup.getDatabase(dbId).createContainer("leases-" + mode, "/id");
        try (CosmosAsyncClient async = asyncClient(mode)) {
            CosmosAsyncContainer feed = async.getDatabase(dbId).getContainer(coll);
            CosmosAsyncContainer leases = async.getDatabase(dbId).getContainer("leases-" + mode);
            assertTransport(mode, feed.createItem(doc("probe", "probe", 0)).block().getDiagnostics());
            Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
            ChangeFeedProcessor latest = ChangeFeedProcessorTest.processor("host-1", feed, leases, "lv", seen, new ConcurrentHashMap<>());
            List<String> versions = new CopyOnWriteArrayList<>();
            ChangeFeedProcessorOptions vo = ChangeFeedProcessorTest.options("av");
            vo.setStartFromBeginning(false); // this mode starts from now
            ChangeFeedProcessor all = new ChangeFeedProcessorBuilder()
                .hostName("host-1")
                .feedContainer(feed)
                .leaseContainer(leases)
                .options(vo)
                .handleAllVersionsAndDeletesChanges((List<ChangeFeedProcessorItem> items) -> {
                    for (ChangeFeedProcessorItem it : items) {
                        JsonNode j = it.toJsonNode();
                        String id = j.path("current").path("id").asText(j.path("metadata").path("id").asText(j.path("previous").path("id").asText("")));
                        versions.add(it.getChangeFeedMetaData().getOperationType().toString().toLowerCase() + ":" + id);
                    }
                })
                .buildChangeFeedProcessor();
            latest.start().block();
            all.start().block();
            try {
                // The all-versions leases start from now: wait until each lease document holds
                // the continuation of its first, empty read (PartitionProcessorImpl checkpoints
                // a 304 whose continuation is new), so that no write below comes before "now".
                CosmosContainer leaseDocs = setup.getDatabase(dbId).getContainer("leases-" + mode);
                ChangeFeedProcessorTest.await("both processors hold 5 leases, the all-versions ones a continuation", () ->
                    latest.getCurrentState().block().size() == 5 && leaseDocs.queryItems(
                        "SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.id, 'av') AND IS_STRING(c.ContinuationToken)"
                            + " AND LENGTH(c.ContinuationToken) > 0", new CosmosQueryRequestOptions(), Integer.class)
                        .stream().findFirst().orElse(0) == 5);
                ChangeFeedProcessorTest.await("the probe", () -> seen.containsKey("probe"));
                ChangeFeedProcessorTest.write(feed, "a", 30);
                Set<String> want = ChangeFeedProcessorTest.ids("a", 30);
                want.add("probe");
                awaitSeen(seen, want);
                // deleted once the latest-version processor has them (that feed does not
                // show an item deleted before it is read)
                for (int i = 0; i < 5; i++) {
                    feed.deleteItem("a" + i, new PartitionKey("pk" + i)).block();
                }
                ChangeFeedProcessorTest.await("35 versions", () -> versions.size() >= 35);
                Thread.sleep(1000);
                ChangeFeedProcessorTest.assertExactlyOnce(seen, want);
                List<String> wantVersions = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    wantVersions.add("create:a" + i);
                }
                for (int i = 0; i < 5; i++) {
                    wantVersions.add("delete:a" + i);
                }
                List<String> got = new ArrayList<>(versions);
                got.sort(null);
                wantVersions.sort(null);
                assertEquals(wantVersions, got);

                all.stop().block();
                Env.split(dbId, coll, "0");
                assertEquals(6, feed.getFeedRanges().block().size());
                // until the processor has replaced the parent's lease, the state query of
                // that lease is answered 410/1002 (the range is gone), as by the service
                ChangeFeedProcessorTest.await("6 leases after the split", () -> {
                    try {
                        return latest.getCurrentState().block().size() == 6;
                    } catch (CosmosException e) {
                        assertEquals(410, e.getStatusCode(), e::toString);
                        return false;
                    }
                });
                ChangeFeedProcessorTest.write(feed, "b", 20);
                want.addAll(ChangeFeedProcessorTest.ids("b", 20));
                awaitSeen(seen, want);
                Thread.sleep(1000);
                ChangeFeedProcessorTest.assertExactlyOnce(seen, want);
            } finally {
                if (all.isStarted()) {
                    all.stop().block();
                }
                latest.stop().block();
            }
        }
    }
}
