package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The change feed pull model (queryChangeFeed), sync and async, on 1 and 5 ranges. */
class ChangeFeedTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("cf");
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

    /** Drains a change feed (sync); returns the ids seen and the last continuation. */
    record Drained(List<String> ids, String continuation) {}

    static Drained drain(CosmosContainer c, CosmosChangeFeedRequestOptions o) {
        List<String> ids = new ArrayList<>();
        String cont = null;
        for (FeedResponse<JsonNode> page : c.queryChangeFeed(o, JsonNode.class).iterableByPage()) {
            page.getResults().forEach(j -> ids.add(j.has("current") ? j.get("current").path("id").asText(j.path("previous").path("id").asText())
                : j.get("id").asText()));
            cont = page.getContinuationToken();
        }
        return new Drained(ids, cont);
    }

    @Test
    void fromBeginningNowAndContinuationOnFiveRanges() {
        db.createContainer(new CosmosContainerProperties("c5", "/pk"), ThroughputProperties.createManualThroughput(30000));
        CosmosContainer c = db.getContainer("c5");
        List<FeedRange> ranges = c.getFeedRanges();
        assertEquals(5, ranges.size());
        Drained now = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()));
        assertEquals(List.of(), now.ids());
        assertNotNull(now.continuation());
        for (int i = 0; i < 30; i++) {
            c.createItem(doc("d" + i, "p" + i));
        }
        Drained all = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()));
        assertEquals(30, all.ids().size());
        assertEquals(30, new HashSet<>(all.ids()).size());
        // From the "now" continuation: the 30 writes since.
        Drained since = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation()));
        assertEquals(30, new HashSet<>(since.ids()).size());
        // Per feed range: disjoint, together everything.
        Set<String> union = new HashSet<>();
        int total = 0;
        for (FeedRange r : ranges) {
            List<String> ids = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(r)).ids();
            total += ids.size();
            union.addAll(ids);
        }
        assertEquals(30, total);
        assertEquals(30, union.size());
        // An update shows once, in its latest version, after the continuation.
        c.upsertItem(doc("d3", "p3").put("v", 2));
        Drained after = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(all.continuation()));
        assertEquals(List.of("d3"), after.ids());
        // Per partition key.
        assertEquals(List.of("d3"), drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
            FeedRange.forLogicalPartition(new PartitionKey("p3")))).ids());
    }

    @Test
    void pointInTimeAsync() throws Exception {
        db.createContainer("pit", "/pk");
        CosmosAsyncContainer c = async.getDatabase(dbId).getContainer("pit");
        c.createItem(doc("old", "a")).block();
        Thread.sleep(1500);
        Instant t = Instant.now();
        Thread.sleep(1100);
        c.createItem(doc("new", "a")).block();
        List<String> ids = c.queryChangeFeed(CosmosChangeFeedRequestOptions.createForProcessingFromPointInTime(t,
                FeedRange.forFullRange()), JsonNode.class)
            .byPage().flatMapIterable(FeedResponse::getResults).map(j -> j.get("id").asText()).collectList().block();
        assertEquals(List.of("new"), ids);
    }

    @Test
    void allVersionsAndDeletes() {
        db.createContainer("avad", "/pk");
        CosmosContainer c = db.getContainer("avad");
        Drained start = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange())
            .allVersionsAndDeletes());
        c.createItem(doc("x", "a").put("v", 1));
        c.upsertItem(doc("x", "a").put("v", 2));
        c.deleteItem("x", new PartitionKey("a"), new CosmosItemRequestOptions());
        List<JsonNode> changes = new ArrayList<>();
        for (FeedResponse<JsonNode> page : c.queryChangeFeed(
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(start.continuation()).allVersionsAndDeletes(),
            JsonNode.class).iterableByPage()) {
            changes.addAll(page.getResults());
        }
        assertEquals(3, changes.size(), changes.toString());
        assertEquals(List.of("create", "replace", "delete"),
            changes.stream().map(j -> j.get("metadata").get("operationType").asText()).toList());
        assertEquals(2, changes.get(1).get("current").get("v").asInt());
        // a delete: its id and partition key in the metadata, an empty
        // "current" (the service's shape; the Python SDK's own
        // test_query_change_feed_all_versions_and_deletes requires the key)
        JsonNode delete = changes.get(2);
        assertEquals("x", delete.get("metadata").get("id").asText(), delete.toString());
        assertEquals("a", delete.get("metadata").get("partitionKey").get("pk").asText(), delete.toString());
        assertTrue(delete.get("current").isObject() && delete.get("current").isEmpty(), delete.toString());
    }
}
