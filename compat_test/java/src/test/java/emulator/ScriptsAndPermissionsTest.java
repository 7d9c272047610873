package emulator;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosPermissionProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosStoredProcedureProperties;
import com.azure.cosmos.models.CosmosStoredProcedureRequestOptions;
import com.azure.cosmos.models.CosmosTriggerProperties;
import com.azure.cosmos.models.CosmosUserDefinedFunctionProperties;
import com.azure.cosmos.models.CosmosUserProperties;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PermissionMode;
import com.azure.cosmos.models.TriggerOperation;
import com.azure.cosmos.models.TriggerType;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Stored procedures, triggers, UDFs; users, permissions and resource tokens. */
class ScriptsAndPermissionsTest {
    static CosmosClient client;
    static CosmosAsyncClient async;
    static String dbId = Env.uid("scripts");
    static CosmosDatabase db;
    static CosmosContainer c;

    @BeforeAll
    static void setUp() {
        client = Env.client();
        async = Env.asyncClient();
        client.createDatabase(dbId);
        db = client.getDatabase(dbId);
        db.createContainer("c", "/pk");
        c = db.getContainer("c");
    }

    @AfterAll
    static void tearDown() {
        db.delete();
        client.close();
        async.close();
    }

    @Test
    void storedProcedure() {
        String body = "function (id, n) { var ctx = getContext(); var coll = ctx.getCollection();"
            + " var ok = coll.createDocument(coll.getSelfLink(), {id: id, pk: 'sp', n: n}, function (err, doc) {"
            + " if (err) throw err; ctx.getResponse().setBody({created: doc.id, twice: n * 2}); });"
            + " if (!ok) throw new Error('not accepted'); }";
        c.getScripts().createStoredProcedure(new CosmosStoredProcedureProperties("mk", body));
        var r = c.getScripts().getStoredProcedure("mk").execute(List.of("s1", 21),
            new CosmosStoredProcedureRequestOptions().setPartitionKey(new PartitionKey("sp")));
        JsonNode res;
        try {
            res = Env.JSON.readTree(r.getResponseAsString());
        } catch (Exception ex) {
            throw new AssertionError(ex);
        }
        assertEquals("s1", res.get("created").asText());
        assertEquals(42, res.get("twice").asInt());
        assertEquals(21, c.readItem("s1", new PartitionKey("sp"), JsonNode.class).getItem().get("n").asInt());
        // A throwing procedure rolls back and reports 400.
        c.getScripts().createStoredProcedure(new CosmosStoredProcedureProperties("boom",
            "function () { var coll = getContext().getCollection(); coll.createDocument(coll.getSelfLink(), {id: 'never', pk: 'sp'}, function () { throw new Error('no'); }); }"));
        CosmosException e = assertThrows(CosmosException.class, () -> c.getScripts().getStoredProcedure("boom")
            .execute(List.of(), new CosmosStoredProcedureRequestOptions().setPartitionKey(new PartitionKey("sp"))));
        assertEquals(400, e.getStatusCode());
        assertEquals(404, assertThrows(CosmosException.class,
            () -> c.readItem("never", new PartitionKey("sp"), JsonNode.class)).getStatusCode());
        // Async: list and delete.
        var sprocs = async.getDatabase(dbId).getContainer("c").getScripts().readAllStoredProcedures().collectList().block();
        assertEquals(2, sprocs.size());
        async.getDatabase(dbId).getContainer("c").getScripts().getStoredProcedure("boom").delete().block();
    }

    @Test
    void triggerAndUdf() {
        c.getScripts().createTrigger(new CosmosTriggerProperties("stamp",
            "function () { var req = getContext().getRequest(); var d = req.getBody(); d.stamped = true; req.setBody(d); }")
            .setTriggerType(TriggerType.PRE).setTriggerOperation(TriggerOperation.CREATE));
        c.createItem(Map.of("id", "t1", "pk", "t"), new PartitionKey("t"),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of("stamp")));
        c.createItem(Map.of("id", "t2", "pk", "t"));
        assertTrue(c.readItem("t1", new PartitionKey("t"), JsonNode.class).getItem().get("stamped").asBoolean());
        assertFalse(c.readItem("t2", new PartitionKey("t"), JsonNode.class).getItem().has("stamped"));
        c.getScripts().createUserDefinedFunction(new CosmosUserDefinedFunctionProperties("double",
            "function (x) { return x * 2; }"));
        c.createItem(Map.of("id", "u1", "pk", "u", "n", 4));
        List<Integer> got = c.queryItems("SELECT VALUE udf.double(c.n) FROM c WHERE c.id = 'u1'",
            new CosmosQueryRequestOptions(), Integer.class).stream().toList();
        assertEquals(List.of(8), got);
    }

    @Test
    void usersPermissionsAndResourceTokens() {
        db.createUser(new CosmosUserProperties().setId("alice"));
        CosmosPermissionProperties p = new CosmosPermissionProperties().setId("read-c")
            .setContainerName("c").setPermissionMode(PermissionMode.READ);
        var perm = async.getDatabase(dbId).getUser("alice").createPermission(p, null).block().getProperties();
        String token = perm.getToken();
        assertNotNull(token);
        assertTrue(token.startsWith("type=resource"), token);
        c.createItem(Map.of("id", "secret", "pk", "r"));
        try (CosmosClient limited = new com.azure.cosmos.CosmosClientBuilder().endpoint(Env.endpoint()).resourceToken(token)
                .gatewayMode().endpointDiscoveryEnabled(false).buildClient()) {
            CosmosContainer lc = limited.getDatabase(dbId).getContainer("c");
            assertEquals("secret", lc.readItem("secret", new PartitionKey("r"), JsonNode.class).getItem().get("id").asText());
            CosmosException e = assertThrows(CosmosException.class, () -> lc.createItem(Map.of("id", "x", "pk", "r")));
            assertEquals(403, e.getStatusCode());
        }
        // Listing users and permissions (async).
        var users = async.getDatabase(dbId).readAllUsers().collectList().block();
        assertTrue(users.stream().anyMatch(u -> u.getId().equals("alice")));
        var perms = async.getDatabase(dbId).getUser("alice").readAllPermissions().collectList().block();
        assertEquals(1, perms.size());
        assertEquals(PermissionMode.READ, perms.get(0).getPermissionMode());
    }
}
