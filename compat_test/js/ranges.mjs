// Partition key ranges through @azure/cosmos: with --min-partition-ranges 4
// a new container has four feed ranges (getFeedRanges reads /pkranges with
// a plain GET), a 21,000 RU/s container has four whatever the minimum, a
// legacy non-partitioned container keeps one; after a split through the
// control endpoint a new client sees five, and the old client's point
// operations keep working (they are routed by partition key on the
// server). The script prints one line per step; compat_test's
// TestJSPartitionKeyRanges checks them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("ranges", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const show = (frs) => frs.map((r) => `[${r.minInclusive},${r.maxExclusive})`).join(" ");

const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 } });
let frs = await container.getFeedRanges();
console.log(`MIN4 ${frs.length} ${show(frs)}`);

const { container: big } = await database.containers.create({ id: "big", partitionKey: { paths: ["/name"] }, throughput: 21000 });
frs = await big.getFeedRanges();
console.log(`RU21000 ${frs.length}`);

const legacy = await signedRequest("POST", `dbs/${encodeURIComponent(dbId)}/colls`, { id: "legacy" }, undefined, { "x-ms-version": "2018-06-18" });
if (legacy.status !== 201) throw new Error(`create legacy container: ${legacy.status} ${JSON.stringify(legacy.body)}`);
frs = await database.container("legacy").getFeedRanges();
console.log(`LEGACY ${frs.length}`);

await container.items.create({ id: "a", pk: "redmond" });
const split = await signedRequest("POST", `_emulator/dbs/${encodeURIComponent(dbId)}/colls/c/pkranges/0/split`, {});
console.log(`SPLIT ${split.status} ${split.body.PartitionKeyRanges.map((r) => `${r.id}<-${r.parents.join("+")}`).join(" ")}`);

const fresh = new CosmosClient({ endpoint, key });
frs = await fresh.database(dbId).container("c").getFeedRanges();
console.log(`AFTER ${frs.length}`);

const { resource: read, statusCode } = await container.item("a", "redmond").read();
console.log(`READ ${statusCode} ${read.id}`);
