package emulator;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLException;
import java.net.URI;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The SDK's emulator switch: COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true
 * (a system property here; the environment variable works too) and no trust store. Run in
 * a JVM of its own by the pom's "emulator-switch" surefire execution.
 */
class EmulatorSwitchTest {
    @Test
    void sdkTrustsTheEmulatorThroughItsSwitchAlone() throws Exception {
        // (-Dtest=... runs it in the trust store's execution too: there it does not apply)
        Assumptions.assumeTrue("true".equals(System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED")),
            "only in the emulator-switch execution");
        assertNull(System.getProperty("javax.net.ssl.trustStore"));
        // Without the trust store the JDK does not trust the emulator's certificate...
        HttpsURLConnection conn = (HttpsURLConnection) URI.create(Env.endpoint() + "_emulator/health").toURL().openConnection();
        assertThrows(SSLException.class, conn::getResponseCode);
        // ... but the SDK, with the switch, does: as users write it, endpoint discovery on.
        try (CosmosClient c = new CosmosClientBuilder().endpoint(Env.endpoint()).key(Env.KEY).gatewayMode().buildClient()) {
            String db = Env.uid("switch");
            c.createDatabaseIfNotExists(db);
            c.getDatabase(db).createContainerIfNotExists("c", "/pk");
            c.getDatabase(db).getContainer("c").upsertItem(Map.of("id", "1", "pk", "a", "v", 7));
            assertEquals(7, c.getDatabase(db).getContainer("c").readItem("1", new PartitionKey("a"), JsonNode.class)
                .getItem().get("v").asInt());
            c.getDatabase(db).delete();
        }
    }

    @Test
    void switchCoversDirectMode() {
        Assumptions.assumeTrue("true".equals(System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED")),
            "only in the emulator-switch execution");
        // The SDK's default mode: its RNTBD connections use the same switch.
        try (CosmosClient c = new CosmosClientBuilder().endpoint(Env.endpoint()).key(Env.KEY).buildClient()) {
            String db = Env.uid("switchdirect");
            c.createDatabaseIfNotExists(db);
            c.getDatabase(db).createContainerIfNotExists("c", "/pk");
            c.getDatabase(db).getContainer("c").upsertItem(Map.of("id", "1", "pk", "a", "v", 7));
            var read = c.getDatabase(db).getContainer("c").readItem("1", new PartitionKey("a"), JsonNode.class);
            assertEquals(7, read.getItem().get("v").asInt());
            assertTrue(read.getDiagnostics().toString().contains("rntbd://"), "not read in direct mode: " + read.getDiagnostics());
            c.getDatabase(db).delete();
        }
    }
}
