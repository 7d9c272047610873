// Full-text and hybrid search through @azure/cosmos's hybrid pipeline:
// ORDER BY RANK FullTextScore (one term, several terms) and RRF (of two
// FullTextScores, of VectorDistance and FullTextScore, weighted, with TOP
// and OFFSET/LIMIT), each run three ways: fetchAll as the SDK's own
// full-text spec runs it (the query goes out first: one range serves it
// whole, several ranges refuse it with the hybrid plan, which the SDK then
// runs), forceQueryPlan (the plan's optimized format) and forceQueryPlan
// with disableHybridSearchQueryPlanOptimization (the non-optimized
// format), all with allowUnboundedNonStreamingQueries as that spec sets.
// Prints "RANGES <n>", then "<NAME> <MODE> <ids>" per query and mode (or
// "<NAME> <MODE> ERR <code> <message start>"). compat_test's
// TestJSHybridSearch checks the lines.
//
//   COSMOS_ENDPOINT, COSMOS_DB  (required)
//   THROUGHPUT  container RU/s (default 400: one range; 25100: five)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("hybrid_search", 240);
const throughput = Number(process.env.THROUGHPUT || 400);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] }, throughput });
const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
console.log(`RANGES ${ranges.length}`);

// No stop words in the texts, so that the token counts are the words:
// 20 tokens of text over 8 documents (d8 has none).
const items = [
  { id: "d1", title: "John Smith", text: "united states america", v: [1, 0] },
  { id: "d2", title: "red fox", text: "fox fox fox wood", v: [0, 1] },
  { id: "d3", title: "John", text: "fox dog", v: [0.9, 0.1] },
  { id: "d4", title: "blue car", text: "united kingdom", v: [0.5, 0.5] },
  { id: "d5", title: "Johnny Cash", text: "states mind body", v: [0.2, 0.8] },
  { id: "d6", title: "green van", text: "fox fox dog dog dog", v: [0.7, 0.3] },
  { id: "d7", title: "yellow bus", text: "cat sleeps", v: [0.1, 0.9] },
  { id: "d8", title: "John Doe", v: [0.95, 0.05] },
];
for (const [i, it] of items.entries()) await container.items.create({ ...it, pk: `p${i}` });

const rrfTextVector = "RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox')";
const queries = [
  ["FTS_ONE", "SELECT TOP 3 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')"],
  ["FTS_TERMS", "SELECT TOP 3 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox', 'dog')"],
  ["RRF_TEXT", "SELECT c.id FROM c WHERE FullTextContains(c.title, 'John') OR FullTextContains(c.text, 'United States') " +
    "ORDER BY RANK RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'))"],
  ["RRF_VECTOR", `SELECT TOP 10 c.id FROM c ORDER BY RANK ${rrfTextVector})`],
  ["RRF_WEIGHTED", `SELECT TOP 10 c.id FROM c ORDER BY RANK ${rrfTextVector}, [1, 3])`],
  ["RRF_NEGATIVE", `SELECT TOP 10 c.id FROM c ORDER BY RANK ${rrfTextVector}, [-1, 1])`],
  ["RRF_TOP", `SELECT TOP 3 c.id FROM c ORDER BY RANK ${rrfTextVector})`],
  ["RRF_OFFSET", `SELECT c.id FROM c ORDER BY RANK ${rrfTextVector}) OFFSET 2 LIMIT 3`],
];
const modes = [
  ["ALL", {}],
  ["PLAN", { forceQueryPlan: true }],
  ["PLAN_NONOPT", { forceQueryPlan: true, disableHybridSearchQueryPlanOptimization: true }],
];
for (const [name, query] of queries) {
  for (const [mode, options] of modes) {
    try {
      const { resources } = await container.items.query(query, { allowUnboundedNonStreamingQueries: true, ...options }).fetchAll();
      console.log(`${name} ${mode} ${resources.map((r) => r.id).join(" ")}`);
    } catch (e) {
      console.log(`${name} ${mode} ERR ${e.code} ${String(e.message).slice(0, 80)}`);
    }
  }
}
// page by page, with query control (one component page per fetchNext)
{
  const it = container.items.query(`SELECT TOP 10 c.id FROM c ORDER BY RANK ${rrfTextVector})`,
    { maxItemCount: 2, enableQueryControl: true, allowUnboundedNonStreamingQueries: true });
  const ids = [];
  while (it.hasMoreResults()) {
    const { resources } = await it.fetchNext();
    for (const r of resources || []) ids.push(r.id);
  }
  console.log(`RRF_VECTOR PAGES ${ids.join(" ")}`);
}
// The candidates' window: with TOP or LIMIT each component query returns
// its first 120 (max(120, 2 * (OFFSET + TOP))) results and the SDK fuses
// only those. 125 documents; document x has rank a(x) in the first
// component (cosine of v to [1, 0], v at a/2 degrees) and b(x) in the
// second (w at b/2 degrees): P (1, 125), Q (2, 107), E1..E4 (121..124 in
// both: no window holds them), D (125, 1), and for a = 3..120 the b left,
// descending. With weights [2, 1], ranking all 125 gives Q (2/62 + 1/167)
// before P (2/61 + 1/185); among the candidates P's second rank is 121 and
// P (2/61 + 1/181) comes first. Every other document scores below both.
{
  const { container: w } = await database.containers.create({ id: "w", partitionKey: { paths: ["/pk"] }, throughput });
  const unit = (r) => [Math.cos((r * Math.PI) / 360), Math.sin((r * Math.PI) / 360)];
  const docs = [["P", 1, 125], ["Q", 2, 107], ["D", 125, 1]];
  for (let k = 1; k <= 4; k++) docs.push([`E${k}`, 120 + k, 120 + k]);
  const left = [];
  for (let b = 120; b >= 2; b--) if (b !== 107) left.push(b);
  for (let a = 3; a <= 120; a++) docs.push([`m${a}`, a, left[a - 3]]);
  for (const [i, [id, a, b]] of docs.entries()) await w.items.create({ id, pk: `p${i % 10}`, v: unit(a), w: unit(b) });
  const q = "SELECT TOP 2 c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), VectorDistance(c.w, [1, 0]), [2, 1])";
  for (const [mode, options] of modes) {
    const { resources } = await w.items.query(q, options).fetchAll();
    console.log(`WINDOW ${mode} ${resources.map((r) => r.id).join(" ")}`);
  }
}
// a multi-word term matches any of its words
{
  const { resources } = await container.items.query("SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'United States')").fetchAll();
  console.log(`UNITED ALL ${resources.sort().join(" ")}`);
}
await database.delete();
