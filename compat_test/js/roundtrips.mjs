// Round trips per call: drives a fixed sequence of @azure/cosmos calls
// against COSMOS_ENDPOINT (plain http, no agent) and prints one line per
// call: "CALL <name>". compat_test's TestJSOneRoundTripPerCall runs it
// behind a counting proxy and checks that, after the client's first
// account read, every call cost exactly the requests listed there (one per
// point operation; a query is a query-plan request plus the query).
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
//
// Exit status 0 when every call succeeded, 1 otherwise.
import assert from "node:assert/strict";
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("roundtrips", 60);

async function call(name, fn) {
  const res = await fn();
  console.log(`CALL ${name}`);
  return res;
}

const client = new CosmosClient({ endpoint, key });
try {
  const { database } = await call("createDatabase", () => client.databases.create({ id: dbId }));
  const { container } = await call("createContainer", () =>
    database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }),
  );
  await call("createItem", () => container.items.create({ id: "a", pk: "p", n: 1 }));
  const { resource } = await call("readItem", () => container.item("a", "p").read());
  assert.equal(resource.n, 1);
  await call("upsertItem", () => container.items.upsert({ id: "b", pk: "p", n: 2 }));
  await call("replaceItem", () => container.item("a", "p").replace({ id: "a", pk: "p", n: 3 }));
  await call("patchItem", () =>
    container.item("a", "p").patch([{ op: "incr", path: "/n", value: 1 }]),
  );
  const { resources } = await call("query", () =>
    container.items
      .query({ query: "SELECT VALUE c.n FROM c WHERE c.id = @id", parameters: [{ name: "@id", value: "a" }] }, { partitionKey: "p" })
      .fetchAll(),
  );
  assert.deepEqual(resources, [4]);
  await call("deleteItem", () => container.item("b", "p").delete());
  await call("readContainer", () => container.read());
  await call("readDatabase", () => database.read());
  await call("deleteDatabase", () => database.delete());
} catch (err) {
  console.error(`FAIL ${err.stack || err}`);
  process.exit(1);
}
