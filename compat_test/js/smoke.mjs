// Smoke test of cosmos-emulator with the official JavaScript SDK
// (@azure/cosmos, pinned in package.json). It drives one database, one
// container and a few items through every point operation, TTL with the
// emulator clock moved through the control endpoint, and queries (single-
// partition, and cross-partition ORDER BY / TOP / COUNT / GROUP BY through
// the SDK's query-plan path), transactional batch and bulk
// (executeBulkOperations), deleteAllItemsForPartitionKey, asserting status
// codes and bodies.
//
//   COSMOS_ENDPOINT  default https://127.0.0.1:8081/
//   COSMOS_KEY       default the well-known emulator key
//
// Over https the emulator's self-signed certificate is trusted for real: it
// is fetched once from /_explorer/emulator.pem (that one fetch skips
// verification, it is how the certificate is obtained) and given to the
// client as the only CA of an https.Agent. Over http no agent is passed: a
// custom agent turns allowInsecureConnection off in the SDK.
//
// Exit status 0 when every step passed, 1 otherwise.
import assert from "node:assert/strict";
import https from "node:https";
import { randomUUID } from "node:crypto";
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, signedRequest, startWatchdog } from "./emulator.mjs";

// A hung request must not hang CI.
startWatchdog("smoke test", 120);

let stepNo = 0;
let passed = 0;
async function step(name, fn) {
  stepNo++;
  const label = `${String(stepNo).padStart(2)} ${name}`;
  try {
    const detail = await fn();
    passed++;
    console.log(`ok   ${label}${detail ? ` (${detail})` : ""}`);
  } catch (err) {
    console.log(`FAIL ${label}`);
    throw err;
  }
}

function fetchPem(base) {
  const url = new URL("_explorer/emulator.pem", base);
  return new Promise((resolve, reject) => {
    const req = https.get(url, { rejectUnauthorized: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => {
        if (res.statusCode !== 200 || !body.includes("BEGIN CERTIFICATE")) {
          reject(new Error(`GET ${url}: HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
        } else {
          resolve(body);
        }
      });
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on("error", reject);
  });
}

/** Runs fn, which must throw an ErrorResponse with the given HTTP code. */
async function expectError(code, fn) {
  let caught;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught, `expected an error with code ${code}, but the call succeeded`);
  assert.equal(caught.code, code, `expected error code ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

let controlAgent;

async function advanceClock(seconds) {
  const before = await signedRequest("GET", "/_emulator/clock", undefined, controlAgent);
  assert.equal(before.status, 200, `GET /_emulator/clock: ${JSON.stringify(before.body)}`);
  const r = await signedRequest("POST", "/_emulator/clock", { advanceSeconds: seconds }, controlAgent);
  assert.equal(r.status, 200, `POST /_emulator/clock: ${JSON.stringify(r.body)}`);
  assert.ok(r.body.now >= before.body.now + seconds, "emulator time moved forward");
}

async function main() {
  console.log(`@azure/cosmos smoke test against ${endpoint}`);
  const options = { endpoint, key };
  if (new URL(endpoint).protocol === "https:") {
    const pem = await fetchPem(endpoint);
    options.agent = new https.Agent({ ca: pem, keepAlive: true });
    controlAgent = options.agent;
    console.log("     trusting the emulator certificate from /_explorer/emulator.pem");
  }
  const client = new CosmosClient(options);

  const dbId = `js-smoke-${randomUUID()}`;
  const containerId = "items";
  let database;
  let container;
  let dbCreated = false;
  try {
    await step("create database", async () => {
      const r = await client.databases.create({ id: dbId });
      assert.equal(r.statusCode, 201);
      assert.equal(r.resource.id, dbId);
      database = r.database;
      dbCreated = true;
      return dbId;
    });

    await step("create container with partition key /pk", async () => {
      const r = await database.containers.create({
        id: containerId,
        partitionKey: { paths: ["/pk"] },
      });
      assert.equal(r.statusCode, 201);
      assert.equal(r.resource.id, containerId);
      assert.deepEqual(r.resource.partitionKey.paths, ["/pk"]);
      container = r.container;
    });

    const pk = "p1";
    const doc = { id: "item1", pk, n: 1, name: "first", tags: ["a", "b"] };
    let etag1;
    await step("create item", async () => {
      const r = await container.items.create(doc);
      assert.equal(r.statusCode, 201);
      assert.equal(r.resource.id, doc.id);
      assert.equal(r.resource.n, 1);
      assert.deepEqual(r.resource.tags, ["a", "b"]);
      for (const p of ["_rid", "_self", "_etag", "_ts"]) {
        assert.ok(r.resource[p] !== undefined, `system property ${p} missing`);
      }
      assert.equal(r.etag, r.resource._etag, "etag header must equal the body's _etag");
      etag1 = r.etag;
      return `etag ${etag1}`;
    });

    await step("read item", async () => {
      const r = await container.item(doc.id, pk).read();
      assert.equal(r.statusCode, 200);
      assert.equal(r.resource.id, doc.id);
      assert.equal(r.resource.name, "first");
      assert.equal(r.resource._etag, etag1);
    });

    await step("upsert existing item -> 200", async () => {
      const r = await container.items.upsert({ ...doc, n: 2, name: "upserted" });
      assert.equal(r.statusCode, 200);
      assert.equal(r.resource.n, 2);
      assert.equal(r.resource.name, "upserted");
      assert.notEqual(r.etag, etag1, "upsert must change the etag");
    });

    await step("upsert new item -> 201", async () => {
      const r = await container.items.upsert({ id: "item2", pk, n: 10 });
      assert.equal(r.statusCode, 201);
      assert.equal(r.resource.id, "item2");
    });

    let staleEtag;
    let replacedEtag;
    await step("replace item", async () => {
      const before = await container.item(doc.id, pk).read();
      staleEtag = before.etag;
      const r = await container.item(doc.id, pk).replace({ id: doc.id, pk, n: 3, name: "replaced" });
      assert.equal(r.statusCode, 200);
      assert.equal(r.resource.n, 3);
      assert.equal(r.resource.name, "replaced");
      assert.equal(r.resource.tags, undefined, "replace must drop properties not in the new body");
      assert.notEqual(r.etag, staleEtag);
      replacedEtag = r.etag;
    });

    await step("patch item (set + incr)", async () => {
      const r = await container.item(doc.id, pk).patch([
        { op: "set", path: "/name", value: "patched" },
        { op: "incr", path: "/n", value: 5 },
      ]);
      assert.equal(r.statusCode, 200);
      assert.equal(r.resource.name, "patched");
      assert.equal(r.resource.n, 8);
      assert.notEqual(r.etag, replacedEtag);
      const again = await container.item(doc.id, pk).read();
      assert.equal(again.resource.n, 8);
      assert.equal(again.resource.name, "patched");
    });

    await step("read missing item -> 404 without throwing", async () => {
      const r = await container.item("does-not-exist", pk).read();
      assert.equal(r.statusCode, 404);
      assert.equal(r.resource, undefined);
    });

    await step("replace with a stale etag -> 412", async () => {
      await expectError(412, () =>
        container
          .item(doc.id, pk)
          .replace({ id: doc.id, pk, n: 99 }, { accessCondition: { type: "IfMatch", condition: staleEtag } }),
      );
      const r = await container.item(doc.id, pk).read();
      assert.equal(r.resource.n, 8, "a failed conditional replace must not write");
    });

    await step("delete item -> 204", async () => {
      const r = await container.item(doc.id, pk).delete();
      assert.equal(r.statusCode, 204);
      const gone = await container.item(doc.id, pk).read();
      assert.equal(gone.statusCode, 404);
    });

    // Time to live: defaultTtl on the container, ttl on items, and the
    // emulator clock moved forward through the signed control endpoint
    // instead of sleeping.
    await step("TTL: container defaultTtl 60, item ttl -1 and 10, invalid ttl 0 -> 400", async () => {
      const r = await database.containers.create({ id: `${containerId}-ttl`, partitionKey: { paths: ["/pk"] }, defaultTtl: 60 });
      assert.equal(r.statusCode, 201);
      assert.equal(r.resource.defaultTtl, 60);
      const ttlC = r.container;
      await ttlC.items.create({ id: "inherits", pk: "t" });
      await ttlC.items.create({ id: "never", pk: "t", ttl: -1 });
      await ttlC.items.create({ id: "short", pk: "t", ttl: 10 });
      await expectError(400, () => ttlC.items.create({ id: "zero", pk: "t", ttl: 0 }));
      await advanceClock(11);
      assert.equal((await ttlC.item("short", "t").read()).statusCode, 404, "ttl 10 item must be gone 11 s later");
      assert.equal((await ttlC.item("inherits", "t").read()).statusCode, 200);
      await advanceClock(50);
      assert.equal((await ttlC.item("inherits", "t").read()).statusCode, 404, "defaultTtl 60 item must be gone 61 s later");
      const never = await ttlC.item("never", "t").read();
      assert.equal(never.statusCode, 200);
      assert.equal(never.resource.ttl, -1, "the ttl property stays as written");
      await ttlC.delete();
    });

    // Queries: a single-partition filter, and cross-partition ORDER BY,
    // aggregate and GROUP BY, which the gateway refuses with 400/1004 and
    // a query plan; the SDK then runs them through its plan path.
    await step("queries: filter, cross-partition ORDER BY, VALUE COUNT, GROUP BY", async () => {
      const qc = (await database.containers.create({ id: `${containerId}-q`, partitionKey: { paths: ["/pk"] } })).container;
      for (let i = 0; i < 9; i++) {
        await qc.items.create({ id: `q${i}`, pk: `p${i % 3}`, n: 9 - i, team: ["red", "blue"][i % 2] });
      }
      const single = await qc.items
        .query({ query: "SELECT VALUE c.id FROM c WHERE c.n > @min", parameters: [{ name: "@min", value: 7 }] }, { partitionKey: "p0" })
        .fetchAll();
      assert.deepEqual(single.resources, ["q0"]);
      const ordered = await qc.items.query("SELECT VALUE c.n FROM c ORDER BY c.n").fetchAll();
      assert.deepEqual(ordered.resources, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const top = await qc.items.query("SELECT TOP 2 c.id FROM c ORDER BY c.n DESC").fetchAll();
      assert.deepEqual(top.resources.map((r) => r.id), ["q0", "q1"]);
      const count = await qc.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
      assert.deepEqual(count.resources, [9]);
      const avg = await qc.items.query("SELECT VALUE AVG(c.n) FROM c").fetchAll();
      assert.deepEqual(avg.resources, [5]);
      const min = await qc.items.query("SELECT VALUE MIN(c.n) FROM c WHERE c.team = 'blue'").fetchAll();
      assert.deepEqual(min.resources, [2]);
      const page = await qc.items.query("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 2 LIMIT 3").fetchAll();
      assert.deepEqual(page.resources, [3, 4, 5]);
      const distinct = await qc.items.query("SELECT DISTINCT VALUE c.team FROM c").fetchAll();
      assert.deepEqual([...distinct.resources].sort(), ["blue", "red"]);
      const paged = qc.items.query("SELECT c.id, c.n FROM c ORDER BY c.n DESC", { maxItemCount: 2 });
      const seen = [];
      while (paged.hasMoreResults()) {
        const { resources } = await paged.fetchNext();
        seen.push(...resources.map((r) => r.n));
      }
      assert.deepEqual(seen, [9, 8, 7, 6, 5, 4, 3, 2, 1]);
      const groups = await qc.items.query("SELECT c.team, COUNT(1) AS n FROM c GROUP BY c.team").fetchAll();
      const byTeam = Object.fromEntries(groups.resources.map((g) => [g.team, g.n]));
      assert.deepEqual(byTeam, { red: 5, blue: 4 });
      const stats = await qc.items.query("SELECT c.team, AVG(c.n) AS avg, MAX(c.n) AS max FROM c GROUP BY c.team").fetchAll();
      const byTeamStats = Object.fromEntries(stats.resources.map((g) => [g.team, [g.avg, g.max]]));
      assert.deepEqual(byTeamStats, { red: [5, 9], blue: [5, 8] });
      const nonValue = await qc.items.query("SELECT COUNT(1) AS n, SUM(c.n) AS total FROM c").fetchAll();
      assert.deepEqual(nonValue.resources, [{ n: 9, total: 45 }]);
      // the count of distinct values, through a FROM subquery
      const dcount = await qc.items.query("SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.team FROM c)").fetchAll();
      assert.deepEqual(dcount.resources, [2]);
      const joined = await qc.items
        .query("SELECT VALUE c.id FROM c JOIN (SELECT VALUE c.n * 10) m WHERE m > 80")
        .fetchAll();
      assert.deepEqual(joined.resources, ["q0"]);
      const all = await qc.items.readAll().fetchAll();
      assert.equal(all.resources.length, 9);
      await qc.delete();
    });

    await step("hierarchical partition key: a query with a key prefix", async () => {
      const hc = (await database.containers.create({ id: `${containerId}-h`, partitionKey: { paths: ["/a", "/b"], kind: "MultiHash", version: 2 } })).container;
      for (const [a, b] of [["x", "1"], ["x", "2"], ["xy", "1"], ["y", "1"]]) await hc.items.create({ id: a + b, a, b });
      const r = await hc.items.query("SELECT VALUE c.id FROM c ORDER BY c.id", { partitionKey: ["x"] }).fetchAll();
      assert.deepEqual(r.resources, ["x1", "x2"]);
      await hc.delete();
    });

    await step("transactional batch: in order, one commit -> 200", async () => {
      const r = await container.items.batch([
        { operationType: "Create", resourceBody: { id: "b1", pk: "batch", n: 1 } },
        { operationType: "Read", id: "b1" },
        { operationType: "Patch", id: "b1", resourceBody: { operations: [{ op: "incr", path: "/n", value: 5 }] } },
        { operationType: "Upsert", resourceBody: { id: "b2", pk: "batch" } },
        { operationType: "Create", resourceBody: { id: "b3", pk: "batch" } },
        { operationType: "Delete", id: "b3" },
      ], "batch");
      assert.equal(r.code, 200);
      assert.deepEqual(r.result.map((o) => o.statusCode), [201, 200, 200, 201, 201, 204]);
      assert.equal(r.result[1].resourceBody.n, 1);
      assert.equal(r.result[2].resourceBody.n, 6);
      assert.ok(r.result.every((o) => o.requestCharge > 0));
      const { resource } = await container.item("b1", "batch").read();
      assert.equal(resource.n, 6);
      assert.equal(resource._etag, r.result[2].eTag);
    });

    await step("transactional batch: a conflict -> 207, 424 for the others, nothing written", async () => {
      const r = await container.items.batch([
        { operationType: "Create", resourceBody: { id: "b4", pk: "batch" } },
        { operationType: "Replace", id: "b1", resourceBody: { id: "b1", pk: "batch", n: 100 } },
        { operationType: "Create", resourceBody: { id: "b2", pk: "batch" } },
      ], "batch");
      assert.equal(r.code, 207);
      assert.deepEqual(r.result.map((o) => o.statusCode), [424, 424, 409]);
      assert.equal((await container.item("b4", "batch").read()).statusCode, 404);
      const { resource } = await container.item("b1", "batch").read();
      assert.equal(resource.n, 6);
    });

    await step("bulk: executeBulkOperations, each operation on its own", async () => {
      const ops = [];
      for (let i = 0; i < 500; i++) {
        ops.push({ operationType: "Create", partitionKey: `bulk${i % 7}`, resourceBody: { id: `bulk${i}`, pk: `bulk${i % 7}`, i } });
      }
      ops.push({ operationType: "Create", partitionKey: "bulk3", resourceBody: { id: "bulk3", pk: "bulk3" } }); // conflict
      ops.push({ operationType: "Read", id: "bulk10", partitionKey: "bulk3" });
      ops.push({ operationType: "Delete", id: "missing", partitionKey: "bulk1" });
      const res = await container.items.executeBulkOperations(ops);
      assert.equal(res.length, ops.length);
      for (let i = 0; i < 500; i++) {
        assert.equal(res[i].response?.statusCode, 201, `op ${i}: ${res[i].error?.message}`);
      }
      assert.equal(res[500].error?.code, 409);
      assert.equal(res[501].response?.statusCode, 200);
      assert.equal(res[501].response.resourceBody.i, 10);
      assert.equal(res[502].error?.code, 404);
      const { resources } = await container.items
        .query("SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.id, 'bulk')")
        .fetchAll();
      assert.deepEqual(resources, [500]);
      return `${ops.length} operations`;
    });

    await step("deleteAllItemsForPartitionKey: the partition empties in the background", async () => {
      const r = await container.deleteAllItemsForPartitionKey("bulk3");
      assert.equal(r.statusCode, 200);
      const count = async (pk) => (await container.items
        .query("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk }).fetchAll()).resources[0];
      const deadline = Date.now() + 60_000; // a liveness bound, not a speed expectation
      while ((await count("bulk3")) !== 0) {
        assert.ok(Date.now() < deadline, "partition bulk3 did not empty");
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(await count("bulk4"), 71);
    });

    await step("read container", async () => {
      const r = await container.read();
      assert.equal(r.statusCode, 200);
      assert.equal(r.resource.id, containerId);
      assert.deepEqual(r.resource.partitionKey.paths, ["/pk"]);
    });

    await step("delete container -> 204", async () => {
      const r = await container.delete();
      assert.equal(r.statusCode, 204);
      await expectError(404, () => container.read());
    });

    await step("delete database -> 204", async () => {
      const r = await database.delete();
      assert.equal(r.statusCode, 204);
      dbCreated = false;
      await expectError(404, () => database.read());
    });
  } finally {
    if (dbCreated) {
      await database.delete().catch(() => {});
    }
    client.dispose();
    options.agent?.destroy();
  }
  console.log(`js-smoke: ${passed} passed, 0 failed`);
}

main().catch((err) => {
  console.error(err?.stack || String(err));
  if (err?.code !== undefined) console.error(`code: ${err.code}`);
  if (err?.body !== undefined) console.error(`body: ${JSON.stringify(err.body)}`);
  if (err?.headers !== undefined) console.error(`headers: ${JSON.stringify(err.headers)}`);
  console.log(`js-smoke: ${passed} passed, 1 failed`);
  process.exitCode = 1;
});
