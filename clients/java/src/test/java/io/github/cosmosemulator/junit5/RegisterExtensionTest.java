package io.github.cosmosemulator.junit5;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.net.ssl.SSLHandshakeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The extension on a static field: an emulator of its own, a ready client. */
class RegisterExtensionTest {
    @RegisterExtension
    static CosmosEmulatorExtension emulator = new CosmosEmulatorExtension();

    @Test
    void itemsRoundTrip() {
        CosmosClient client = emulator.client();
        client.createDatabaseIfNotExists("app");
        client.getDatabase("app").createContainerIfNotExists("items", "/pk");
        CosmosContainer items = client.getDatabase("app").getContainer("items");
        items.upsertItem(Map.of("id", "1", "pk", "a", "name", "first"));
        assertEquals("first", items.readItem("1", new PartitionKey("a"), JsonNode.class).getItem().get("name").asText());
        assertEquals(1, items.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(), JsonNode.class).stream().count());
        assertSame(client, emulator.client());
    }

    @Test
    void endpointCertificateAndNothingGlobal() throws Exception {
        assertTrue(emulator.endpoint().matches("https://127\\.0\\.0\\.1:\\d+/"), emulator.endpoint());
        assertTrue(emulator.certificatePem().startsWith("-----BEGIN CERTIFICATE-----"));
        // The extension's TLS context trusts the emulator's certificate ...
        HttpClient pinned = HttpClient.newBuilder().sslContext(emulator.sslContext()).build();
        HttpResponse<String> r = pinned.send(HttpRequest.newBuilder(URI.create(emulator.endpoint() + "_explorer/emulator.pem")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(emulator.certificatePem().strip(), r.body().strip());
        // ... while the JVM's default trust and the SDK's switch stay as they were.
        assertNull(System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED"));
        assertNull(System.getProperty("javax.net.ssl.trustStore"));
        HttpClient plain = HttpClient.newHttpClient();
        assertThrows(SSLHandshakeException.class, () -> plain.send(
            HttpRequest.newBuilder(URI.create(emulator.endpoint() + "_emulator/health")).build(), HttpResponse.BodyHandlers.discarding()));
        assertTrue(emulator.trustStore().toFile().isFile());
    }
}
