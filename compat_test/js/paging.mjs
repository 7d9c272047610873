// Query paging through @azure/cosmos's query pipeline: runs cross-partition
// queries of each kind the pipeline handles (plain SELECT *, ORDER BY, TOP,
// ORDER BY + TOP, OFFSET LIMIT, DISTINCT, aggregates, GROUP BY) with
// maxItemCount 3 over 12 items, so each needs several pages, and prints per
// query:
//   "PAGES <name> <n>/<hasMoreResults> ..."  every fetchNext's item count and
//                                            hasMoreResults, in order
//   "ITEMS <name> <result> ..."              the results those pages returned
//   "ALL <name> <result> ..."                what fetchAll returned
// (a result is a document's id, any other value as JSON).
// Before each query's fetchNext loop and its fetchAll it sends
// "GET <endpoint>_mark/<name>/next" (or .../all), which the recording proxy
// of compat_test's TestJSQueryPaging answers itself, so that the requests
// the SDK sends can be told apart per query.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required; the recording proxy)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog, mark } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("paging", 90);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
// 12 items over three partitions; n orders them differently from their ids
// and g has six values, none falsy (the SDK's DISTINCT components drop
// falsy results: `if (item)` in @azure/cosmos 4.10.1).
for (let i = 0; i < 12; i++) {
  const n = (i * 5) % 12;
  await container.items.create({ id: `i${String(i).padStart(2, "0")}`, pk: ["a", "b", "c"][i % 3], n, g: (n % 6) + 1 });
}

const pageSize = 3;
const queries = [
  // no plan needed: the optimistic request is the query (the gateway's
  // cross-partition shape); the same through the pipeline (enableQueryControl)
  ["select", "SELECT * FROM c"],
  ["selectpipeline", "SELECT * FROM c", { enableQueryControl: true }],
  // answered 400 with the plan: the pipeline sends the plan's query to range 0
  ["orderby", "SELECT * FROM c ORDER BY c.n"],
  ["orderbydesc", "SELECT c.id, c.n FROM c ORDER BY c.n DESC"],
  ["top", "SELECT TOP 9 c.id FROM c"],
  ["orderbytop", "SELECT TOP 7 c.id, c.n FROM c ORDER BY c.n"],
  ["orderbytopall", "SELECT TOP 12 VALUE c.n FROM c ORDER BY c.n DESC"],
  ["offsetlimit", "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 4 LIMIT 5"],
  ["offsetlimitpast", "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 3 LIMIT 20"],
  ["offsetlimitplain", "SELECT VALUE c.id FROM c OFFSET 7 LIMIT 4"],
  ["distinct", "SELECT DISTINCT VALUE c.g FROM c"],
  ["distinctordered", "SELECT DISTINCT VALUE c.g FROM c ORDER BY c.g"],
  ["count", "SELECT VALUE COUNT(1) FROM c"],
  ["sum", "SELECT VALUE SUM(c.n) FROM c"],
  ["groupby", "SELECT c.g, COUNT(1) AS k FROM c GROUP BY c.g"],
];

for (const [name, query, extra] of queries) {
  const options = { maxItemCount: pageSize, ...extra };
  await mark(`${name}/next`);
  const it = container.items.query(query, options);
  const pages = [];
  const items = [];
  for (let i = 0; it.hasMoreResults(); i++) {
    if (i === 50) throw new Error(`${name}: the query does not end`);
    const res = await it.fetchNext();
    // (a page with no results has resources undefined)
    const got = res.resources ?? [];
    pages.push(`${got.length}/${res.hasMoreResults}`);
    items.push(...got);
  }
  console.log(`PAGES ${name} ${pages.join(" ")}`);
  console.log(`ITEMS ${name} ${items.map(brief).join(" ")}`);
  await mark(`${name}/all`);
  const { resources } = await container.items.query(query, options).fetchAll();
  console.log(`ALL ${name} ${resources.map(brief).join(" ")}`);
}
await database.delete();

// brief is a result as the Go test compares it: a document's id, any other
// value as JSON.
function brief(v) {
  return v !== null && typeof v === "object" && typeof v.id === "string" ? v.id : JSON.stringify(v);
}
