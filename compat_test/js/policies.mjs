// Legacy indexing policies and the container errors the JS SDK's own specs
// compare, through @azure/cosmos against COSMOS_ENDPOINT. It creates the
// container the SDK's cross-partition, aggregate and spatial specs create
// (the legacy root "/" with indexes arrays, mode "Consistent"), runs those
// kinds of queries through the SDK's query pipeline, then provokes the
// vector policy and request size errors. One line per result:
//   "POLICY <indexingPolicy as read back>"
//   "<query name> <JSON of the results>"
//   "ERROR <case> <status> <error.message up to its first line break>"
// compat_test's TestJSLegacyPolicyQueries checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("policies", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({
  id: "legacy",
  partitionKey: { paths: ["/pk"] },
  indexingPolicy: {
    indexingMode: "Consistent",
    automatic: true,
    includedPaths: [{
      path: "/",
      indexes: [
        { kind: "Range", dataType: "Number", precision: -1 },
        { kind: "Range", dataType: "String", precision: -1 },
        { kind: "Spatial", dataType: "Point" },
      ],
    }],
  },
});
const { resource: def } = await container.read();
console.log(`POLICY ${JSON.stringify(def.indexingPolicy)}`);

// six items over three partitions; points along the equator, 1 degree
// (about 111 km) apart
for (let i = 0; i < 6; i++) {
  await container.items.create({
    id: `d${i}`,
    pk: `p${i % 3}`,
    n: (i * 7) % 6,
    g: i % 2 === 0 ? "even" : "odd",
    loc: { type: "Point", coordinates: [i, 0] },
  });
}

async function run(name, query) {
  const { resources } = await container.items.query(query).fetchAll();
  console.log(`${name} ${JSON.stringify(resources)}`);
}

await run("ORDERBY_ASC", "SELECT VALUE c.id FROM c ORDER BY c.n");
await run("ORDERBY_DESC", "SELECT c.id, c.n FROM c ORDER BY c.n DESC");
await run("ORDERBY_TOP", "SELECT TOP 2 VALUE c.id FROM c ORDER BY c.id DESC");
await run("COUNT", "SELECT VALUE COUNT(1) FROM c");
await run("SUM", "SELECT VALUE SUM(c.n) FROM c");
await run("AVG", "SELECT VALUE AVG(c.n) FROM c");
await run("MIN", "SELECT VALUE MIN(c.n) FROM c");
await run("MAX", "SELECT VALUE MAX(c.id) FROM c");
await run("GROUPBY", "SELECT c.g, COUNT(1) AS cnt, SUM(c.n) AS total, MIN(c.n) AS lo, MAX(c.n) AS hi FROM c GROUP BY c.g");
await run("ST_DISTANCE",
  "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [0, 0]}) < 250000 ORDER BY c.id");
await run("ST_WITHIN",
  "SELECT VALUE c.id FROM c WHERE ST_WITHIN(c.loc, {'type': 'Polygon', 'coordinates': [[[2.5, -1], [5.5, -1], [5.5, 1], [2.5, 1], [2.5, -1]]]}) ORDER BY c.id");

// fail prints the status and the first line of the message of a call
// that must fail.
async function fail(name, call) {
  try {
    await call();
  } catch (e) {
    console.log(`ERROR ${name} ${e.code} ${String(e.message).split("\r\n")[0]}`);
    return;
  }
  console.log(`ERROR ${name} none`);
}

await fail("vector-index-without-embedding", () => database.containers.create({
  id: "vecbad",
  partitionKey: { paths: ["/pk"] },
  indexingPolicy: { vectorIndexes: [{ path: "/vector1", type: "flat" }] },
}));

const { container: vec } = await database.containers.create({
  id: "vec",
  partitionKey: { paths: ["/pk"] },
  vectorEmbeddingPolicy: {
    vectorEmbeddings: [{ path: "/vector1", dataType: "float32", distanceFunction: "euclidean", dimensions: 3 }],
  },
  indexingPolicy: { vectorIndexes: [{ path: "/vector1", type: "flat" }] },
});
// a replace whose body holds only the changed vector indexes
await fail("vector-index-replace", () => vec.replace({
  id: "vec",
  indexingPolicy: { vectorIndexes: [{ path: "/vector1", type: "quantizedFlat" }] },
}));
await fail("request-too-large", () => container.items.create({ id: "big", pk: "p0", s: "x".repeat(3 * 1024 * 1024) }));
