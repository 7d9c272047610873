package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Items: CRUD, upsert, patch, transactional batch, TTL and session consistency. */
class ItemsTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("items");
    static CosmosDatabase db;
    static CosmosContainer c;
    static CosmosAsyncContainer ac;

    @BeforeAll
    static void setUp() {
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabase(dbId);
        db = client.getDatabase(dbId);
        db.createContainer("c", "/pk");
        c = db.getContainer("c");
        ac = async.getDatabase(dbId).getContainer("c");
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

    @Test
    void crudSync() {
        ObjectNode d = doc("crud", "p1").put("n", 1);
        var created = c.createItem(d);
        assertEquals(201, created.getStatusCode());
        assertNotNull(created.getETag());
        assertTrue(created.getRequestCharge() > 0);
        assertEquals(409, assertThrows(CosmosException.class, () -> c.createItem(d)).getStatusCode());
        var read = c.readItem("crud", new PartitionKey("p1"), JsonNode.class);
        assertEquals(1, read.getItem().get("n").asInt());
        assertEquals(created.getETag(), read.getETag());
        assertNotNull(read.getItem().get("_rid"));
        assertNotNull(read.getItem().get("_ts"));
        d.put("n", 2);
        var replaced = c.replaceItem(d, "crud", new PartitionKey("p1"), new CosmosItemRequestOptions());
        assertNotEquals(created.getETag(), replaced.getETag());
        // Replace with a stale etag: 412.
        CosmosException stale = assertThrows(CosmosException.class, () -> c.replaceItem(d, "crud", new PartitionKey("p1"),
            new CosmosItemRequestOptions().setIfMatchETag(created.getETag())));
        assertEquals(412, stale.getStatusCode());
        // If-None-Match on a read: 304.
        var notModified = c.readItem("crud", new PartitionKey("p1"),
            new CosmosItemRequestOptions().setIfNoneMatchETag(replaced.getETag()), JsonNode.class);
        assertEquals(304, notModified.getStatusCode());
        assertEquals(204, c.deleteItem("crud", new PartitionKey("p1"), new CosmosItemRequestOptions()).getStatusCode());
        assertEquals(404, assertThrows(CosmosException.class,
            () -> c.readItem("crud", new PartitionKey("p1"), JsonNode.class)).getStatusCode());
        // Wrong partition key: 404.
        c.createItem(doc("wrongpk", "p1"));
        assertEquals(404, assertThrows(CosmosException.class,
            () -> c.readItem("wrongpk", new PartitionKey("p2"), JsonNode.class)).getStatusCode());
    }

    @Test
    void crudAndUpsertAsync() {
        var created = ac.upsertItem(doc("ups", "p2").put("v", "a")).block();
        assertEquals(201, created.getStatusCode());
        var updated = ac.upsertItem(doc("ups", "p2").put("v", "b")).block();
        assertEquals(200, updated.getStatusCode());
        JsonNode got = ac.readItem("ups", new PartitionKey("p2"), JsonNode.class).block().getItem();
        assertEquals("b", got.get("v").asText());
        var all = ac.readAllItems(new PartitionKey("p2"), JsonNode.class).collectList().block();
        assertEquals(1, all.size());
        assertEquals(204, ac.deleteItem("ups", new PartitionKey("p2")).block().getStatusCode());
    }

    @Test
    void patchAndConditionalPatch() {
        c.createItem(doc("pat", "p3").put("count", 1).put("tag", "x"));
        CosmosPatchOperations ops = CosmosPatchOperations.create()
            .increment("/count", 5)
            .set("/tag", "y")
            .add("/list", Env.JSON.createArrayNode().add(1))
            .remove("/pk2");
        // remove of a missing path fails the whole patch: 400.
        CosmosException bad = assertThrows(CosmosException.class,
            () -> c.patchItem("pat", new PartitionKey("p3"), ops, JsonNode.class));
        assertEquals(400, bad.getStatusCode());
        CosmosPatchOperations ok = CosmosPatchOperations.create().increment("/count", 5).set("/tag", "y")
            .add("/list", Env.JSON.createArrayNode().add(1));
        JsonNode patched = c.patchItem("pat", new PartitionKey("p3"), ok, JsonNode.class).getItem();
        assertEquals(6, patched.get("count").asInt());
        assertEquals("y", patched.get("tag").asText());
        assertEquals(1, patched.get("list").size());
        // Conditional patch: the filter does not match: 412.
        CosmosPatchItemRequestOptions cond = new CosmosPatchItemRequestOptions();
        cond.setFilterPredicate("FROM c WHERE c.count > 100");
        CosmosException pre = assertThrows(CosmosException.class, () -> c.patchItem("pat", new PartitionKey("p3"),
            CosmosPatchOperations.create().set("/tag", "z"), cond, JsonNode.class));
        assertEquals(412, pre.getStatusCode());
        cond.setFilterPredicate("FROM c WHERE c.count = 6");
        JsonNode z = ac.patchItem("pat", new PartitionKey("p3"), CosmosPatchOperations.create().set("/tag", "z"),
            cond, JsonNode.class).block().getItem();
        assertEquals("z", z.get("tag").asText());
    }

    @Test
    void transactionalBatchCommitsAndRollsBack() {
        PartitionKey pk = new PartitionKey("batch");
        CosmosBatch ok = CosmosBatch.createCosmosBatch(pk);
        ok.createItemOperation(doc("b1", "batch"));
        ok.createItemOperation(doc("b2", "batch"));
        ok.upsertItemOperation(doc("b3", "batch").put("v", 1));
        ok.readItemOperation("b1");
        CosmosBatchResponse r = c.executeCosmosBatch(ok);
        assertTrue(r.isSuccessStatusCode(), "batch status " + r.getStatusCode());
        assertEquals(4, r.size());
        assertEquals(201, r.getResults().get(0).getStatusCode());
        assertEquals(200, r.getResults().get(3).getStatusCode());
        assertEquals("b1", r.getResults().get(3).getItem(JsonNode.class).get("id").asText());
        // Rollback: the second create collides, nothing of the batch stays.
        CosmosBatch bad = CosmosBatch.createCosmosBatch(pk);
        bad.createItemOperation(doc("b4", "batch"));
        bad.createItemOperation(doc("b1", "batch"));
        bad.deleteItemOperation("b2");
        CosmosBatchResponse br = ac.executeCosmosBatch(bad).block();
        assertFalse(br.isSuccessStatusCode());
        assertEquals(409, br.getStatusCode());
        assertEquals(424, br.getResults().get(0).getStatusCode());
        assertEquals(409, br.getResults().get(1).getStatusCode());
        assertEquals(424, br.getResults().get(2).getStatusCode());
        assertEquals(404, assertThrows(CosmosException.class, () -> c.readItem("b4", pk, JsonNode.class)).getStatusCode());
        assertEquals(200, c.readItem("b2", pk, JsonNode.class).getStatusCode());
    }

    @Test
    void ttlExpiresItems() throws Exception {
        CosmosContainerProperties p = new CosmosContainerProperties("ttl", "/pk");
        p.setDefaultTimeToLiveInSeconds(-1);
        db.createContainer(p);
        CosmosContainer t = db.getContainer("ttl");
        assertEquals(-1, t.read().getProperties().getDefaultTimeToLiveInSeconds());
        t.createItem(doc("short", "a").put("ttl", 1));
        t.createItem(doc("forever", "a"));
        Thread.sleep(2500);
        assertEquals(404, assertThrows(CosmosException.class,
            () -> t.readItem("short", new PartitionKey("a"), JsonNode.class)).getStatusCode());
        assertEquals(200, t.readItem("forever", new PartitionKey("a"), JsonNode.class).getStatusCode());
        // The container's default applies to the rest.
        p = t.read().getProperties();
        p.setDefaultTimeToLiveInSeconds(1);
        t.replace(p);
        Thread.sleep(2500);
        assertEquals(404, assertThrows(CosmosException.class,
            () -> t.readItem("forever", new PartitionKey("a"), JsonNode.class)).getStatusCode());
    }

    @Test
    void sessionConsistencyReadsOwnWrites() {
        // A second client with the session token of the first reads its write at once.
        try (CosmosClient other = Env.client()) {
            CosmosContainer oc = other.getDatabase(dbId).getContainer("c");
            var w = c.createItem(doc("sess", "s1").put("v", 1));
            String token = w.getSessionToken();
            assertNotNull(token);
            assertTrue(token.matches("\\d+:.*#\\d+.*"), token);
            var r = oc.readItem("sess", new PartitionKey("s1"),
                new CosmosItemRequestOptions().setSessionToken(token), JsonNode.class);
            assertEquals(1, r.getItem().get("v").asInt());
            assertNotNull(r.getSessionToken());
            // The writer's own client reads its write too (session token captured by the SDK).
            c.upsertItem(doc("sess", "s1").put("v", 2));
            assertEquals(2, c.readItem("sess", new PartitionKey("s1"), JsonNode.class).getItem().get("v").asInt());
        }
    }
}
