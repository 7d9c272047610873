// Full-text and hybrid search through @azure/cosmos against COSMOS_ENDPOINT:
// ORDER BY RANK FullTextScore and RRF (with a vector component and with
// weights), cross-partition as the SDK's own full-text spec runs them
// (fetchAll without options: the query goes out once and the answer is
// used as it comes), with a partition key, page by page (fetchNext), an
// empty container, and forceQueryPlan (the plan request). One line per
// result: "<name> <JSON of the results>" (or of the error's code and
// message). compat_test's TestJSFullText checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("fulltext", 120);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({
  id: "docs",
  partitionKey: { paths: ["/pk"] },
  fullTextPolicy: { defaultLanguage: "en-US", fullTextPaths: [{ path: "/text", language: "en-US" }] },
  indexingPolicy: { includedPaths: [{ path: "/*" }], fullTextIndexes: [{ path: "/text" }] },
});
const { container: empty } = await database.containers.create({ id: "empty", partitionKey: { paths: ["/pk"] } });

const items = [
  { id: "one", pk: "a", text: "the quick brown fox jumps over the lazy dog", title: "red bike", v: [1, 0] },
  { id: "three", pk: "b", text: "a fox, a second fox and a third fox", title: "blue bike", v: [0, 1] },
  { id: "none", pk: "c", text: "the lazy dog sleeps all day in the sun", title: "red car", v: [0.9, 0.1] },
  { id: "two", pk: "d", text: "the fox chased another fox into the woods", title: "green van", v: [0.5, 0.5] },
];
for (const it of items) await container.items.create(it);

async function run(name, c, query, options) {
  try {
    const { resources } = await c.items.query(query, options).fetchAll();
    console.log(`${name} ${JSON.stringify(resources)}`);
  } catch (e) {
    // the service's code when the message embeds one, else its start
    const sc = /"code":"(SC\d+)"/.exec(e.message || "");
    console.log(`${name} ERROR ${e.code} ${sc ? sc[1] : (e.message || "").slice(0, 60)}`);
  }
}

async function pages(name, c, query, options) {
  const it = c.items.query(query, options);
  const out = [];
  while (it.hasMoreResults()) {
    const { resources } = await it.fetchNext();
    if (resources && resources.length) out.push(resources);
  }
  console.log(`${name} ${JSON.stringify(out)}`);
}

const fox = "SELECT TOP 3 VALUE c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')";
// fox: three 3, two 2, one 1, none 0
await run("FOX", container, fox);
await run("FOX_PK", container, fox, { partitionKey: "b" });
// (without TOP or LIMIT: over several ranges the SDK runs the hybrid plan,
// whose unbounded component query its non-streaming guard refuses unless
// allowed, as against the service)
await pages("FOX_PAGES", container, "SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, 'fox')", { maxItemCount: 2, allowUnboundedNonStreamingQueries: true });
// vector (cosine to [1,0]): one 1, none 0.994, two 0.707, three 0 ->
// one1 none2 two3 three4; text "fox": three1 two2 one3 none4
// RRF: one 1/61+1/63, three 1/64+1/61, two 1/63+1/62, none 1/62+1/64
await run("RRF", container, "SELECT TOP 10 c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox'))");
await run("RRF_OFFSET", container, "SELECT c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox')) OFFSET 1 LIMIT 2");
await run("RRF_WEIGHTED", container, "SELECT VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox'), [1, 3])");
await run("RRF_PARAMS", container, {
  query: "SELECT VALUE c.id FROM c WHERE FullTextContains(c.title, @t) ORDER BY RANK RRF(VectorDistance(c.v, @v), FullTextScore(c.text, @q))",
  parameters: [{ name: "@t", value: "bike" }, { name: "@v", value: [1, 0] }, { name: "@q", value: "fox" }],
});
await run("EMPTY", empty, fox);
await run("EMPTY_RRF", empty, "SELECT TOP 5 VALUE c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), FullTextScore(c.text, 'fox'))");
await run("FORCE_PLAN", container, fox, { forceQueryPlan: true });
await run("REFUSED", container, "SELECT VALUE c.id FROM c WHERE FullTextScore(c.text, 'fox') > 0");
