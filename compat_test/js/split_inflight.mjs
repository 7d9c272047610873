// Splits in flight through @azure/cosmos: on containers with two ranges
// ("0" and "1"), a range is split through the control endpoint in the
// middle of (b) change feed reads over the container and over one feed
// range, (d) a bulk load (executeBulkOperations before and after the
// split, same client) and (a) paged cross-partition queries (ORDER BY,
// plain, plain through the query plan). The change feed and bulk find
// out on their own (410/1002 on the gone range id);
// each scenario prints its exact outcome. GET /_mark/<name> tells
// compat_test's recording proxy which scenario the next requests belong
// to; TestJSSplitInFlight checks the lines and the requests.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (a recording proxy; required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient, ChangeFeedStartFrom, StatusCodes } from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog, once, mark } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("split_inflight", 80);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });


async function split(coll, id) {
  const res = await signedRequest("POST", `_emulator/dbs/${encodeURIComponent(dbId)}/colls/${coll}/pkranges/${id}/split`, {});
  if (res.status !== 200) throw new Error(`split ${coll}/${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.PartitionKeyRanges.map((r) => r.id).join("+");
}

async function seeded(id, n) {
  const { container } = await database.containers.create({ id, partitionKey: { paths: ["/pk"], version: 2 } });
  for (let i = 0; i < n; i++) {
    const iid = `i${String(i).padStart(2, "0")}`;
    await container.items.create({ id: iid, pk: `p${iid}`, n: i });
  }
  return container;
}

const ids = (n) => new Set(Array.from({ length: n }, (_, i) => `i${String(i).padStart(2, "0")}`));

// (b) change feed over the container: one page, a split, the rest, then new writes
const cf = await seeded("cf", 20);
await mark("cf-whole");
const whole = cf.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 3 });
async function drain(it, into) {
  for (let i = 0; i < 200; i++) {
    const res = await it.readNext();
    if (res.statusCode === StatusCodes.NotModified) return;
    into.push(...res.result.map((d) => d.id));
  }
  throw new Error("the change feed does not end");
}
let got = (await whole.readNext()).result.map((d) => d.id);
await mark("cf-whole-split");
let kids = await split("cf", "0");
await drain(whole, got);
for (let i = 20; i < 25; i++) await cf.items.create({ id: `i${i}`, pk: `pi${i}`, n: i });
await drain(whole, got);
console.log(`CHANGEFEED whole split=0->${kids} ${got.length} ${once(got, ids(25))}`);

// (b) change feed over one feed range (range "0"'s): one page, a split, the rest
const cfr = await seeded("cfr", 30);
const frs = await cfr.getFeedRanges();
await mark("cf-range");
const one = cfr.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(frs[0]), maxItemCount: 3 });
got = (await one.readNext()).result.map((d) => d.id);
await mark("cf-range-split");
kids = await split("cfr", "0");
await drain(one, got);
// what a fresh reader of the same feed range sees after the split
await mark("cf-range-fresh");
const fresh = [];
await drain(cfr.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(frs[0]) }), fresh);
const other = [];
await drain(cfr.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(frs[1]) }), other);
console.log(`CHANGEFEED range split=0->${kids} ${got.length} ${once(got, new Set(fresh))} fresh+other=${once([...fresh, ...other], ids(30))}`);

// (d) bulk: half, a split, the other half (same client, stale ranges)
const { container: bulk } = await database.containers.create({ id: "bulk", partitionKey: { paths: ["/pk"], version: 2 } });
const ops = (from, to) => Array.from({ length: to - from }, (_, k) => {
  const id = `b${String(from + k).padStart(3, "0")}`;
  return { operationType: "Create", partitionKey: `p${id}`, resourceBody: { id, pk: `p${id}` } };
});
await mark("bulk");
const statuses = [];
for (const r of await bulk.items.executeBulkOperations(ops(0, 50))) statuses.push(r.response?.statusCode ?? r.error?.code);
await mark("bulk-split");
kids = await split("bulk", "0");
for (const r of await bulk.items.executeBulkOperations(ops(50, 100))) statuses.push(r.response?.statusCode ?? r.error?.code);
await mark("bulk-check");
const { resources: all } = await bulk.items.readAll().fetchAll();
const want = new Set(Array.from({ length: 100 }, (_, i) => `b${String(i).padStart(3, "0")}`));
console.log(`BULK split=0->${kids} created=${statuses.filter((s) => s === 201).length} other=${statuses.filter((s) => s !== 201).join(",")} stored=${all.length} ${once(all.map((d) => d.id), want)}`);

// (a) queries: two pages, a split, the rest. A query run through the
// SDK's pipeline (ORDER BY; a plain query with forceQueryPlan) names a
// range in each request; the emulator answers a request naming the split
// range over that range's former interval (4.10.1's pipeline cannot
// recover from the service's 410/1002: split_pipelined.mjs), so it
// continues from its continuation and ends with every item once. A plain
// query without a plan never names a range (the gateway answers it
// across ranges). After 100 fetchNext calls a query is reported as
// "stuck" (with the items it returned when it is ordered). A client
// created after the split reads the new ranges and gets everything.
const q = await seeded("q", 24);
await seeded("qp", 24);
for (const [name, coll, text, opts, ordered, splitID] of [
  ["orderby", "q", "SELECT c.id, c.n FROM c ORDER BY c.n", {}, true, "0"],
  ["plain", "q", "SELECT c.id, c.n FROM c", {}, false, "1"],
  ["plain-plan", "qp", "SELECT c.id, c.n FROM c", { forceQueryPlan: true }, false, "0"],
]) {
  await mark(`query-${name}`);
  const it = database.container(coll).items.query(text, { maxItemCount: 3, ...opts });
  const got = [];
  for (let i = 0; i < 2; i++) got.push(...((await it.fetchNext()).resources ?? []));
  await mark(`query-${name}-split`);
  const kids = await split(coll, splitID);
  let outcome;
  for (let calls = 0; it.hasMoreResults(); calls++) {
    if (calls === 100) {
      // an unordered query's count depends on which producer answered
      // first: only the ordered one's is exact
      console.error(`${name}: stuck after ${got.length}`);
      outcome = ordered ? `stuck after ${got.length}` : "stuck";
      break;
    }
    got.push(...((await it.fetchNext()).resources ?? []));
  }
  if (!outcome) outcome = `${got.length} ${once(got.map((d) => d.id), ids(24))}${ordered ? ` ordered=${got.every((d, i) => d.n === i)}` : ""}`;
  console.log(`QUERY ${name} split=${splitID}->${kids} ${outcome}`);
}
await mark("query-fresh");
const freshClient = new CosmosClient({ endpoint, key });
const fq = freshClient.database(dbId).container("q");
const { resources: ordered } = await fq.items.query("SELECT c.id, c.n FROM c ORDER BY c.n", { maxItemCount: 3 }).fetchAll();
console.log(`QUERY fresh-client ${ordered.length} ${once(ordered.map((d) => d.id), ids(24))} ordered=${ordered.every((d, i) => d.n === i)}`);
await mark("end");
process.exit(0);
