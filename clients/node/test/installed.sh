#!/usr/bin/env bash
# installed.sh: installs cosmos-emulator-node as a user would, from a tarball
# of the package (npm pack: only the files package.json lists), into a fresh
# project, then starts an emulator through it and stops it. Catches a file
# the package needs but does not ship, which the vitest example (a file:
# link to the whole directory) cannot. COSMOS_EMULATOR_BIN names the binary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(cd "$work" && npm pack --silent "$here/..")"
mkdir "$work/project"
cd "$work/project"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent --save-dev "$work/$tarball"
cat > check.mjs <<'JS'
import https from "node:https";
import http from "node:http";
import { startEmulator, clientOptions } from "cosmos-emulator-node";
import globalSetup, { createGlobalSetup } from "cosmos-emulator-node/vitest";
for (const [name, f] of Object.entries({ clientOptions, globalSetup, createGlobalSetup })) {
  if (typeof f !== "function") throw new Error(`cosmos-emulator-node: ${name} is not exported`);
}
// health answers the status of GET /_emulator/health, or rejects.
function health(emu) {
  const url = new URL("_emulator/health", emu.endpoint);
  const get = emu.protocol === "https" ? (cb) => https.get(url, { ca: emu.ca, agent: false }, cb) : (cb) => http.get(url, cb);
  return new Promise((resolve, reject) => get((res) => { res.resume(); resolve(res.statusCode); }).on("error", reject));
}
const emu = await startEmulator();
const status = await health(emu);
if (status !== 200) throw new Error(`health: ${status}`);
await emu.stop();
if (await health(emu).then(() => true, () => false)) throw new Error("the emulator still answers after stop()");
console.log(`installed package: started at ${emu.endpoint}, healthy, stopped`);
JS
node check.mjs
