// Pipelined queries of @azure/cosmos across a split: ORDER BY, COUNT,
// DISTINCT, GROUP BY and OFFSET LIMIT queries (the SDK's pipeline: a query plan,
// then one request per partition key range, x-ms-documentdb-partitionkeyrangeid)
// are started with a small maxItemCount over a container with three
// ranges, each reads one page, every range is split through the control
// endpoint, then each is drained with fetchNext. A query that has not
// ended after 300 fetchNext calls is reported "stuck" (a count, not a
// time: a hang fails the test instead of hanging it).
//
// "injected" is the SDK alone: on a container that is never split, a
// request plugin (the way the SDK's own split tests fake a split) throws
// one 410/1002 for range "0" of a pipelined ORDER BY; "injected-plain"
// the same on a plain query, which names no range. GET /_mark/<name>
// tells compat_test's recording proxy which scenario the next requests
// belong to; TestJSSplitPipelined checks the lines and the requests.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (a recording proxy; required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient, PluginOn, StatusCodes } from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog, once, mark } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("split_pipelined", 150);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const N = 30;
const ids = (from, to) => Array.from({ length: to - from }, (_, i) => `i${String(from + i).padStart(2, "0")}`);

async function seeded(id) {
  const { container } = await database.containers.create({ id, partitionKey: { paths: ["/pk"], version: 2 } });
  for (let i = 0; i < N; i++) {
    await container.items.create({ id: ids(i, i + 1)[0], pk: `p${i}`, n: i, g: `g${i % 5}` });
  }
  return container;
}

async function liveRanges(coll) {
  const res = await signedRequest("GET", `dbs/${encodeURIComponent(dbId)}/colls/${coll}/pkranges`);
  return res.body.PartitionKeyRanges.map((r) => r.id);
}

async function splitAll(coll) {
  const before = await liveRanges(coll);
  for (const id of before) {
    const res = await signedRequest("POST", `_emulator/dbs/${encodeURIComponent(dbId)}/colls/${coll}/pkranges/${id}/split`, {});
    if (res.status !== 200) throw new Error(`split ${coll}/${id}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return `${before.join("+")}->${(await liveRanges(coll)).join("+")}`;
}

// drain calls fetchNext until the query ends, at most 300 times.
async function drain(it, got) {
  for (let calls = 0; it.hasMoreResults(); calls++) {
    if (calls === 300) return false;
    got.push(...((await it.fetchNext()).resources ?? []));
  }
  return true;
}

const queries = [
  // name, text, what a correct drain gives
  ["orderby", "SELECT c.id, c.n FROM c ORDER BY c.n", (got) => `${got.length} ${once(got.map((d) => d.id), new Set(ids(0, N)))} ordered=${got.every((d, i) => d.n === i)}`],
  ["count", "SELECT VALUE COUNT(1) FROM c", (got) => JSON.stringify(got)],
  // (strings: 4.10.1's UnorderedDistinctEndpointComponent.js drops falsy values such as 0)
  ["distinct", "SELECT DISTINCT VALUE c.g FROM c", (got) => JSON.stringify([...got].sort())],
  ["groupby", "SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", (got) => JSON.stringify(got.map((r) => `${r.g}:${r.n}`).sort())],
  ["offset", "SELECT c.id, c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 20", (got) => `${got.length} ${once(got.map((d) => d.id), new Set(ids(5, 25)))} ordered=${got.every((d, i) => d.n === i + 5)}`],
];

// started before the split, one page each, drained after it
const pipe = await seeded("pipe");
await mark("started");
const its = [];
for (const [name, text, describe] of queries) {
  const it = pipe.items.query(text, { maxItemCount: 2 });
  const got = [...((await it.fetchNext()).resources ?? [])];
  its.push({ name, it, got, describe });
}
await mark("split");
const splitSummary = await splitAll("pipe");
console.log(`SPLIT ${splitSummary}`);
for (const { name, it, got, describe } of its) {
  await mark(`drain-${name}`);
  const ended = await drain(it, got);
  console.log(`STARTED-BEFORE ${name} ${ended ? describe(got) : "stuck"}`);
}
// started after the split by the same client, whose cached ranges are
// the ones from before it
for (const [name, text, describe] of queries) {
  await mark(`after-${name}`);
  const got = [];
  const ended = await drain(pipe.items.query(text, { maxItemCount: 2 }), got);
  console.log(`STARTED-AFTER ${name} ${ended ? describe(got) : "stuck"}`);
}

// the same queries on a container that is never split
const calm = await seeded("calm");
for (const [name, text, describe] of queries) {
  await mark(`unsplit-${name}`);
  const got = [];
  const ended = await drain(calm.items.query(text, { maxItemCount: 2 }), got);
  console.log(`UNSPLIT ${name} ${ended ? describe(got) : "stuck"}`);
}

// the SDK alone: one injected 410/1002, no split
let injected = 0;
let named = 0;
const faulty = new CosmosClient({
  endpoint,
  key,
  plugins: [{
    on: PluginOn.request,
    plugin: async (context, diagnosticNode, next) => {
      const range = context.headers["x-ms-documentdb-partitionkeyrangeid"];
      if (range !== undefined && context.resourceType === "docs") named++;
      if (range === "0" && injected === 0 && context.resourceType === "docs") {
        injected++;
        const err = new Error("Fake Partition Split");
        err.code = StatusCodes.Gone;
        err.substatus = 1002;
        throw err;
      }
      return next(context);
    },
  }],
});
for (const [name, opts] of [["injected", {}], ["injected-plain", {}]]) {
  await mark(name);
  injected = 0;
  named = 0;
  const text = name === "injected" ? queries[0][1] : "SELECT c.id, c.n FROM c";
  const got = [];
  const ended = await drain(faulty.database(dbId).container("calm").items.query(text, { maxItemCount: 2, ...opts }), got);
  const outcome = !ended ? `stuck after ${got.length}` : name === "injected" ? queries[0][2](got) : `${got.length} ${once(got.map((d) => d.id), new Set(ids(0, N)))}`;
  console.log(`SDK ${name} injected=${injected} ranged-requests=${named > 0} ${outcome}`);
}
await mark("end");
process.exit(0);
