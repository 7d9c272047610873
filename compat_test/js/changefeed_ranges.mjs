// Change feed over several partition key ranges through @azure/cosmos:
// getFeedRanges gives one feed range per range; iterators over each feed
// range (latest version from the beginning, all versions and deletes from
// now) together return every change exactly once; the whole-container
// iterator returns every change once, reading the ranges breadth first
// (consecutive pages come from different ranges while several have
// changes, as the SDK's own change feed spec expects). With COSMOS_RU
// 21000 it also checks the SDK spec's fact: a /name (hash V1) container at
// 21,000 RU/s holding items named sample1..sample4 has exactly one name's
// items in its first feed range. Prints one line per check; compat_test's
// TestJSChangeFeedAcrossRanges compares them.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
//   COSMOS_RU        the container's manual throughput (optional)
import { CosmosClient, ChangeFeedMode, ChangeFeedStartFrom, StatusCodes } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog, once } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("changefeed_ranges", 80);
const ru = process.env.COSMOS_RU ? Number(process.env.COSMOS_RU) : undefined;

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 }, throughput: ru });
const frs = await container.getFeedRanges();
console.log(`FEEDRANGES ${frs.length}`);

// drain reads it until a 304 and returns the changes (key(change)) and the
// range id of each page.
async function drain(it, key) {
  const changes = [];
  const pages = [];
  for (let i = 0; i < 500; i++) {
    const res = await it.readNext();
    if (res.statusCode === StatusCodes.NotModified) return { changes, pages };
    pages.push(res.headers["x-ms-documentdb-partitionkeyrangeid"]);
    for (const ch of res.result) changes.push(key(ch));
  }
  throw new Error("the change feed does not end");
}

// all versions and deletes from now, per feed range: a first read fixes "now"
const avadOpts = { changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes, maxItemCount: 4 };
const avad = frs.map((fr) => container.items.getChangeFeedIterator({ ...avadOpts, changeFeedStartFrom: ChangeFeedStartFrom.Now(fr) }));
for (const it of avad) {
  const res = await it.readNext();
  if (res.statusCode !== StatusCodes.NotModified) throw new Error(`first read from now: ${res.statusCode}`);
}

const latest = new Set();
const events = new Set();
const items = new Map();
for (let i = 0; i < 40; i++) {
  const id = `i${String(i).padStart(2, "0")}`;
  await container.items.create({ id, pk: `p${id}`, n: 0 });
  events.add(`create ${id} 0`);
  items.set(id, 0);
}
for (let i = 0; i < 10; i++) {
  const id = `i0${i}`;
  await container.item(id, `p${id}`).replace({ id, pk: `p${id}`, n: 1 });
  events.add(`replace ${id} 1`);
  items.set(id, 1);
}
for (let i = 35; i < 40; i++) {
  const id = `i${i}`;
  await container.item(id, `p${id}`).delete();
  events.add(`delete ${id} -`);
  items.delete(id);
}
for (const [id, n] of items) latest.add(`${id}:${n}`);
const latestKey = (d) => `${d.id}:${d.n}`;

// latest version from the beginning, per feed range
let got = [];
for (const fr of frs) {
  const { changes } = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(fr), maxItemCount: 4 }), latestKey);
  got.push(...changes);
}
console.log(`LATEST per-range ${got.length} ${once(got, latest)}`);

got = [];
for (const it of avad) {
  const { changes } = await drain(it, (ch) => {
    const op = ch.metadata.operationType;
    return op === "delete" ? `delete ${ch.metadata.id} -` : `${op} ${ch.current.id} ${ch.current.n}`;
  });
  got.push(...changes);
}
console.log(`AVAD per-range ${got.length} ${once(got, events)}`);

// the whole container, breadth first
const { changes, pages } = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 4 }), latestKey);
const distinct = new Set(pages).size;
let breadth = true;
for (let i = 0; i + 1 < Math.min(pages.length, distinct); i++) {
  if (new Set(pages.slice(0, i + 2)).size !== i + 2) breadth = false;
}
console.log(`WHOLE ${changes.length} ${once(changes, latest)} ranges=${distinct} breadth=${breadth}`);
console.error(`whole-container pages by range: ${pages.join(",")}`);

if (ru === 21000) {
  const { container: samples } = await database.containers.create({ id: "samples", partitionKey: { paths: ["/name"] }, throughput: 21000 });
  for (const name of ["sample1", "sample2", "sample3", "sample4"]) {
    for (let i = 0; i < 3; i++) await samples.items.create({ id: `${name}-${i}`, name });
  }
  const [first] = await samples.getFeedRanges();
  const { changes: inFirst } = await drain(samples.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(first) }), (d) => d.name);
  console.log(`SAMPLES first-range names=${new Set(inFirst).size} items=${inFirst.length}`);
}
