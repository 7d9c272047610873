// Change feed through the official JavaScript SDK (@azure/cosmos, pinned in
// package.json): getChangeFeedIterator with every start option (Beginning,
// Now, Time, Continuation), for the whole container, one feed range from
// getFeedRanges, one partition key and a hierarchical key's prefix; the legacy readChangeFeed; a
// continuation of another container refused. Exact expectations: ids in
// order, 304 when caught up, deletes absent. Time moves through the signed
// control endpoint /_emulator/clock.
//
//   COSMOS_ENDPOINT  default https://127.0.0.1:8081/ (https: certificate not
//                    verified; this script tests the change feed, not TLS)
//   COSMOS_KEY       default the well-known emulator key
//
// compat_test's TestJSChangeFeed runs it; make js-smoke runs it too.
// Exit status 0 when every step passed, 1 otherwise.
import assert from "node:assert/strict";
import https from "node:https";
import { randomUUID } from "node:crypto";
import { CosmosClient, ChangeFeedStartFrom, StatusCodes } from "@azure/cosmos";
import { endpoint, key, signedRequest, startWatchdog } from "./emulator.mjs";

const agent = new URL(endpoint).protocol === "https:" ? new https.Agent({ rejectUnauthorized: false, keepAlive: true }) : undefined;

startWatchdog("change feed test", 120);

let stepNo = 0;
async function step(name, fn) {
  stepNo++;
  try {
    await fn();
    console.log(`ok   ${stepNo} ${name}`);
  } catch (err) {
    console.log(`FAIL ${stepNo} ${name}`);
    throw err;
  }
}

async function advanceClock(seconds) {
  const r = await signedRequest("POST", "/_emulator/clock", { advanceSeconds: seconds }, agent);
  assert.equal(r.status, 200, `POST /_emulator/clock: ${JSON.stringify(r.body)}`);
  return r.body.now;
}

// page reads one page and returns [statusCode, ids, continuationToken].
async function page(it) {
  const r = await it.readNext();
  for (const d of r.result) assert.equal(typeof d._lsn, "number", `document ${d.id} has _lsn`);
  return [r.statusCode, r.result.map((d) => d.id), r.continuationToken];
}

async function main() {
  const client = new CosmosClient({ endpoint, key, ...(agent ? { agent } : {}) });
  const dbId = `js-cf-${randomUUID()}`;
  const { database } = await client.databases.create({ id: dbId });
  try {
    const c = (await database.containers.create({ id: "cf", partitionKey: { paths: ["/pk"] } })).container;
    const other = (await database.containers.create({ id: "other", partitionKey: { paths: ["/pk"] } })).container;
    for (const [id, pk] of [["a", "p1"], ["b", "p2"], ["c", "p1"]]) await c.items.create({ id, pk });
    await c.items.upsert({ id: "a", pk: "p1", v: 2 });
    await c.item("b", "p2").delete();

    let token;
    await step("Beginning, whole container, pages of 1, then 304", async () => {
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 1 });
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["c"]]);
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["a"]]);
      const [status, ids, t] = await page(it);
      assert.deepEqual([status, ids], [StatusCodes.NotModified, []]);
      assert.ok(it.hasMoreResults);
      token = t;
    });

    await step("Continuation: caught up, then only the new change", async () => {
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) });
      assert.deepEqual((await page(it)).slice(0, 2), [304, []]);
      await c.items.create({ id: "d", pk: "p2" });
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["d"]]);
      const again = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) });
      assert.deepEqual((await page(again)).slice(0, 2), [200, ["d"]]);
    });

    await step("Now: nothing until the next write", async () => {
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
      assert.deepEqual((await page(it)).slice(0, 2), [304, []]);
      await c.items.upsert({ id: "c", pk: "p1", v: 2 });
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["c"]]);
    });

    await step("Time: what changed at or after it", async () => {
      const now = await advanceClock(30);
      await c.items.create({ id: "e", pk: "p1" });
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date(now * 1000)) });
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["e"]]);
      const later = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date((now + 60) * 1000)) });
      assert.deepEqual((await page(later)).slice(0, 2), [304, []]);
    });

    await step("getFeedRanges: one range; Beginning of that range", async () => {
      const ranges = await c.getFeedRanges();
      assert.equal(ranges.length, 1);
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(ranges[0]) });
      assert.deepEqual((await page(it)).slice(0, 2), [200, ["a", "d", "c", "e"]]);
    });

    await step("Beginning of one partition key", async () => {
      const it = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p1") });
      const [status, ids, t] = await page(it);
      assert.deepEqual([status, ids], [200, ["a", "c", "e"]]);
      const next = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(t) });
      assert.deepEqual((await page(next)).slice(0, 2), [304, []]);
    });

    await step("hierarchical key prefix (the SDK sends the prefix's EPK range)", async () => {
      const h = (await database.containers.create({ id: "h", partitionKey: { paths: ["/a", "/b"], kind: "MultiHash", version: 2 } })).container;
      for (const [id, a, b] of [["1", "tenant1", "u1"], ["2", "tenant2", "u1"], ["3", "tenant1", "u2"]]) await h.items.create({ id, a, b });
      const it = h.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(["tenant1"]) });
      const [status, ids, t] = await page(it);
      assert.deepEqual([status, ids], [200, ["1", "3"]]);
      await h.items.create({ id: "4", a: "tenant2", b: "u9" });
      await h.items.create({ id: "5", a: "tenant1", b: "u9" });
      const next = h.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(t) });
      assert.deepEqual((await page(next)).slice(0, 2), [200, ["5"]]);
      const full = h.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(["tenant2", "u1"]) });
      assert.deepEqual((await page(full)).slice(0, 2), [200, ["2"]]);
    });

    await step("another container's continuation is refused", async () => {
      const it = other.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) });
      await assert.rejects(() => it.readNext());
    });

    await step("legacy readChangeFeed from the beginning, per partition key", async () => {
      const it = c.items.readChangeFeed("p2", { startFromBeginning: true });
      const r = await it.fetchNext();
      assert.deepEqual(r.result.map((d) => d.id), ["d"]);
      const r2 = await it.fetchNext();
      assert.equal(r2.statusCode, 304);
      assert.deepEqual(r2.result, []);
    });
  } finally {
    await client.database(dbId).delete();
  }
}

main().then(
  () => console.log(`PASS change feed: ${stepNo} steps`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
