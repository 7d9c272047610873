// Unique keys through @azure/cosmos: a container with uniqueKeyPolicy
// /email refuses a second item with the same email in one logical
// partition (409, the error the SDK raises carrying the service's text)
// and writes nothing, while another partition takes the same email.
// Prints one line per step; compat_test's TestJSUniqueKeys checks them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("uniquekeys", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({
  id: "c",
  partitionKey: { paths: ["/pk"] },
  uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/email"] }] },
});

const first = await container.items.create({ id: "a", pk: "p", email: "x@y" });
console.log(`CREATE ${first.statusCode}`);
try {
  await container.items.create({ id: "b", pk: "p", email: "x@y" });
  console.log("DUPLICATE accepted");
} catch (err) {
  console.log(`DUPLICATE ${err.code} ${err.substatus ?? 0} ${JSON.stringify(err.body?.message ?? err.message).includes("Entity with the specified id already exists in the system.")}`);
}
const read = await container.item("b", "p").read();
console.log(`READ ${read.statusCode}`);
const other = await container.items.create({ id: "b", pk: "q", email: "x@y" });
console.log(`OTHER ${other.statusCode}`);
await database.delete();
