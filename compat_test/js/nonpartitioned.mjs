// A legacy non-partitioned container through @azure/cosmos: the container
// is created by raw REST at an old API version without a partition key (the
// service gives it the system key /_partitionKey, systemKey true), then the
// SDK drives the item cycle. For such a container the SDK sends the
// partition key header [] (extractPartitionKeys / undefinedPartitionKey).
// The script prints one line per step; compat_test's
// TestJSNonPartitionedContainer checks them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient, ChangeFeedStartFrom, StatusCodes } from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("nonpartitioned", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const created = await signedRequest("POST", `dbs/${encodeURIComponent(dbId)}/colls`, { id: "legacy" }, undefined, {
  "x-ms-version": "2018-06-18",
});
if (created.status !== 201) throw new Error(`create legacy container: ${created.status} ${JSON.stringify(created.body)}`);
const pkDef = created.body.partitionKey;
console.log(`CONTAINER ${pkDef.paths.join(",")} systemKey=${pkDef.systemKey}`);

const container = database.container("legacy");
const ids = (rs) => rs.map((r) => (typeof r === "string" ? r : r.id)).sort().join(",");

const { resource: a, statusCode: createStatus } = await container.items.create({ id: "a", n: 1 });
console.log(`CREATE ${createStatus} ${a.id} ${a.n}`);
const { resource: read } = await container.item("a").read();
console.log(`READ ${read.id} ${read.n}`);
const { resource: replaced } = await container.item("a").replace({ id: "a", n: 2 });
console.log(`REPLACE ${replaced.n}`);
const up1 = await container.items.upsert({ id: "u", n: 1 });
const up2 = await container.items.upsert({ id: "u", n: 2 });
console.log(`UPSERT ${up1.statusCode} ${up2.statusCode} ${up2.resource.n}`);
const { resource: patched } = await container.item("a", undefined).patch([{ op: "incr", path: "/n", value: 1 }]);
console.log(`PATCH ${patched.n}`);
const batch = await container.items.batch([
  { operationType: "Create", resourceBody: { id: "t", n: 1 } },
  { operationType: "Read", id: "a" },
]);
console.log(`BATCH ${batch.result.map((r) => r.statusCode).join(",")}`);

const { resources: all } = await container.items.query("SELECT VALUE c.id FROM c").fetchAll();
console.log(`QUERY ${ids(all)}`);
const { resources: filtered } = await container.items
  .query({ query: "SELECT * FROM c WHERE c.n >= @n", parameters: [{ name: "@n", value: 2 }] }, { partitionKey: [] })
  .fetchAll();
console.log(`QUERY [] ${ids(filtered)}`);
const { resources: feed } = await container.items.readAll().fetchAll();
console.log(`READALL ${ids(feed)}`);

const cf = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
const changed = [];
for (let i = 0; i < 20; i++) {
  const res = await cf.readNext();
  if (res.statusCode === StatusCodes.NotModified) break;
  changed.push(...res.result);
}
console.log(`CHANGEFEED ${ids(changed)}`);

const del = await container.item("t").delete();
console.log(`DELETE ${del.statusCode}`);
// (the SDK answers a missing item's read with its 404, not an error)
const gone = await container.item("t").read();
console.log(`READ deleted: ${gone.statusCode} ${gone.resource === undefined}`);
await database.delete();
