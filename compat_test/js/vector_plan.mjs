// ORDER BY VectorDistance through @azure/cosmos's query pipeline: the
// gateway answers the cross-partition query with its plan, a non-streaming
// ORDER BY (hasNonStreamingOrderBy), and the SDK merges the ranges' results
// itself, refusing the query without TOP or LIMIT unless told to allow it.
// 12 items "w0".."w11" over 6 partition keys; w<i>'s embedding points
// 5*i+1 degrees from the x axis with length 1+i, so the cosine similarity
// to [1, 1] orders them w9 w8 w10 w7 w11 w6 w5 w4 w3 w2 w1 w0 (every angle
// to 45 degrees differs). Prints "<NAME> <word> ..." or "ERR <NAME> <status>
// <message start>" per query, and "PLAN <queryInfo JSON>" for the first.
//
//   COSMOS_ENDPOINT, COSMOS_DB  (required)
//   THROUGHPUT  container RU/s (default 400: one range)
//   INDEX       vector index type: none (default), flat, quantizedFlat, diskANN
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("vector_plan", 90);
const throughput = Number(process.env.THROUGHPUT || 400);
const index = process.env.INDEX || "none";

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const indexingPolicy = { includedPaths: [{ path: "/*" }], excludedPaths: [{ path: "/embedding/*" }] };
if (index !== "none") indexingPolicy.vectorIndexes = [{ path: "/embedding", type: index }];
const { container } = await database.containers.create({
  id: "c",
  partitionKey: { paths: ["/pk"] },
  throughput,
  indexingPolicy,
  vectorEmbeddingPolicy: { vectorEmbeddings: [{ path: "/embedding", dataType: "float32", dimensions: 2, distanceFunction: "cosine" }] },
});
const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
console.log(`RANGES ${ranges.length}`);
for (let i = 0; i < 12; i++) {
  const a = ((5 * i + 1) * Math.PI) / 180;
  const len = 1 + i;
  await container.items.create({ id: `w${i}`, pk: `p${i % 6}`, word: `w${i}`, embedding: [len * Math.cos(a), len * Math.sin(a)] });
}

const order = "ORDER BY VectorDistance([1,1], c.embedding, true, {distanceFunction:'Cosine'})";
const queries = [
  ["UNBOUNDED", `SELECT c.word FROM c ${order}`, {}],
  ["ALLOWED", `SELECT c.word FROM c ${order}`, { allowUnboundedNonStreamingQueries: true }],
  ["TOP", `SELECT TOP 5 c.word FROM c ${order}`, {}],
  ["TOPPAGED", `SELECT TOP 5 c.word FROM c ${order}`, { maxItemCount: 2 }],
  ["OFFSET", `SELECT c.word FROM c ${order} OFFSET 2 LIMIT 3`, {}],
  ["SCORE", `SELECT TOP 3 c.word, VectorDistance([1,1], c.embedding, true, {distanceFunction:'Cosine'}) AS s FROM c ${order}`, {}],
  // the policy's function (cosine) when the query names none
  ["POLICY", `SELECT TOP 4 VALUE c.word FROM c ORDER BY VectorDistance(c.embedding, [1,1])`, {}],
  // euclidean: most similar is the smallest distance (w0 is nearest [1,1])
  ["EUCLIDEAN", `SELECT TOP 3 VALUE c.word FROM c ORDER BY VectorDistance(c.embedding, [1,1], false, {distanceFunction:'euclidean'})`, {}],
];
for (const [name, query, options] of queries) {
  try {
    const { resources } = await container.items.query(query, options).fetchAll();
    console.log(`${name} ${resources.map((r) => (typeof r === "string" ? r : r.word + (r.s !== undefined ? ":" + r.s.toFixed(4) : ""))).join(" ")}`);
  } catch (e) {
    console.log(`ERR ${name} ${e.code} ${String(e.message).slice(0, 60)}`);
  }
}
await database.delete();
