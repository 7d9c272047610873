// All versions and deletes change feed through @azure/cosmos: drives
// getChangeFeedIterator with ChangeFeedMode.AllVersionsAndDeletes against
// COSMOS_ENDPOINT and prints one line per change it receives:
//   "CHANGE <scope> <operationType> <id> <n> <timeToLiveExpired> <previousImageLSN==last lsn of id>"
// and "CAUGHTUP <scope>" when a read answers 304. compat_test's
// TestJSAllVersionsAndDeletesFeed checks the lines.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import {
  CosmosClient,
  ChangeFeedMode,
  ChangeFeedStartFrom,
  StatusCodes,
} from "@azure/cosmos";
import { endpoint, key, requireDatabase, signedRequest, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("changefeed_avad", 60);

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({
  id: "c",
  partitionKey: { paths: ["/pk"] },
  defaultTtl: -1,
});

// control calls a signed control endpoint and returns its JSON answer.
async function control(name, body) {
  const res = await signedRequest("POST", `_emulator/${name}`, body);
  if (res.status < 200 || res.status >= 300) throw new Error(`control ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const lastLSN = {};
// drain reads it until a 304, printing the changes.
async function drain(scope, it) {
  for (let i = 0; i < 50; i++) {
    const res = await it.readNext();
    if (res.statusCode === StatusCodes.NotModified) {
      console.log(`CAUGHTUP ${scope}`);
      return;
    }
    for (const ch of res.result) {
      const m = ch.metadata;
      // a delete has an empty current ({}), its id in the metadata
      const id = ch.current && ch.current.id !== undefined ? ch.current.id : m.id;
      const n = ch.current && ch.current.n !== undefined ? ch.current.n : "-";
      const prevOK = (m.previousImageLSN ?? 0) === (lastLSN[scope + id] ?? 0);
      lastLSN[scope + id] = m.lsn;
      console.log(`CHANGE ${scope} ${m.operationType} ${id} ${n} ${m.timeToLiveExpired} ${prevOK}`);
    }
  }
  throw new Error("the feed does not end");
}

const opts = { changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes, maxItemCount: 2 };
const all = container.items.getChangeFeedIterator({ ...opts, changeFeedStartFrom: ChangeFeedStartFrom.Now() });
const onePK = container.items.getChangeFeedIterator({ ...opts, changeFeedStartFrom: ChangeFeedStartFrom.Now("p") });
const [range] = await container.getFeedRanges();
const oneRange = container.items.getChangeFeedIterator({ ...opts, changeFeedStartFrom: ChangeFeedStartFrom.Now(range) });
await drain("all", all);
await drain("p", onePK);
await drain("range", oneRange);

await container.items.create({ id: "a", pk: "p", n: 1 });
await container.item("a", "p").replace({ id: "a", pk: "p", n: 2 });
await container.items.upsert({ id: "a", pk: "p", n: 3 });
await container.items.upsert({ id: "b", pk: "q", n: 1 });
await container.item("a", "p").patch([{ op: "incr", path: "/n", value: 1 }]);
await container.item("b", "q").delete();
await container.item("a", "p").delete();

await drain("all", all);
await drain("p", onePK);
await drain("range", oneRange);
// A continuation token resumes where the iterator stopped.
await container.items.create({ id: "c", pk: "q", n: 1 });
const token = (await all.readNext()).continuationToken;
const resumed = container.items.getChangeFeedIterator({ ...opts, changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) });
await container.items.create({ id: "d", pk: "p", n: 1 });
await drain("resumed", resumed);

// TTL (the Go test starts the emulator with a frozen clock and no
// background sweeper): an expiry is a delete with timeToLiveExpired once
// the sweeper purges the item, not before.
await container.items.create({ id: "t", pk: "p", ttl: 10 });
await drain("all", all);
await control("clock", { advanceSeconds: 10 });
await drain("all", all);
const { deleted } = await control("ttl/sweep", {});
console.log(`SWEPT ${deleted}`);
await drain("all", all);
// A hierarchical key prefix: the SDK reads the prefix's effective
// partition key range (x-ms-start-epk / x-ms-end-epk).
const { container: h } = await database.containers.create({
  id: "h",
  partitionKey: { paths: ["/t", "/u"], kind: "MultiHash", version: 2 },
});
const prefix = h.items.getChangeFeedIterator({ ...opts, changeFeedStartFrom: ChangeFeedStartFrom.Now(["t1"]) });
await drain("prefix", prefix);
await h.items.create({ id: "a", t: "t1", u: "u1", n: 1 });
await h.items.create({ id: "b", t: "t2", u: "u1", n: 1 });
await h.items.create({ id: "c", t: "t1", u: "u2", n: 1 });
await h.item("a", ["t1", "u1"]).replace({ id: "a", t: "t1", u: "u1", n: 2 });
await h.item("b", ["t2", "u1"]).delete();
await h.item("a", ["t1", "u1"]).delete();
await drain("prefix", prefix);
await database.delete();
