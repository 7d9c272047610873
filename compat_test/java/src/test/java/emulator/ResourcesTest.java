package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.ComputedProperty;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosFullTextIndex;
import com.azure.cosmos.models.CosmosFullTextPath;
import com.azure.cosmos.models.CosmosFullTextPolicy;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosVectorDataType;
import com.azure.cosmos.models.CosmosVectorDistanceFunction;
import com.azure.cosmos.models.CosmosVectorEmbedding;
import com.azure.cosmos.models.CosmosVectorEmbeddingPolicy;
import com.azure.cosmos.models.CosmosVectorIndexSpec;
import com.azure.cosmos.models.CosmosVectorIndexType;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingMode;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.azure.cosmos.models.UniqueKey;
import com.azure.cosmos.models.UniqueKeyPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Databases and containers through the sync and the async client. */
class ResourcesTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("res");
    static CosmosDatabase db;

    @BeforeAll
    static void setUp() {
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabaseIfNotExists(dbId);
        db = client.getDatabase(dbId);
    }

    @AfterAll
    static void tearDown() {
        db.delete();
        client.close();
        async.close();
    }

    @Test
    void databaseLifecycleSyncAndAsync() {
        String id = Env.uid("dbl");
        var created = client.createDatabase(id, ThroughputProperties.createManualThroughput(400));
        assertEquals(201, created.getStatusCode());
        assertEquals(id, created.getProperties().getId());
        assertNotNull(created.getProperties().getResourceId());
        assertEquals(400, client.getDatabase(id).readThroughput().getProperties().getManualThroughput());
        CosmosException dup = assertThrows(CosmosException.class, () -> client.createDatabase(id));
        assertEquals(409, dup.getStatusCode());
        assertTrue(client.readAllDatabases().stream().anyMatch(d -> d.getId().equals(id)));
        // Async: read, query, delete.
        var read = async.getDatabase(id).read().block();
        assertEquals(id, read.getProperties().getId());
        long n = async.queryDatabases("SELECT * FROM r WHERE r.id = '" + id + "'", null).collectList().block().size();
        assertEquals(1, n);
        assertEquals(204, async.getDatabase(id).delete().block().getStatusCode());
        CosmosException gone = assertThrows(CosmosException.class, () -> client.getDatabase(id).read());
        assertEquals(404, gone.getStatusCode());
    }

    @Test
    void containerThroughputReadAndReplace() {
        String id = Env.uid("thr");
        db.createContainer(new CosmosContainerProperties(id, "/pk"), ThroughputProperties.createManualThroughput(400));
        CosmosContainer c = db.getContainer(id);
        assertEquals(400, c.readThroughput().getProperties().getManualThroughput());
        var replaced = c.replaceThroughput(ThroughputProperties.createManualThroughput(1000));
        assertEquals(1000, replaced.getProperties().getManualThroughput());
        assertEquals(1000, c.readThroughput().getProperties().getManualThroughput());
        // Async: autoscale container.
        String aid = Env.uid("auto");
        async.getDatabase(dbId).createContainer(new CosmosContainerProperties(aid, "/pk"),
            ThroughputProperties.createAutoscaledThroughput(4000)).block();
        var t = async.getDatabase(dbId).getContainer(aid).readThroughput().block();
        assertEquals(4000, t.getProperties().getAutoscaleMaxThroughput());
        var r2 = async.getDatabase(dbId).getContainer(aid)
            .replaceThroughput(ThroughputProperties.createAutoscaledThroughput(5000)).block();
        assertEquals(5000, r2.getProperties().getAutoscaleMaxThroughput());
    }

    @Test
    void indexingPolicyRoundTripsAndReplaces() {
        String id = Env.uid("idx");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        IndexingPolicy ip = new IndexingPolicy();
        ip.setIndexingMode(IndexingMode.CONSISTENT);
        ip.setIncludedPaths(List.of(new IncludedPath("/*")));
        ip.setExcludedPaths(List.of(new ExcludedPath("/big/?")));
        p.setIndexingPolicy(ip);
        var resp = db.createContainer(p);
        var got = resp.getProperties().getIndexingPolicy();
        assertEquals(IndexingMode.CONSISTENT, got.getIndexingMode());
        assertTrue(got.getExcludedPaths().stream().anyMatch(e -> e.getPath().equals("/big/?")));
        // Replace: add an excluded path.
        CosmosContainerProperties cur = db.getContainer(id).read().getProperties();
        cur.getIndexingPolicy().setExcludedPaths(List.of(new ExcludedPath("/big/?"), new ExcludedPath("/other/*")));
        db.getContainer(id).replace(cur);
        var again = db.getContainer(id).read().getProperties().getIndexingPolicy();
        assertTrue(again.getExcludedPaths().stream().anyMatch(e -> e.getPath().equals("/other/*")));
    }

    @Test
    void uniqueKeysRejectDuplicatesWith409() {
        String id = Env.uid("uk");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        p.setUniqueKeyPolicy(new UniqueKeyPolicy().setUniqueKeys(List.of(new UniqueKey(List.of("/email")))));
        db.createContainer(p);
        CosmosContainer c = db.getContainer(id);
        assertEquals(1, c.read().getProperties().getUniqueKeyPolicy().getUniqueKeys().size());
        c.createItem(Map.of("id", "1", "pk", "a", "email", "x@y"));
        CosmosException e = assertThrows(CosmosException.class,
            () -> c.createItem(Map.of("id", "2", "pk", "a", "email", "x@y")));
        assertEquals(409, e.getStatusCode());
        // Another partition key value may hold the same email.
        c.createItem(Map.of("id", "3", "pk", "b", "email", "x@y"));
        // Async too.
        CosmosAsyncContainer ac = async.getDatabase(dbId).getContainer(id);
        CosmosException ae = assertThrows(CosmosException.class,
            () -> ac.upsertItem(Map.of("id", "4", "pk", "b", "email", "x@y")).block());
        assertEquals(409, ae.getStatusCode());
    }

    @Test
    void computedPropertiesAreQueryable() {
        String id = Env.uid("cp");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        p.setComputedProperties(List.of(new ComputedProperty("cp_lower", "SELECT VALUE LOWER(c.name) FROM c")));
        db.createContainer(p);
        CosmosContainer c = db.getContainer(id);
        var cps = c.read().getProperties().getComputedProperties();
        assertEquals(1, cps.size());
        assertEquals("cp_lower", cps.iterator().next().getName());
        c.createItem(Map.of("id", "1", "pk", "a", "name", "ALICE"));
        c.createItem(Map.of("id", "2", "pk", "a", "name", "Bob"));
        var rows = c.queryItems("SELECT c.id, c.cp_lower FROM c WHERE c.cp_lower = 'alice'",
            new CosmosQueryRequestOptions(), JsonNode.class).stream().toList();
        assertEquals(1, rows.size());
        assertEquals("alice", rows.get(0).get("cp_lower").asText());
        // A point read does not carry the computed property.
        JsonNode item = c.readItem("1", new PartitionKey("a"), JsonNode.class).getItem();
        assertFalse(item.has("cp_lower"));
    }

    @Test
    void vectorAndFullTextPoliciesRoundTrip() {
        String id = Env.uid("vec");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        Env.setSearchPolicies(p);
        IndexingPolicy ip = new IndexingPolicy();
        ip.setIncludedPaths(List.of(new IncludedPath("/*")));
        ip.setExcludedPaths(List.of(new ExcludedPath("/embedding/*")));
        CosmosVectorIndexSpec vi = new CosmosVectorIndexSpec();
        vi.setPath("/embedding");
        vi.setType(CosmosVectorIndexType.FLAT.toString());
        ip.setVectorIndexes(List.of(vi));
        CosmosFullTextIndex fi = new CosmosFullTextIndex();
        fi.setPath("/text");
        ip.setCosmosFullTextIndexes(List.of(fi));
        p.setIndexingPolicy(ip);
        db.createContainer(p);
        CosmosContainerProperties got = db.getContainer(id).read().getProperties();
        var e = got.getVectorEmbeddingPolicy().getVectorEmbeddings().get(0);
        assertEquals("/embedding", e.getPath());
        assertEquals(3, e.getEmbeddingDimensions());
        assertEquals(CosmosVectorDistanceFunction.COSINE, e.getDistanceFunction());
        assertEquals(CosmosVectorDataType.FLOAT32, e.getDataType());
        assertEquals("/text", got.getFullTextPolicy().getPaths().get(0).getPath());
        assertEquals("en-US", got.getFullTextPolicy().getDefaultLanguage());
        assertEquals("/embedding", got.getIndexingPolicy().getVectorIndexes().get(0).getPath());
        assertEquals("/text", got.getIndexingPolicy().getCosmosFullTextIndexes().get(0).getPath());
    }

    @Test
    void containerLifecycleAsync() {
        String id = Env.uid("acl");
        var db2 = async.getDatabase(dbId);
        var created = db2.createContainerIfNotExists(id, "/pk").block();
        assertEquals(201, created.getStatusCode());
        assertEquals(200, db2.createContainerIfNotExists(id, "/pk").block().getStatusCode());
        var listed = db2.readAllContainers().collectList().block();
        assertTrue(listed.stream().anyMatch(c -> c.getId().equals(id)));
        assertEquals(1, db2.getContainer(id).getFeedRanges().block().size());
        assertEquals(204, db2.getContainer(id).delete().block().getStatusCode());
        CosmosException e = assertThrows(CosmosException.class, () -> db2.getContainer(id).read().block());
        assertEquals(404, e.getStatusCode());
    }

    @Test
    void endpointDiscoveryOnAsUsersWriteIt() {
        // No endpointDiscoveryEnabled(false): the SDK follows the account's writable and
        // readable locations, which must echo the host and port it dialled.
        try (CosmosClient c = new CosmosClientBuilder().endpoint(Env.endpoint()).key(Env.KEY)
                .gatewayMode().buildClient()) {
            String id = Env.uid("disc");
            c.createDatabase(id);
            CosmosDatabase d = c.getDatabase(id);
            d.createContainer(id, "/pk");
            CosmosContainer ct = d.getContainer(id);
            ObjectNode item = Env.JSON.createObjectNode().put("id", "1").put("pk", "a");
            ct.createItem(item);
            assertEquals("1", ct.readItem("1", new PartitionKey("a"), JsonNode.class).getItem().get("id").asText());
            assertEquals(1, ct.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
                .stream().count());
            d.delete();
        }
    }
}
