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
