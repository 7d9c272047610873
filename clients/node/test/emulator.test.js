// The example: the global set-up (vitest.config.js) started one emulator
// through cosmos-emulator-node; the tests reach it with @azure/cosmos as a
// user's tests would. The last tests start emulators of their own to check
// https and stop().
import { describe, expect, inject, test } from "vitest";
import { CosmosClient } from "@azure/cosmos";
import { clientOptions, startEmulator } from "cosmos-emulator-node";
import https from "node:https";

// healthStatus answers the status of GET /_emulator/health over https
// trusting ca, or rejects (e.g. ECONNREFUSED once the emulator is gone).
function healthStatus(endpoint, ca) {
  return new Promise((resolve, reject) => {
    https
      .get(new URL("_emulator/health", endpoint), { ca, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on("error", reject);
  });
}

describe("the emulator of the global set-up", () => {
  test("creates a database, a container and an item through @azure/cosmos", async () => {
    const info = inject("cosmosEmulator");
    expect(info.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const client = new CosmosClient(clientOptions(info));
    const { database } = await client.databases.createIfNotExists({ id: "example" });
    const { container } = await database.containers.createIfNotExists({
      id: "items",
      partitionKey: { paths: ["/pk"] },
    });
    const { statusCode } = await container.items.upsert({ id: "1", pk: "a", name: "first" });
    expect([200, 201]).toContain(statusCode);
    const { resource } = await container.item("1", "a").read();
    expect(resource).toMatchObject({ id: "1", pk: "a", name: "first" });
    const { resources } = await container.items
      .query({ query: "SELECT VALUE c.name FROM c WHERE c.pk = @pk", parameters: [{ name: "@pk", value: "a" }] })
      .fetchAll();
    expect(resources).toEqual(["first"]);
  });

  test("the connection details are also in the environment of the tests", () => {
    const info = inject("cosmosEmulator");
    expect(process.env.COSMOS_ENDPOINT).toBe(info.endpoint);
    expect(process.env.COSMOS_KEY).toBe(info.key);
  });
});

describe("startEmulator", () => {
  test("https: the CA it returns is the one the emulator serves, and stop() ends the emulator", async () => {
    const t0 = Date.now();
    const emulator = await startEmulator({ protocol: "https" });
    console.log(`https emulator ready in ${Date.now() - t0} ms at ${emulator.endpoint}`);
    try {
      expect(emulator.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      expect(emulator.ca).toContain("-----BEGIN CERTIFICATE-----");
      const trusting = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, agent: emulator.agent });
      const { database } = await trusting.databases.createIfNotExists({ id: "tls" });
      expect(database.id).toBe("tls");
      expect(await healthStatus(emulator.endpoint, emulator.ca)).toBe(200);
      // Without the CA the certificate is not trusted: the CA is what makes it work.
      const plain = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0 } } });
      await expect(plain.getDatabaseAccount()).rejects.toThrow(/certificate/i);
    } finally {
      await emulator.stop();
      await emulator.stop(); // a second call is harmless
    }
    await expect(healthStatus(emulator.endpoint, emulator.ca)).rejects.toThrow(/ECONNREFUSED/);
  });

  test("a binary that cannot be run: the error says which and how to name another", async () => {
    await expect(startEmulator({ binary: "/nonexistent/cosmos-emulator" })).rejects.toThrow(
      /cannot run \/nonexistent\/cosmos-emulator.*COSMOS_EMULATOR_BIN/,
    );
  });
});
