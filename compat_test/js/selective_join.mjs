// A selective 4-way JOIN read with fetchAll() on an emulator whose page
// budget is short (the test starts it so): 300 items with n = 0..299 and
// a = [0..10], plus 11 in the items whose n is a multiple of 100; the
// query keeps [n, 11, 11, 11] only, so most pages end at their budget with
// no result and a continuation. Prints:
//   "RESULTS <json array>"   what fetchAll() returned
//
//   COSMOS_ENDPOINT, COSMOS_DB  (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("selective_join", 120);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
for (let n = 0; n < 300; n++) {
  const a = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  if (n % 100 === 0) a.push(11);
  await container.items.create({ id: `d${n}`, pk: "p", n, a });
}
const query = "SELECT VALUE [c.n, x, y, z] FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a WHERE x + y + z = 33";
const { resources } = await container.items.query(query).fetchAll();
console.log(`RESULTS ${JSON.stringify(resources)}`);
