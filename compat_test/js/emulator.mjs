// Shared set-up of the @azure/cosmos scripts in this directory: the
// emulator's endpoint and key from the environment, a watchdog so a hung
// request cannot hang CI, and master-key signed requests to the control
// endpoints (/_emulator/...).
//
//   COSMOS_ENDPOINT  default https://127.0.0.1:8081/
//   COSMOS_KEY       default the well-known emulator key
import https from "node:https";
import http from "node:http";
import { createHmac } from "node:crypto";
import assert from "node:assert/strict";

export const endpoint = process.env.COSMOS_ENDPOINT || "https://127.0.0.1:8081/";
export const key =
  process.env.COSMOS_KEY ||
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

// requireDatabase returns COSMOS_DB for the scripts compat_test drives,
// which need COSMOS_ENDPOINT and COSMOS_DB set (exit status 2 otherwise).
export function requireDatabase() {
  if (!process.env.COSMOS_ENDPOINT || !process.env.COSMOS_DB) {
    console.error("COSMOS_ENDPOINT and COSMOS_DB are required");
    process.exit(2);
  }
  return process.env.COSMOS_DB;
}

// startWatchdog fails the script when it has not finished within seconds.
export function startWatchdog(what, seconds) {
  const watchdog = setTimeout(() => {
    console.error(`FAIL ${what} did not finish within ${seconds} s`);
    process.exit(1);
  }, seconds * 1000);
  watchdog.unref();
}

// signedRequest sends a master-key signed request (reference §2.1): the
// control endpoints use the same signature as every Cosmos request. The
// resource type and link follow the generic path rule (_emulator/clock:
// "_emulator", "_emulator/clock"; _emulator/ttl/sweep: "sweep",
// "_emulator/ttl"). headers are added to (or override) the request's. It
// resolves to { status, body } with the JSON body.
export function signedRequest(method, path, body, agent, headers = {}) {
  const url = new URL(path, endpoint);
  const date = new Date().toUTCString();
  const segs = url.pathname.replace(/^\/+|\/+$/g, "").split("/").map(decodeURIComponent);
  const [type, link] = segs.length % 2 === 1
    ? [segs[segs.length - 1], segs.slice(0, -1).join("/")]
    : [segs[segs.length - 2], segs.join("/")];
  const payload = `${method.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const sig = createHmac("sha256", Buffer.from(key, "base64")).update(payload).digest("base64");
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method,
      agent,
      headers: { "x-ms-date": date, authorization: encodeURIComponent(`type=master&ver=1.0&sig=${sig}`), "content-type": "application/json", ...headers },
    }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, body: data ? JSON.parse(data) : undefined }));
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// rejects awaits p and asserts that it fails with HTTP status (err.code)
// and, when given, a message that includes includes; it returns the error.
export async function rejects(p, status, includes) {
  try {
    await p;
  } catch (err) {
    assert.equal(err.code, status, err.message);
    if (includes) assert.ok(err.message.includes(includes), err.message);
    return err;
  }
  assert.fail("expected a failure");
}

// mark tells a recording proxy in front of the emulator (the Go tests'
// startMarkingProxy) which scenario the following requests belong to.
export function mark(name) {
  return new Promise((resolve, reject) => {
    http.get(new URL(`_mark/${name}`, endpoint), (res) => {
      res.resume();
      res.on("end", resolve);
    }).on("error", reject);
  });
}

// once describes got (a list of keys) against the set want: "once" when
// each key of want appears exactly once and nothing else does, else what
// is duplicated, missing or unexpected.
export function once(got, want) {
  const seen = new Map();
  for (const c of got) seen.set(c, (seen.get(c) ?? 0) + 1);
  const dup = [...seen].filter(([, n]) => n > 1).map(([c]) => c);
  const extra = [...seen.keys()].filter((c) => !want.has(c));
  const missing = [...want].filter((c) => !seen.has(c));
  if (dup.length + extra.length + missing.length === 0) return "once";
  return `dup=${dup.join(",")} missing=${missing.join(",")} extra=${extra.join(",")}`;
}
