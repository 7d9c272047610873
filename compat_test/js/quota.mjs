// Quota headers of a container read through @azure/cosmos:
// container.read({ populateQuotaInfo: true }) sends
// x-ms-documentdb-populatequotainfo: true and gets x-ms-resource-quota,
// x-ms-resource-usage and x-ms-documentdb-collection-index-transformation-progress
// (which the SDK names Constants.HttpHeaders.IndexTransformationProgress).
// Prints one line per read; compat_test's TestJSContainerQuotaInfo checks
// them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient, Constants } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("quota", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });

// report prints what a read's headers say: the progress, the usage's
// documentsCount and whether the quota and usage headers came.
function report(name, headers) {
  const usage = headers["x-ms-resource-usage"];
  const quota = headers[Constants.HttpHeaders.MaxResourceQuota];
  const count = usage ? /documentsCount=(-?\d+)/.exec(usage)?.[1] : "-";
  const progress = headers[Constants.HttpHeaders.IndexTransformationProgress] ?? "-";
  console.log(`${name} progress=${progress} documentsCount=${count} quota=${quota !== undefined} usage=${usage !== undefined}`);
}

report("empty", (await container.read({ populateQuotaInfo: true })).headers);
for (let i = 0; i < 3; i++) await container.items.create({ id: `i${i}`, pk: "p" });
report("three", (await container.read({ populateQuotaInfo: true })).headers);
report("without", (await container.read()).headers);
await database.delete();
