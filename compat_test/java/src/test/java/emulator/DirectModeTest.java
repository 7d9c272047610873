package emulator;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDiagnostics;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    }

    @AfterAll
    static void tearDown() {
        setup.getDatabase(dbId).delete();
        setup.close();
    }

    /** A client as users write it for production: direct mode is the default. */
    static CosmosClient client(String mode) {
        CosmosClientBuilder b = new CosmosClientBuilder()
            .endpoint(Env.endpoint())
            .key(Env.KEY)
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(true);
        if (mode.equals("gateway")) {
            b.gatewayMode();
        }
        return b.buildClient();
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
}
