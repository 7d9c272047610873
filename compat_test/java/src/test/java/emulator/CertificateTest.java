package emulator;

import com.azure.cosmos.CosmosClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.azure.cosmos.models.PartitionKey;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import javax.net.ssl.HttpsURLConnection;
import java.net.URI;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The emulator's certificate trusted the keytool way: run.sh imported
 * /_explorer/emulator.pem into a PKCS#12 trust store that this JVM gets through
 * -Djavax.net.ssl.trustStore (see pom.xml); the SDK's own switch is EmulatorSwitchTest.
 */
class CertificateTest {
    @Test
    void trustStoreFromTheServedPemIsWhatTheJvmTrusts() throws Exception {
        // (-Dtest=... runs it in the emulator-switch execution too: there it does not apply)
        Assumptions.assumeTrue(System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED") == null,
            "only in the trust store's execution");
        assertNotNull(System.getProperty("javax.net.ssl.trustStore"), "run through run.sh: no trust store given");
        // The JDK's own HTTPS client trusts the emulator through the trust store alone.
        HttpsURLConnection conn = (HttpsURLConnection) URI.create(Env.endpoint() + "_explorer/emulator.pem").toURL().openConnection();
        assertEquals(200, conn.getResponseCode());
        String pem = new String(conn.getInputStream().readAllBytes());
        assertTrue(pem.startsWith("-----BEGIN CERTIFICATE-----"), pem);
        // And so does the SDK.
        try (CosmosClient c = Env.client()) {
            String db = Env.uid("cert");
            c.createDatabase(db);
            c.getDatabase(db).createContainer("c", "/pk");
            c.getDatabase(db).getContainer("c").createItem(Map.of("id", "1", "pk", "a"));
            assertEquals("1", c.getDatabase(db).getContainer("c").readItem("1", new PartitionKey("a"), JsonNode.class)
                .getItem().get("id").asText());
            c.getDatabase(db).delete();
        }
    }
}
