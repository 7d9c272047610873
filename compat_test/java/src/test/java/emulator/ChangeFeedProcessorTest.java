package emulator;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosAsyncDatabase;
import com.azure.cosmos.models.ChangeFeedProcessorOptions;
import com.azure.cosmos.models.ChangeFeedProcessorState;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The Change Feed Processor (handleChanges) with a lease container (/id): two hosts share
 * the ranges of a 5-range container, every change is delivered exactly once, across a split
 * and after one host stops; the estimator reports the lag.
 */
class ChangeFeedProcessorTest {
    static CosmosAsyncClient async;
    static String dbId = Env.uid("cfp");
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

    static ChangeFeedProcessorOptions options(String prefix) {
        ChangeFeedProcessorOptions o = new ChangeFeedProcessorOptions();
        o.setLeasePrefix(prefix);
        o.setStartFromBeginning(true);
        o.setFeedPollDelay(Duration.ofMillis(200));
        o.setLeaseAcquireInterval(Duration.ofSeconds(1));
        o.setLeaseRenewInterval(Duration.ofSeconds(2));
        o.setLeaseExpirationInterval(Duration.ofSeconds(6));
        return o;
    }

    static ChangeFeedProcessor processor(String host, CosmosAsyncContainer feed, CosmosAsyncContainer leases,
                                         String prefix, Map<String, AtomicInteger> seen, Map<String, String> by) {
        return new ChangeFeedProcessorBuilder()
            .hostName(host)
            .feedContainer(feed)
            .leaseContainer(leases)
            .options(options(prefix))
            .handleChanges(docs -> {
                for (JsonNode d : docs) {
                    seen.computeIfAbsent(d.get("id").asText(), k -> new AtomicInteger()).incrementAndGet();
                    by.put(d.get("id").asText(), host);
                }
            })
            .buildChangeFeedProcessor();
    }

    static void write(CosmosAsyncContainer c, String prefix, int n) {
        Flux.range(0, n).flatMap(i -> {
            ObjectNode d = Env.JSON.createObjectNode().put("id", prefix + i).put("pk", "pk" + i);
            return c.createItem(d);
        }, 8).blockLast();
    }

    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Waits until the n leases are owned by both hosts, balanced (counts differ by at most
     * one) and unchanged for 3 s.
     */
    static void awaitBalanced(ChangeFeedProcessor p, int n) throws InterruptedException {
        Map<String, String> last = Map.of();
        int stable = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (stable < 6) {
            if (System.nanoTime() > deadline) {
                fail("leases never settled between two hosts: " + last);
            }
            Thread.sleep(500);
            Map<String, String> owners = p.getCurrentState().block().stream().collect(Collectors.toMap(
                ChangeFeedProcessorState::getLeaseToken, s -> String.valueOf(s.getHostName())));
            Map<String, Long> counts = owners.values().stream().collect(Collectors.groupingBy(h -> h, Collectors.counting()));
            boolean balanced = owners.size() == n && counts.keySet().equals(Set.of("host-1", "host-2"))
                && Math.abs(counts.get("host-1") - counts.get("host-2")) <= 1;
            stable = balanced && owners.equals(last) ? stable + 1 : 0;
            last = owners;
        }
    }

    static void assertExactlyOnce(Map<String, AtomicInteger> seen, Set<String> want) {
        assertEquals(want, seen.keySet());
        Map<String, Integer> dup = seen.entrySet().stream().filter(e -> e.getValue().get() != 1)
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get()));
        assertEquals(Map.of(), dup, "delivered more than once");
    }

    static Set<String> ids(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toSet());
    }

    @Test
    void twoHostsSplitTakeoverAndEstimator() throws Exception {
        db.createContainer(new CosmosContainerProperties("feed", "/pk"), ThroughputProperties.createManualThroughput(30000)).block();
        db.createContainer("leases", "/id").block();
        CosmosAsyncContainer feed = db.getContainer("feed");
        CosmosAsyncContainer leases = db.getContainer("leases");
        assertEquals(5, feed.getFeedRanges().block().size());
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        Map<String, String> by = new ConcurrentHashMap<>();
        ChangeFeedProcessor h1 = processor("host-1", feed, leases, "p", seen, by);
        ChangeFeedProcessor h2 = processor("host-2", feed, leases, "p", seen, by);
        h1.start().block();
        h2.start().block();
        try {
            // Both hosts own leases: 5 between them, balanced (3 and 2) and settled, so that no
            // lease changes hands (and replays from its last checkpoint) while the writes come.
            awaitBalanced(h1, 5);
            write(feed, "a", 60);
            await("60 changes", () -> seen.size() >= 60);
            Thread.sleep(1000);
            assertExactlyOnce(seen, ids("a", 60));
            assertEquals(Set.of("host-1", "host-2"), Set.copyOf(by.values()), "both hosts processed changes");

            // A split while running: the children get leases, nothing is lost or repeated.
            Env.split(dbId, "feed", "0");
            assertEquals(6, feed.getFeedRanges().block().size());
            awaitBalanced(h1, 6);
            write(feed, "b", 40);
            await("100 changes after the split", () -> seen.size() >= 100);
            Thread.sleep(1000);
            Set<String> want = ids("a", 60);
            want.addAll(ids("b", 40));
            assertExactlyOnce(seen, want);

            // Host 1 stops; host 2 takes its leases over.
            h1.stop().block();
            await("host-2 owns every lease", () -> h2.getCurrentState().block().stream()
                .allMatch(s -> "host-2".equals(s.getHostName())));
            by.clear();
            write(feed, "c", 30);
            await("130 changes", () -> seen.size() >= 130);
            Thread.sleep(1000);
            want.addAll(ids("c", 30));
            assertExactlyOnce(seen, want);
            assertEquals(Set.of("host-2"), Set.copyOf(by.values()));

            // Estimator: 0 when drained.
            await("lag 0 when drained", () -> h2.getEstimatedLag().block().values().stream().mapToInt(Integer::intValue).sum() == 0);
        } finally {
            if (h1.isStarted()) {
                h1.stop().block();
            }
            if (h2.isStarted()) {
                h2.stop().block();
            }
        }
    }

    @Test
    void estimatorReportsUnprocessedWrites() throws Exception {
        db.createContainer("efeed", "/pk").block();
        db.createContainer("eleases", "/id").block();
        CosmosAsyncContainer feed = db.getContainer("efeed");
        CosmosAsyncContainer leases = db.getContainer("eleases");
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        // The processor's handler holds the first "y" change until the
        // estimates are read, so its lease keeps the continuation after the
        // "x" changes: the 7 "y" writes stay unprocessed however the polls
        // and the writes interleave. (A stopped processor is no such
        // guarantee: stop() does not wait for a poll in flight, whose
        // changes it may still hand over and checkpoint.)
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean holding = new AtomicBoolean();
        ChangeFeedProcessor h = new ChangeFeedProcessorBuilder()
            .hostName("host-e")
            .feedContainer(feed)
            .leaseContainer(leases)
            .options(options("e"))
            .handleChanges(docs -> {
                for (JsonNode d : docs) {
                    if (d.get("id").asText().startsWith("y")) {
                        holding.set(true);
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    seen.computeIfAbsent(d.get("id").asText(), k -> new AtomicInteger()).incrementAndGet();
                }
            })
            .buildChangeFeedProcessor();
        h.start().block();
        try {
            write(feed, "x", 5);
            await("5 changes", () -> seen.size() == 5);
            await("lag 0", () -> h.getEstimatedLag().block().values().stream().mapToInt(Integer::intValue).sum() == 0);
            write(feed, "y", 7);
            await("the handler holds a y change", holding::get);
            // A processor that is not started estimates from the leases.
            ChangeFeedProcessor est = processor("host-e", feed, leases, "e", new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
            Map<String, Integer> lag = est.getEstimatedLag().block();
            assertEquals(7, lag.values().stream().mapToInt(Integer::intValue).sum(), lag.toString());
            List<ChangeFeedProcessorState> state = est.getCurrentState().block();
            assertEquals(1, state.size());
            assertEquals(7, state.get(0).getEstimatedLag());
        } finally {
            release.countDown();
            h.stop().block();
        }
    }
}
