// What @azure/cosmos does with injected faults (rules set through
// /_emulator/faults): a 429 within its retry budget is retried and the read
// succeeds (x-ms-throttle-retry-count says how often); more 429s than the
// budget reach the caller as 429/3200; a 410/1002 on the change feed's
// range makes the SDK re-read the ranges and retry. Each scenario prints
// one line; the Go test (TestJSFaults) compares them and the wire.
import { ChangeFeedStartFrom, CosmosClient } from "@azure/cosmos";
import { endpoint, key, mark, requireDatabase, signedRequest, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("faults", 90);

async function rule(name, body) {
  const r = await signedRequest("PUT", `_emulator/faults/${name}`, body);
  if (r.status !== 200 && r.status !== 201) throw new Error(`PUT rule ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}
async function hits(name) {
  const r = await signedRequest("GET", "_emulator/faults");
  return r.body.rules.find((x) => x.name === name)?.hits ?? 0;
}

const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
await container.items.create({ id: "a", pk: "p" });

// (1) two 429s: retried, the read succeeds
await mark("retried");
await rule("two-429", { match: { operation: "Read", container: "c", id: "a" }, response: { status: 429, substatus: 3200, retryAfterMs: 10 }, count: 2 });
const r1 = await container.item("a", "p").read();
console.log(`retried status=${r1.statusCode} retries=${r1.headers["x-ms-throttle-retry-count"]} hits=${await hits("two-429")}`);

// (2) more 429s than the client's budget (3 retries here): the caller sees 429/3200
await mark("surfaced");
const tight = new CosmosClient({ endpoint, key, connectionPolicy: { retryOptions: { maxRetryAttemptCount: 3, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 30 } } });
await rule("many-429", { match: { operation: "Read", container: "c", id: "a" }, response: { status: 429, substatus: 3200, retryAfterMs: 5 }, count: 50 });
try {
  await tight.database(dbId).container("c").item("a", "p").read();
  console.log("surfaced: no error");
} catch (e) {
  console.log(`surfaced code=${e.code} substatus=${e.substatus} hits=${await hits("many-429")}`);
}
await signedRequest("DELETE", "_emulator/faults/many-429");

// (3) 410/1002 on the change feed's range: the SDK re-reads the ranges and retries
await mark("gone");
await rule("gone-once", { match: { operation: "ChangeFeed", container: "c", rangeId: "0" }, response: { status: 410, substatus: 1002 }, count: 1 });
const it = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
let ids = [];
for (let i = 0; i < 5 && ids.length === 0; i++) {
  const page = await it.readNext();
  ids = ids.concat(page.result.map((d) => d.id));
}
console.log(`gone ids=${ids.join(",")} hits=${await hits("gone-once")}`);

// (4) 503 on a read: retried once (the SDK's timeout-failover policy allows
// one 503 retry), so one injected 503 is absorbed and two reach the caller;
// 503 on a create (a single-write account) reaches the caller at once and
// the item is not written
await mark("unavailable");
await rule("read-503", { match: { operation: "Read", container: "c", id: "a" }, response: { status: 503 }, count: 1 });
const r4 = await container.item("a", "p").read();
console.log(`503 read-once status=${r4.statusCode} hits=${await hits("read-503")}`);
await rule("read-503", { match: { operation: "Read", container: "c", id: "a" }, response: { status: 503 }, count: 5 });
try {
  await container.item("a", "p").read();
  console.log("503 read-many: no error");
} catch (e) {
  console.log(`503 read-many code=${e.code} hits=${await hits("read-503")}`);
}
await signedRequest("DELETE", "_emulator/faults/read-503");
await rule("create-503", { match: { operation: "Create", container: "c" }, response: { status: 503 }, count: 1 });
try {
  await container.items.create({ id: "w503", pk: "p" });
  console.log("503 create: no error");
} catch (e) {
  const after = await container.item("w503", "p").read();
  console.log(`503 create code=${e.code} hits=${await hits("create-503")} stored=${after.statusCode !== 404}`);
}

// (5) a delay past the client's requestTimeout: a read times out twice and
// is retried until it succeeds; a create times out once and reaches the
// caller as a TimeoutError, and since the client went away during the
// delay the emulator never ran it
await mark("timeout");
const impatient = new CosmosClient({ endpoint, key, connectionPolicy: { requestTimeout: 300 } });
const ic = impatient.database(dbId).container("c");
await rule("slow-read", { match: { operation: "Read", container: "c", id: "a" }, response: { delayMs: 3000 }, count: 2 });
const t0 = Date.now();
const r5 = await ic.item("a", "p").read();
console.log(`timeout read status=${r5.statusCode} hits=${await hits("slow-read")} slow=${Date.now() - t0 >= 600}`);
await rule("slow-create", { match: { operation: "Create", container: "c" }, response: { delayMs: 3000 }, count: 1 });
try {
  await ic.items.create({ id: "slow", pk: "p" });
  console.log("timeout create: no error");
} catch (e) {
  await new Promise((res) => setTimeout(res, 3500)); // past the delay: had it run, it would be stored now
  const after = await container.item("slow", "p").read();
  console.log(`timeout create code=${e.code} hits=${await hits("slow-create")} stored=${after.statusCode !== 404}`);
}

// (6) probability with a seed is reproducible: the same rule, set twice,
// throttles the same reads of a client that does not retry
await mark("seeded");
const noRetry = new CosmosClient({ endpoint, key, connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } });
const nc = noRetry.database(dbId).container("c");
async function pattern() {
  await rule("coin", { match: { operation: "Read", container: "c", id: "a" }, response: { status: 429, substatus: 3200, retryAfterMs: 1 }, probability: 0.5, seed: 7 });
  let s = "";
  for (let i = 0; i < 16; i++) {
    try {
      await nc.item("a", "p").read();
      s += ".";
    } catch (e) {
      s += e.code === 429 ? "T" : "?";
    }
  }
  return s;
}
const p1 = await pattern();
const h1 = await hits("coin");
const p2 = await pattern();
console.log(`seeded pattern=${p1} same=${p1 === p2} hits=${h1} throttled=${[...p1].filter((c) => c === "T").length}`);
