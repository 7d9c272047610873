package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CompositePath;
import com.azure.cosmos.models.CompositePathSortOrder;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosFullTextIndex;
import com.azure.cosmos.models.CosmosFullTextPath;
import com.azure.cosmos.models.CosmosFullTextPolicy;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosVectorDataType;
import com.azure.cosmos.models.CosmosVectorDistanceFunction;
import com.azure.cosmos.models.CosmosVectorEmbedding;
import com.azure.cosmos.models.CosmosVectorEmbeddingPolicy;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Queries through the sync and async clients on a container with 1 range
 * (400 RU/s) and one with 5 ranges (30,000 RU/s), single- and
 * cross-partition, with continuations resumed by a later iterable.
 */
class QueryTest {
    static final int N = 40;
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("query");
    static CosmosDatabase db;

    @BeforeAll
    static void setUp() {
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabase(dbId);
        db = client.getDatabase(dbId);
        create("r1", 400);
        create("r5", 30000);
    }

    static void create(String id, int ru) {
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        Env.setSearchPolicies(p);
        IndexingPolicy ip = new IndexingPolicy();
        ip.setIncludedPaths(List.of(new IncludedPath("/*")));
        ip.setExcludedPaths(List.of(new ExcludedPath("/embedding/*")));
        CosmosFullTextIndex fi = new CosmosFullTextIndex();
        fi.setPath("/text");
        ip.setCosmosFullTextIndexes(List.of(fi));
        ip.setCompositeIndexes(List.of(List.of(new CompositePath().setPath("/cat").setOrder(CompositePathSortOrder.ASCENDING),
            new CompositePath().setPath("/n").setOrder(CompositePathSortOrder.DESCENDING))));
        p.setIndexingPolicy(ip);
        db.createContainer(p, ThroughputProperties.createManualThroughput(ru));
        CosmosContainer c = db.getContainer(id);
        for (int i = 0; i < N; i++) {
            ObjectNode d = Env.JSON.createObjectNode().put("id", "i" + i).put("pk", "p" + (i % 8)).put("n", i)
                .put("cat", i % 3);
            d.putArray("embedding").add(1.0).add(i / 10.0).add(0.0);
            d.put("text", i == 5 ? "the quick fox and the fox and a fox" : i == 6 ? "one brown fox" : "a lazy dog sleeps");
            c.createItem(d);
        }
    }

    @AfterAll
    static void tearDown() {
        db.delete();
        client.close();
        async.close();
    }

    static List<JsonNode> sync(String container, String q, CosmosQueryRequestOptions o) {
        return db.getContainer(container).queryItems(q, o == null ? new CosmosQueryRequestOptions() : o, JsonNode.class)
            .stream().toList();
    }

    static List<JsonNode> asyncQ(String container, String q) {
        return async.getDatabase(dbId).getContainer(container)
            .queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class).collectList().block();
    }

    static List<Integer> ints(List<JsonNode> rows, String field) {
        return rows.stream().map(r -> field == null ? r.asInt() : r.get(field).asInt()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void rangeCountIsExplicit(String container) {
        int want = container.equals("r1") ? 1 : 5;
        assertEquals(want, db.getContainer(container).getFeedRanges().size());
        assertEquals(want, async.getDatabase(dbId).getContainer(container).getFeedRanges().block().size());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void orderByTopOffsetLimit(String container) {
        List<Integer> desc = ints(sync(container, "SELECT c.n FROM c ORDER BY c.n DESC", null), "n");
        assertEquals(IntStream.range(0, N).map(i -> N - 1 - i).boxed().toList(), desc);
        assertEquals(List.of(0, 1, 2, 3, 4), ints(asyncQ(container, "SELECT TOP 5 c.n FROM c ORDER BY c.n"), "n"));
        assertEquals(List.of(10, 11, 12, 13, 14),
            ints(sync(container, "SELECT c.n FROM c ORDER BY c.n OFFSET 10 LIMIT 5", null), "n"));
        // Two ORDER BY items.
        List<JsonNode> two = sync(container, "SELECT c.cat, c.n FROM c ORDER BY c.cat ASC, c.n DESC", null);
        assertEquals(N, two.size());
        assertEquals(2, two.get(N - 1).get("cat").asInt());
        assertEquals(39, two.get(0).get("n").asInt());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void distinctGroupByAggregates(String container) {
        Set<Integer> cats = new HashSet<>(ints(sync(container, "SELECT DISTINCT VALUE c.cat FROM c", null), null));
        assertEquals(Set.of(0, 1, 2), cats);
        List<JsonNode> groups = asyncQ(container, "SELECT c.cat, COUNT(1) AS n, SUM(c.n) AS s FROM c GROUP BY c.cat");
        assertEquals(3, groups.size());
        for (JsonNode g : groups) {
            int cat = g.get("cat").asInt();
            long count = IntStream.range(0, N).filter(i -> i % 3 == cat).count();
            int sum = IntStream.range(0, N).filter(i -> i % 3 == cat).sum();
            assertEquals(count, g.get("n").asLong(), g.toString());
            assertEquals(sum, g.get("s").asInt(), g.toString());
        }
        assertEquals(N, sync(container, "SELECT VALUE COUNT(1) FROM c", null).get(0).asInt());
        assertEquals(N * (N - 1) / 2, sync(container, "SELECT VALUE SUM(c.n) FROM c", null).get(0).asInt());
        assertEquals(0, asyncQ(container, "SELECT VALUE MIN(c.n) FROM c").get(0).asInt());
        assertEquals(N - 1, asyncQ(container, "SELECT VALUE MAX(c.n) FROM c").get(0).asInt());
        assertEquals((N - 1) / 2.0, sync(container, "SELECT VALUE AVG(c.n) FROM c", null).get(0).asDouble(), 1e-9);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void singlePartitionWithParameters(String container) {
        CosmosQueryRequestOptions o = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p3"));
        SqlQuerySpec spec = new SqlQuerySpec("SELECT c.n FROM c WHERE c.n >= @min ORDER BY c.n",
            List.of(new SqlParameter("@min", 10)));
        List<Integer> got = db.getContainer(container).queryItems(spec, o, JsonNode.class).stream()
            .map(r -> r.get("n").asInt()).toList();
        assertEquals(List.of(11, 19, 27, 35), got);
        assertEquals(5, async.getDatabase(dbId).getContainer(container)
            .queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p3")),
                Integer.class).blockFirst());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void vectorDistanceRanking(String container) {
        List<JsonNode> rows = sync(container,
            "SELECT TOP 3 c.id, VectorDistance(c.embedding, [1, 0, 0]) AS score FROM c ORDER BY VectorDistance(c.embedding, [1, 0, 0])",
            null);
        assertEquals(List.of("i0", "i1", "i2"), rows.stream().map(r -> r.get("id").asText()).toList());
        assertEquals(1.0, rows.get(0).get("score").asDouble(), 1e-6);
        assertTrue(rows.get(1).get("score").asDouble() > rows.get(2).get("score").asDouble());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void fullTextRanking(String container) {
        String q = "SELECT TOP 2 c.id FROM c WHERE FullTextContains(c.text, 'fox') ORDER BY RANK FullTextScore(c.text, 'fox')";
        assertEquals(2, sync(container, "SELECT c.id FROM c WHERE FullTextContainsAny(c.text, 'fox', 'cat')", null).size());
        // (over five ranges the SDK runs the gateway's hybrid search plan: statistics,
        // component queries, its own fusion; over one it gets the same plan)
        List<JsonNode> rows = asyncQ(container, q);
        assertEquals(List.of("i5", "i6"), rows.stream().map(r -> r.get("id").asText()).toList());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void syncContinuationResumedLater(String container) {
        for (String q : List.of("SELECT c.n FROM c ORDER BY c.n", "SELECT c.n FROM c")) {
            CosmosContainer c = db.getContainer(container);
            List<Integer> seen = new ArrayList<>();
            String cont = null;
            int pages = 0;
            do {
                // Each page from a new iterable, resumed from the last continuation.
                var it = c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(cont, 7).iterator();
                if (!it.hasNext()) {
                    break;
                }
                FeedResponse<JsonNode> page = it.next();
                assertTrue(page.getResults().size() <= 7, "page of " + page.getResults().size());
                page.getResults().forEach(r -> seen.add(r.get("n").asInt()));
                cont = page.getContinuationToken();
                pages++;
            } while (cont != null && pages < 100);
            assertEquals(N, seen.size(), q + ": " + seen);
            assertEquals(N, new HashSet<>(seen).size(), q + ": duplicates " + seen);
            if (q.contains("ORDER BY")) {
                assertEquals(IntStream.range(0, N).boxed().toList(), seen);
            }
            assertTrue(pages >= N / 7, q + ": " + pages + " pages");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"r1", "r5"})
    void asyncContinuationResumedLater(String container) {
        CosmosAsyncContainer c = async.getDatabase(dbId).getContainer(container);
        String q = "SELECT c.n FROM c ORDER BY c.n DESC";
        FeedResponse<JsonNode> first = c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class)
            .byPage(10).blockFirst();
        assertEquals(10, first.getResults().size());
        assertNotNull(first.getContinuationToken());
        List<Integer> rest = c.queryItems(q, new CosmosQueryRequestOptions(), JsonNode.class)
            .byPage(first.getContinuationToken(), 10)
            .flatMapIterable(FeedResponse::getResults).map(r -> r.get("n").asInt()).collectList().block();
        List<Integer> all = new ArrayList<>(ints(first.getResults(), "n"));
        all.addAll(rest);
        assertEquals(IntStream.range(0, N).map(i -> N - 1 - i).boxed().toList(), all);
        // Single partition, paged.
        var o = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p1"));
        FeedResponse<JsonNode> p1 = c.queryItems("SELECT * FROM c", o, JsonNode.class).byPage(2).blockFirst();
        assertEquals(2, p1.getResults().size());
        long left = c.queryItems("SELECT * FROM c", o, JsonNode.class).byPage(p1.getContinuationToken(), 2)
            .flatMapIterable(FeedResponse::getResults).count().block();
        assertEquals(3, left);
        Set<String> ids = c.queryItems("SELECT * FROM c", o, JsonNode.class).toStream().map(j -> j.get("id").asText())
            .collect(Collectors.toSet());
        assertEquals(5, ids.size());
    }
}
