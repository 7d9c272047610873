// cosmos-emulator-node: starts cosmos-emulator for a test run and hands back
// what a client needs (endpoint, key, and for https the CA and an agent that
// trusts it). Node 20 built-ins only, no build step.
//
// Two ways to run the emulator:
//   - the binary (default): `cosmos-emulator --ephemeral` on a free port of
//     127.0.0.1, its PostgreSQL in a temporary directory removed at stop;
//   - an image (option `image`): `docker run` with the port published on
//     127.0.0.1 only.
import { spawn, execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileP = promisify(execFile);

/** The well-known master key of the Cosmos DB emulators (the default key). */
export const WELL_KNOWN_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

// Where the image writes its certificate (COSMOS_EMULATOR_CERT_EXPORT in the
// Dockerfile), read back for https.
const IMAGE_CERT_PATH =
  "/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem";

// How many lines of the emulator's output an error message quotes.
const TAIL_LINES = 40;

/**
 * Starts an emulator and resolves once GET /_emulator/health answers 200.
 * Options (each falls back to an environment variable, then a default):
 *   binary     path of the cosmos-emulator binary
 *              (COSMOS_EMULATOR_BIN; default: cosmos-emulator on PATH)
 *   image      run this image with `docker run` instead of the binary
 *              (COSMOS_EMULATOR_IMAGE; default: none, the binary runs)
 *   protocol   "http" or "https" (COSMOS_EMULATOR_PROTOCOL; default "http")
 *   key        master key (default WELL_KNOWN_KEY)
 *   args       extra command-line flags for the emulator (array)
 *   env        extra environment variables for the binary or container
 *   startTimeoutMs  how long to wait for readiness (default 120000; a first
 *              start runs initdb, a first `docker run` may pull the image)
 *   onOutput   called with each line the emulator prints (default: kept
 *              only to be quoted when the start fails)
 * It resolves to { endpoint, key, protocol, ca, agent, connectionString,
 * stop }; ca and agent are undefined for http. stop() ends the emulator and
 * removes what it made; it may be called more than once.
 * @param {import("./index.d.ts").StartOptions} [options]
 * @returns {Promise<import("./index.d.ts").Emulator>}
 */
export async function startEmulator(options = {}) {
  const protocol = options.protocol ?? process.env.COSMOS_EMULATOR_PROTOCOL ?? "http";
  if (protocol !== "http" && protocol !== "https") {
    throw new Error(`cosmos-emulator-node: protocol must be "http" or "https", got ${JSON.stringify(protocol)}`);
  }
  const opts = {
    protocol,
    key: options.key ?? WELL_KNOWN_KEY,
    args: options.args ?? [],
    env: options.env ?? {},
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    onOutput: options.onOutput,
  };
  // An option beats a variable: a binary named in the options runs even
  // when COSMOS_EMULATOR_IMAGE is set.
  const image = options.image ?? (options.binary ? undefined : process.env.COSMOS_EMULATOR_IMAGE);
  const started = image
    ? await startImage(image, opts)
    : await startBinary(options.binary ?? process.env.COSMOS_EMULATOR_BIN ?? "cosmos-emulator", opts);
  const agent = started.ca ? new https.Agent({ ca: started.ca, keepAlive: true }) : undefined;
  return {
    endpoint: started.endpoint,
    key: opts.key,
    protocol,
    ca: started.ca,
    agent,
    connectionString: `AccountEndpoint=${started.endpoint};AccountKey=${opts.key};`,
    stop: once(async () => {
      agent?.destroy();
      await started.stop();
    }),
  };
}

/**
 * Returns the options for `new CosmosClient(...)` of @azure/cosmos from what
 * startEmulator returned or what the vitest global set-up provided
 * ({ endpoint, key, ca }): endpoint and key, plus an https.Agent trusting ca
 * for https. (For http no agent is set: @azure/cosmos refuses an http
 * endpoint when a custom agent is given.)
 * @param {{endpoint: string, key: string, ca?: string}} info
 */
export function clientOptions(info) {
  const o = { endpoint: info.endpoint, key: info.key };
  if (info.endpoint.startsWith("https:")) {
    o.agent = new https.Agent({ ca: info.ca, keepAlive: true });
  }
  return o;
}

// startBinary runs the binary on 127.0.0.1:0 (the kernel picks a free port;
// the emulator prints the URL it serves on) with its own temporary data
// directory, and without the explorer's and health probes' listeners of
// their own, whose fixed ports would collide between parallel runs.
async function startBinary(binary, opts) {
  const dir = await mkdtemp(join(tmpdir(), "cosmos-emulator-node-"));
  const certFile = join(dir, "emulator.pem");
  const args = [
    "--ephemeral",
    "--data-dir", dir,
    "--addr", "127.0.0.1:0",
    "--protocol", opts.protocol,
    "--key", opts.key,
    "--explorer-port", "0",
    "--health-port", "0",
    ...(opts.protocol === "https" ? ["--cert-export", certFile] : []),
    ...opts.args,
  ];
  const child = spawn(binary, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...opts.env },
  });
  // A test process that exits without calling stop() must not leave the
  // emulator (and its PostgreSQL) running.
  const killOnExit = () => child.kill("SIGKILL");
  process.on("exit", killOnExit);
  let spawned = true;
  const exited = new Promise((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
    child.once("error", () => {
      spawned = false;
      resolve({ code: null, signal: null });
    });
  });
  const output = lines(opts.onOutput);
  let readyURL;
  const ready = new Promise((resolve, reject) => {
    child.once("error", (err) =>
      reject(new Error(`cosmos-emulator-node: cannot run ${binary}: ${err.message} (set the binary option or COSMOS_EMULATOR_BIN)`)),
    );
    output.onLine = (line) => {
      const m = /^cosmos-emulator ready: (\S+)/.exec(line);
      if (m && !readyURL) {
        readyURL = m[1];
        resolve(readyURL);
      }
    };
    exited.then(({ code, signal }) =>
      reject(new Error(`cosmos-emulator-node: ${binary} exited (${signal ?? `status ${code}`}) before it was ready; its last output:\n${output.tail()}`)),
    );
  });
  ready.catch(() => {}); // awaited below; a late rejection (after a timeout) is no news
  child.stdout.on("data", output.push);
  child.stderr.on("data", output.push);

  const stop = async () => {
    process.off("exit", killOnExit);
    if (spawned && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM"); // the emulator stops its PostgreSQL on SIGTERM
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const endpoint = await withTimeout(ready, opts.startTimeoutMs, () =>
      `cosmos-emulator-node: ${binary} was not ready within ${opts.startTimeoutMs} ms; its last output:\n${output.tail()}`);
    const ca = opts.protocol === "https" ? await readFile(certFile, "utf8") : undefined;
    await waitHealthy(endpoint, ca, opts.startTimeoutMs);
    return { endpoint, ca, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

// startImage runs the image detached with its port 8081 published on a
// free port of 127.0.0.1 (the key is no secret), and waits for health.
async function startImage(image, opts) {
  const env = { PROTOCOL: opts.protocol, ...opts.env };
  const runArgs = ["run", "--detach", "--publish", "127.0.0.1::8081"];
  for (const [k, v] of Object.entries(env)) runArgs.push("--env", `${k}=${v}`);
  runArgs.push(image, "--key", opts.key, ...opts.args);
  const id = (await docker(runArgs)).trim();
  const stop = async () => {
    await docker(["rm", "--force", "--volumes", id]).catch(() => {});
  };
  try {
    // "docker port" prints one "address:port" line per binding.
    const port = /:(\d+)\s*$/m.exec(await docker(["port", id, "8081/tcp"]))?.[1];
    if (!port) throw new Error(`cosmos-emulator-node: docker port ${id} named no port for 8081`);
    const endpoint = `${opts.protocol}://127.0.0.1:${port}/`;
    const healthy = waitHealthy(endpoint, undefined, opts.startTimeoutMs, async () => {
      const state = (await docker(["inspect", "--format", "{{.State.Status}}", id])).trim();
      if (state !== "running" && state !== "created") {
        throw new Error(`cosmos-emulator-node: the container of ${image} is ${state}; its logs:\n${await containerLogs(id)}`);
      }
    }, opts.protocol === "https");
    await healthy;
    const ca = opts.protocol === "https" ? await docker(["exec", id, "cat", IMAGE_CERT_PATH]) : undefined;
    return { endpoint, ca, stop };
  } catch (err) {
    if (!/its logs:/.test(err.message)) {
      err.message += `\ncontainer logs:\n${await containerLogs(id)}`;
    }
    await stop();
    throw err;
  }
}

async function docker(args) {
  try {
    const { stdout } = await execFileP("docker", args, { maxBuffer: 16 << 20 });
    return stdout;
  } catch (err) {
    throw new Error(`cosmos-emulator-node: docker ${args[0]}: ${(err.stderr || err.message).trim()}`);
  }
}

async function containerLogs(id) {
  try {
    const { stdout, stderr } = await execFileP("docker", ["logs", "--tail", String(TAIL_LINES), id]);
    return stdout + stderr;
  } catch {
    return "(no logs)";
  }
}

/**
 * Resolves once GET <endpoint>_emulator/health answers 200; between tries
 * it runs check (which may throw to give up early). insecure skips
 * certificate checks, for an image's certificate not yet read.
 */
async function waitHealthy(endpoint, ca, timeoutMs, check, insecure = false) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  for (;;) {
    try {
      const status = await getStatus(new URL("_emulator/health", endpoint), ca, insecure);
      if (status === 200) return;
      last = `status ${status}`;
    } catch (err) {
      last = err.message;
    }
    if (check) await check();
    if (Date.now() > deadline) {
      throw new Error(`cosmos-emulator-node: ${endpoint}_emulator/health did not answer 200 within ${timeoutMs} ms (last: ${last})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function getStatus(url, ca, insecure) {
  const lib = url.protocol === "https:" ? https : http;
  const tls = url.protocol === "https:" ? (insecure ? { rejectUnauthorized: false } : { ca }) : {};
  return new Promise((resolve, reject) => {
    const req = lib.get(url, { ...tls, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
  });
}

// lines splits a process's output into lines, hands each to onOutput and
// onLine, and keeps the last TAIL_LINES for error messages.
function lines(onOutput) {
  const kept = [];
  let partial = "";
  const o = {
    onLine: () => {},
    push: (chunk) => {
      const parts = (partial + chunk.toString()).split(/\r?\n/);
      partial = parts.pop();
      for (const line of parts) {
        kept.push(line);
        if (kept.length > TAIL_LINES) kept.shift();
        onOutput?.(line);
        o.onLine(line);
      }
    },
    tail: () => [...kept, partial].filter(Boolean).join("\n") || "(none)",
  };
  return o;
}

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function once(fn) {
  let p;
  return () => (p ??= fn());
}
