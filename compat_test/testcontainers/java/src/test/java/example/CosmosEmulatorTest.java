package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.CosmosDBEmulatorContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

@Testcontainers
class CosmosEmulatorTest {

    @Container
    static final CosmosDBEmulatorContainer emulator = new CosmosDBEmulatorContainer(
            DockerImageName.parse("cosmos-emulator:local")
                    .asCompatibleSubstituteFor("mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator"))
            .withEnv("PROTOCOL", "https"); // the module's endpoint is https://host:<mapped port>

    @TempDir
    static Path tempFolder;

    @BeforeAll
    static void trustTheEmulatorsCertificate() throws Exception {
        Path keyStoreFile = tempFolder.resolve("azure-cosmos-emulator.keystore");
        KeyStore keyStore = emulator.buildNewKeyStore();
        try (OutputStream out = Files.newOutputStream(keyStoreFile)) {
            keyStore.store(out, emulator.getEmulatorKey().toCharArray());
        }
        System.setProperty("javax.net.ssl.trustStore", keyStoreFile.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", emulator.getEmulatorKey());
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    }

    @Test
    void gatewayModeWithoutEndpointDiscovery() {
        try (CosmosClient client = new CosmosClientBuilder()
                .gatewayMode()
                .endpointDiscoveryEnabled(false)
                .endpoint(emulator.getEmulatorEndpoint())
                .key(emulator.getEmulatorKey())
                .buildClient()) {
            createReadAndQuery(client, "testdb");
        }
    }

    @Test
    void gatewayModeWithEndpointDiscovery() {
        // The client reads the account and then sends every request to the
        // endpoint it advertises: the host and mapped port dialled.
        try (CosmosClient client = new CosmosClientBuilder()
                .gatewayMode()
                .endpoint(emulator.getEmulatorEndpoint())
                .key(emulator.getEmulatorKey())
                .buildClient()) {
            createReadAndQuery(client, "discoverydb");
        }
    }

    static void createReadAndQuery(CosmosClient client, String databaseId) {
        client.createDatabaseIfNotExists(databaseId);
        CosmosDatabase database = client.getDatabase(databaseId);
        database.createContainerIfNotExists(new CosmosContainerProperties("products", "/category"));
        CosmosContainer container = database.getContainer("products");

        container.createItem(new Product("1", "gear", "tent", 3));
        CosmosItemResponse<Product> read = container.readItem("1", new PartitionKey("gear"), Product.class);
        assertEquals("tent", read.getItem().name);

        SqlQuerySpec query = new SqlQuerySpec("SELECT * FROM c WHERE c.quantity > @min",
                List.of(new SqlParameter("@min", 1)));
        List<Product> found = container.queryItems(query, new CosmosQueryRequestOptions(), Product.class)
                .stream().toList();
        assertEquals(1, found.size());
        assertEquals("1", found.get(0).id);
        assertTrue(read.getDiagnostics().toString().contains("\"endpoint\":\"" + emulator.getEmulatorEndpoint() + "/"),
                "requests go to " + emulator.getEmulatorEndpoint());
    }

    public static class Product {
        public String id;
        public String category;
        public String name;
        public int quantity;

        public Product() {}

        Product(String id, String category, String name, int quantity) {
            this.id = id;
            this.category = category;
            this.name = name;
            this.quantity = quantity;
        }
    }
}
