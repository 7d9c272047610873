// Benchmark of the emulator through the official JavaScript SDK
// (@azure/cosmos), driven by cmd/cosmos-bench (-scenario js). One Node
// process, one keep-alive https.Agent shared by the SDK and the floor
// requests.
//
// Phases, each announced on stdout as "PHASE <name> BEGIN" / "PHASE <name>
// END"; after each such line the script waits for a line on stdin (any
// text) before going on, so the driver can sample the CPU time of the
// emulator and PostgreSQL exactly around the phase:
//
//   floor   BENCH_N point reads interleaved one for one with GET
//           /_emulator/health on the same agent (sequential): the read's
//           p50 against the HTTPS floor measured in the same moments;
//   mix-<c> for each concurrency c of BENCH_CONCURRENCY, BENCH_N operations
//           drawn create 25 / read 40 / replace 20 / query 15 % (a
//           single-partition query by id) from c concurrent workers;
//   replay-mix-<c>-a, replay-mix-<c>-b
//           with BENCH_REPLAY_ENDPOINT, BENCH_N/2 operations of the same
//           mix at the same concurrency through the replaying proxy
//           (every request answered from memory once the proxy has seen
//           one of its kind) right before and right after mix-<c>, so
//           that the floor and the emulator share the machine's moments;
//           reported together as replay_mixes.
//
// Before the phases it creates database COSMOS_DB with container "items"
// (partition key /pk) and seeds BENCH_SEED items (reads, replaces and
// queries pick among them), then warms up with BENCH_WARMUP mixed
// operations. At the end it prints one line "RESULT <json>" and deletes
// the database.
//
//   COSMOS_ENDPOINT, COSMOS_KEY  the emulator (emulator.mjs)
//   COSMOS_DB                    database to create (required)
//   BENCH_N                      measured operations per phase (2000)
//   BENCH_WARMUP                 unmeasured mixed operations (300)
//   BENCH_SEED                   items created before the phases (500)
//   BENCH_SIZE                   bytes of each item's JSON (1024)
//   BENCH_CONCURRENCY            comma-separated concurrencies (1,16)
//   BENCH_REPLAY_ENDPOINT        a proxy of the emulator that answers a
//                                repeated item read or health request from
//                                memory (cmd/cosmos-bench replay.go): after
//                                the floor phase, BENCH_N reads and health
//                                requests through it, interleaved, then
//                                BENCH_N/4 creates and replaces, measure
//                                the SDK's own floor (phase "replay", around
//                                the interleaved reads only, so that the
//                                driver can take the proxy's CPU time per
//                                request: the CPU floor of a Go HTTPS server)
//
// Without a driver (stdin a terminal or closed) it does not wait. Exit
// status 0 when every operation succeeded.
import https from "node:https";
import http from "node:http";
import { createInterface } from "node:readline";
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, requireDatabase, startWatchdog } from "./emulator.mjs";

const dbId = requireDatabase();
const N = Number(process.env.BENCH_N || 2000);
const WARMUP = Number(process.env.BENCH_WARMUP || 300);
const SEED = Number(process.env.BENCH_SEED || 500);
const SIZE = Number(process.env.BENCH_SIZE || 1024);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY || "1,16").split(",").map(Number);
startWatchdog("benchmark", Number(process.env.BENCH_TIMEOUT || 900));

// The driver's go-ahead lines, one per phase boundary.
const lines = [];
let waiting = null;
let stdinOpen = !process.stdin.isTTY;
if (stdinOpen) {
  const rl = createInterface({ input: process.stdin });
  rl.on("line", (l) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w();
    } else {
      lines.push(l);
    }
  });
  rl.on("close", () => {
    stdinOpen = false;
    if (waiting) waiting();
  });
}
async function boundary(name, what) {
  console.log(`PHASE ${name} ${what}`);
  if (!stdinOpen) return;
  if (lines.length) {
    lines.shift();
    return;
  }
  await new Promise((resolve) => (waiting = resolve));
}

const isHTTPS = new URL(endpoint).protocol === "https:";
// Loopback, self-signed certificate: the benchmark measures speed, the
// smoke test checks the certificate.
function newAgent() {
  return isHTTPS
    ? new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 64 })
    : new http.Agent({ keepAlive: true, maxSockets: 64 });
}
function newClient(ep, via) {
  return new CosmosClient(
    isHTTPS ? { endpoint: ep, key, agent: via, connectionPolicy: { enableBackgroundEndpointRefreshing: false } } : { endpoint: ep, key },
  );
}
const agent = newAgent();
const client = newClient(endpoint, agent);

function health(base = endpoint, via = agent) {
  const url = new URL("_emulator/health", base);
  return new Promise((resolve, reject) => {
    const req = (isHTTPS ? https : http).get(url, isHTTPS ? { agent: via } : {}, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`health: HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
  });
}

function doc(id, pk, version) {
  const d = { id, pk, version, kind: "bench", payload: "" };
  d.payload = "x".repeat(Math.max(SIZE - JSON.stringify(d).length, 0));
  return d;
}

// A deterministic generator, so runs draw the same operations.
let seed = 42;
function rand() {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
}

const PARTITIONS = 64;
let created = 0; // items item-0 .. item-(created-1) exist
function newItem() {
  const i = created++;
  return doc(`item-${i}`, `pk-${i % PARTITIONS}`, 1);
}
function existing() {
  const i = Math.floor(rand() * Math.min(created, SEED));
  return { id: `item-${i}`, pk: `pk-${i % PARTITIONS}` };
}

function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

async function op(container, kind) {
  switch (kind) {
    case "create": {
      const d = newItem();
      await container.items.create(d);
      return;
    }
    case "read": {
      const { id, pk } = existing();
      const r = await container.item(id, pk).read();
      if (r.statusCode !== 200 || !r.resource) throw new Error(`read ${id}: ${r.statusCode}`);
      return;
    }
    case "replace": {
      const { id, pk } = existing();
      await container.item(id, pk).replace(doc(id, pk, 2));
      return;
    }
    case "query": {
      const { id, pk } = existing();
      const { resources } = await container.items
        .query({ query: "SELECT * FROM c WHERE c.id = @id", parameters: [{ name: "@id", value: id }] }, { partitionKey: pk })
        .fetchAll();
      if (resources.length !== 1) throw new Error(`query ${id}: ${resources.length} results`);
      return;
    }
  }
  throw new Error(`unknown operation ${kind}`);
}

function pick() {
  const r = rand() * 100;
  if (r < 25) return "create";
  if (r < 65) return "read";
  if (r < 85) return "replace";
  return "query";
}

function stats(lat, seconds) {
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(Math.max(Math.ceil((p / 100) * lat.length), 1), lat.length) - 1];
  const sum = lat.reduce((a, b) => a + b, 0);
  return {
    ops: lat.length,
    seconds,
    ops_per_sec: seconds > 0 ? lat.length / seconds : 0,
    mean_ms: lat.length ? sum / lat.length : 0,
    p50_ms: lat.length ? pct(50) : 0,
    p90_ms: lat.length ? pct(90) : 0,
    p99_ms: lat.length ? pct(99) : 0,
    max_ms: lat.length ? lat[lat.length - 1] : 0,
  };
}

// mixRun runs n operations of the mix from concurrency workers and
// returns their latencies by kind and the wall time in seconds.
async function mixRun(container, n, concurrency, lat = { create: [], read: [], replace: [], query: [] }) {
  let left = n;
  const t0 = now();
  async function worker() {
    while (left > 0) {
      left--;
      const kind = pick();
      const s = now();
      await op(container, kind);
      lat[kind].push(now() - s);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { lat, seconds: (now() - t0) / 1000 };
}

// mixStats summarizes latencies by kind over seconds of wall time.
function mixStats(concurrency, lat, seconds) {
  const all = [].concat(lat.create, lat.read, lat.replace, lat.query);
  const out = { concurrency, total: stats(all, seconds) };
  for (const k of Object.keys(lat)) out[k] = stats(lat[k], seconds);
  return out;
}

async function mix(container, n, concurrency, measure) {
  const { lat, seconds } = await mixRun(container, n, concurrency);
  return measure ? mixStats(concurrency, lat, seconds) : null;
}

// replayContainer is the container "items" through the replaying proxy, on
// a client and agent of their own configured as the emulator's (created
// by replayWarm).
let replayContainer = null;
let replayAgent = null;

// replayWarm makes the proxy record an answer for every request the mix
// can send: a read and a replace of every seeded item (their answers are
// kept by path), a create and a query (kept by container); the mix through
// the proxy then costs the emulator nothing.
async function replayWarm() {
  replayAgent = newAgent();
  replayContainer = newClient(REPLAY, replayAgent).database(dbId).container("items");
  for (let i = 0; i < SEED; i++) {
    const id = `item-${i}`;
    const pk = `pk-${i % PARTITIONS}`;
    await replayContainer.item(id, pk).read();
    await replayContainer.item(id, pk).replace(doc(id, pk, 2));
  }
  await mix(replayContainer, 200, 4, false);
}

// replayMix runs the floor around the emulator's mix at concurrency c:
// n/2 operations through the proxy, then run(), then n/2 more, and
// returns the floor's figures over both halves.
async function replayMix(c, run) {
  const half = Math.max(Math.floor(N / 2), 1);
  await boundary(`replay-mix-${c}-a`, "BEGIN");
  const a = await mixRun(replayContainer, half, c);
  await boundary(`replay-mix-${c}-a`, "END");
  const m = await run();
  await boundary(`replay-mix-${c}-b`, "BEGIN");
  const b = await mixRun(replayContainer, N - half, c, a.lat);
  await boundary(`replay-mix-${c}-b`, "END");
  return { emulator: m, floor: mixStats(c, b.lat, a.seconds + b.seconds) };
}

const REPLAY = process.env.BENCH_REPLAY_ENDPOINT || "";

// replayFloor reads the first 50 seeded items and health once through the
// replaying proxy (which records them), then measures N reads of them
// interleaved with N health requests, on a client and agent of its own.
async function replayFloor() {
  const via = newAgent();
  const c = newClient(REPLAY, via).database(dbId).container("items");
  const K = Math.min(50, SEED);
  const seeded = (i) => ({ id: `item-${i}`, pk: `pk-${i % PARTITIONS}` });
  for (let i = 0; i < K; i++) await c.item(seeded(i).id, seeded(i).pk).read();
  for (let i = 0; i < 50; i++) await health(REPLAY, via);
  const t0 = now();
  await boundary("replay", "BEGIN");
  const floor = await interleavedReads(c, (i) => seeded(i % K), () => health(REPLAY, via));
  await boundary("replay", "END");
  const fs = (now() - t0) / 1000;
  // Creates and replaces answered from memory (the proxy records the first
  // of each), N/4 of each.
  const creates = [];
  const replaces = [];
  const M = Math.max(Math.floor(N / 4), 1);
  for (let i = 0; i < M + 20; i++) {
    let s = now();
    await c.items.create(doc(`replay-${i}`, "pk-0", 1));
    if (i >= 20) creates.push(now() - s);
    const { id, pk } = seeded(i % K);
    s = now();
    await c.item(id, pk).replace(doc(id, pk, 3));
    if (i >= 20) replaces.push(now() - s);
  }
  const ws = (now() - t0) / 1000 - fs;
  via.destroy();
  return { ...floor, create: stats(creates, ws), replace: stats(replaces, ws) };
}

// interleavedReads times N point reads of the items pick(i) names, each
// after a health request (healthFn), in turn: the read's latency against
// the floor's in the same moments.
async function interleavedReads(c, pick, healthFn) {
  const reads = [];
  const floors = [];
  const t0 = now();
  for (let i = 0; i < N; i++) {
    let s = now();
    await healthFn();
    floors.push(now() - s);
    const { id, pk } = pick(i);
    s = now();
    const r = await c.item(id, pk).read();
    reads.push(now() - s);
    if (r.statusCode !== 200 || !r.resource) throw new Error(`read ${id}: ${r.statusCode}`);
  }
  const seconds = (now() - t0) / 1000;
  return { health: stats(floors, seconds), read: stats(reads, seconds) };
}

async function main() {
  const { database } = await client.databases.create({ id: dbId });
  try {
    const { container } = await database.containers.create({ id: "items", partitionKey: { paths: ["/pk"] } });
    for (let i = 0; i < SEED; i++) await container.items.create(newItem());
    await mix(container, WARMUP, 4, false);
    for (let i = 0; i < 50; i++) await health();

    const result = { sdk: "@azure/cosmos", node: process.version, n: N, size: SIZE, mixes: [] };
    await boundary("floor", "BEGIN");
    result.floor = await interleavedReads(container, existing, () => health());
    await boundary("floor", "END");
    if (REPLAY) {
      result.replay = await replayFloor();
      await replayWarm();
      result.replay_mixes = [];
    }

    for (const c of CONCURRENCY) {
      const run = async () => {
        await boundary(`mix-${c}`, "BEGIN");
        const m = await mix(container, N, c, true);
        await boundary(`mix-${c}`, "END");
        return m;
      };
      if (REPLAY) {
        const { emulator, floor } = await replayMix(c, run);
        result.mixes.push(emulator);
        result.replay_mixes.push(floor);
      } else {
        result.mixes.push(await run());
      }
    }
    if (replayAgent) replayAgent.destroy();
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    await database.delete();
  }
  agent.destroy();
  process.exit(0);
}

main().catch((err) => {
  console.error(`FAIL ${err && err.stack ? err.stack : err}`);
  process.exit(1);
});
