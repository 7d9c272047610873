// Throttling through @azure/cosmos against an emulator started with
// --rate-limit: concurrent creates on a 400 RU/s container go past its
// budget; the SDK retries the 429s (x-ms-throttle-retry-count on its
// responses counts them) and every create lands exactly once. A client
// with no throttle retries sees the 429 itself, with sub-status 3200 and a
// retry-after within (0, 1000] ms, and its throttled creates wrote nothing.
// The script prints one line per step (compat_test's TestJSRateLimit
// checks them) and the measured figures on stderr.
//
//   COSMOS_ENDPOINT  http://127.0.0.1:PORT/ (required)
//   COSMOS_KEY       default the well-known emulator key
//   COSMOS_DB        database id to create (required)
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
startWatchdog("ratelimit", 60);

const WRITES = 240, WRITERS = 32;
const client = new CosmosClient({ endpoint, key });
const { database } = await client.databases.create({ id: dbId });
const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] }, throughput: 400 });

// runWriters creates ids prefix0..prefix(n-1) with WRITERS at once through
// c and returns the responses' throttle retry counts and the errors.
async function runWriters(c, prefix, n) {
  let next = 0, retries = 0, retried = 0;
  const errors = [];
  const writer = async () => {
    while (next < n) {
      const i = next++;
      try {
        const r = await c.items.create({ id: `${prefix}${i}`, pk: `p${i % 7}` });
        const k = Number(r.headers["x-ms-throttle-retry-count"] ?? 0);
        retries += k;
        if (k > 0) retried++;
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return { retries, retried, errors };
}

// spread is "min a median b max c" of numbers.
const spread = (v) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? `min ${s[0]} median ${s[s.length >> 1]} max ${s[s.length - 1]}` : "none";
};

const count = async (prefix) => {
  const { resources } = await container.items
    .query({ query: "SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.id, @p)", parameters: [{ name: "@p", value: prefix }] })
    .fetchAll();
  return resources[0];
};

let t0 = Date.now();
const sdk = await runWriters(container, "w", WRITES);
console.error(`retrying client: ${WRITES} creates by ${WRITERS} writers in ${Date.now() - t0} ms; ${sdk.retried} creates retried, ${sdk.retries} throttle retries in all; errors ${sdk.errors.map((e) => e.code).join(",") || "none"}`);
console.log(`RETRIED errors=${sdk.errors.length} throttled=${sdk.retries > 0} count=${await count("w")}`);

// Wait for the next second, so that the budget is whole again.
await new Promise((r) => setTimeout(r, 1100));
const bare = new CosmosClient({ endpoint, key, connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } });
t0 = Date.now();
const raw = await runWriters(bare.database(dbId).container("c"), "n", WRITES);
const subs = new Set(raw.errors.map((e) => `${e.code}/${e.substatus}`));
const after = raw.errors.map((e) => e.retryAfterInMs ?? e.retryAfterInMilliseconds);
console.error(`client without retries: ${WRITES} creates in ${Date.now() - t0} ms; ${raw.errors.length} answered ${[...subs].join(",")}, retry-after ms ${spread(after)}`);
const sensible = after.every((ms) => ms > 0 && ms <= 1000);
console.log(`BARE throttled=${raw.errors.length > 0} codes=${[...subs].join(",")} retryAfter=${sensible} landed=${(await count("n")) === WRITES - raw.errors.length}`);
