package emulator;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosAsyncDatabase;
import com.azure.cosmos.models.ChangeFeedProcessorItem;
import com.azure.cosmos.models.ChangeFeedProcessorState;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static emulator.ChangeFeedProcessorTest.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The change feed processor's newer handlers: handleLatestVersionChanges (EPK-range leases,
 * ids built from _rids) with two hosts across a split, and handleAllVersionsAndDeletesChanges.
 */
class ChangeFeedProcessorEpkTest {
    static CosmosAsyncClient async;
    static String dbId = Env.uid("cfpe");
    static CosmosAsyncDatabase db;

    @BeforeAll
    static void setUp() {
        async = Env.asyncClient();
        async.createDatabase(dbId).block();
        db = async.getDatabase(dbId);
    }

    @AfterAll
    static void tearDown() {
        db.delete().block();
        async.close();
    }

    static ChangeFeedProcessor latest(String host, CosmosAsyncContainer feed, CosmosAsyncContainer leases,
                                      Map<String, AtomicInteger> seen) {
        return new ChangeFeedProcessorBuilder().hostName(host).feedContainer(feed).leaseContainer(leases)
            .options(options("l"))
            .handleLatestVersionChanges(items -> {
                for (ChangeFeedProcessorItem it : items) {
                    seen.computeIfAbsent(it.getCurrent().get("id").asText(), k -> new AtomicInteger()).incrementAndGet();
                }
            })
            .buildChangeFeedProcessor();
    }

    @Test
    void latestVersionTwoHostsAcrossASplit() throws Exception {
        db.createContainer(new CosmosContainerProperties("feed", "/pk"), ThroughputProperties.createManualThroughput(30000)).block();
        db.createContainer("leases", "/id").block();
        CosmosAsyncContainer feed = db.getContainer("feed");
        CosmosAsyncContainer leases = db.getContainer("leases");
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        ChangeFeedProcessor h1 = latest("host-1", feed, leases, seen);
        ChangeFeedProcessor h2 = latest("host-2", feed, leases, seen);
        h1.start().block();
        h2.start().block();
        try {
            awaitBalanced(h1, 5);
            write(feed, "a", 40);
            await("40 changes", () -> seen.size() >= 40);
            Env.split(dbId, "feed", "1");
            write(feed, "b", 40);
            await("80 changes", () -> seen.size() >= 80);
            Thread.sleep(1000);
            Set<String> want = ids("a", 40);
            want.addAll(ids("b", 40));
            assertExactlyOnce(seen, want);
        } finally {
            h1.stop().block();
            h2.stop().block();
        }
    }

    /**
     * getCurrentState of EPK-range leases: the SDK reads each lease's range "from now" and
     * reports that read's continuation token and the lag between its LSN and the lease's
     * checkpoint; once the processor has caught up, every range has a token and lag 0.
     */
    @Test
    void currentStateAfterCatchingUp() throws Exception {
        db.createContainer("state", "/pk").block();
        db.createContainer("stateleases", "/id").block();
        CosmosAsyncContainer feed = db.getContainer("state");
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        ChangeFeedProcessor p = latest("host-s", feed, db.getContainer("stateleases"), seen);
        p.start().block();
        try {
            write(feed, "s", 10);
            await("10 changes", () -> seen.size() >= 10);
            await("caught up: every range has a continuation token and lag 0", () -> {
                List<ChangeFeedProcessorState> state = p.getCurrentState().block();
                return !state.isEmpty() && state.stream().allMatch(st ->
                    st.getContinuationToken() != null && st.getEstimatedLag() == 0 && "host-s".equals(st.getHostName()));
            });
        } finally {
            p.stop().block();
        }
    }

    @Test
    void allVersionsAndDeletes() throws Exception {
        db.createContainer("avad", "/pk").block();
        db.createContainer("avadleases", "/id").block();
        CosmosAsyncContainer feed = db.getContainer("avad");
        List<String> ops = new CopyOnWriteArrayList<>();
        ChangeFeedProcessor p = new ChangeFeedProcessorBuilder().hostName("host-a").feedContainer(feed)
            .leaseContainer(db.getContainer("avadleases"))
            .options(options("v").setStartFromBeginning(false))
            .handleAllVersionsAndDeletesChanges(items -> items.forEach(it ->
                ops.add(it.getChangeFeedMetaData().getOperationType().toString())))
            .buildChangeFeedProcessor();
        p.start().block();
        try {
            await("the processor's lease", () -> p.getCurrentState().block().size() == 1
                && p.getCurrentState().block().get(0).getHostName() != null);
            Thread.sleep(2000); // its first read from now
            feed.createItem(Map.of("id", "x", "pk", "a", "v", 1)).block();
            feed.upsertItem(Map.of("id", "x", "pk", "a", "v", 2)).block();
            feed.deleteItem("x", new PartitionKey("a"), new CosmosItemRequestOptions()).block();
            await("3 changes", () -> ops.size() >= 3);
            Thread.sleep(500);
            assertEquals(List.of("CREATE", "REPLACE", "DELETE"), ops);
        } finally {
            p.stop().block();
        }
    }
}
