package io.github.cosmosemulator.junit5;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** @ExtendWith: clients injected as parameters; the emulator is shared with the other classes of the run. */
@ExtendWith(CosmosEmulatorExtension.class)
class ExtendWithTest {
    @Test
    void injectedClients(CosmosClient client, CosmosAsyncClient async, CosmosEmulatorExtension emulator) {
        client.createDatabaseIfNotExists("injected");
        client.getDatabase("injected").createContainerIfNotExists("c", "/pk");
        async.getDatabase("injected").getContainer("c").createItem(Map.of("id", "x", "pk", "p")).block();
        assertEquals("x", client.getDatabase("injected").getContainer("c")
            .readItem("x", new PartitionKey("p"), JsonNode.class).getItem().get("id").asText());
        assertEquals(CosmosEmulatorExtension.KEY, emulator.key());
    }
}
