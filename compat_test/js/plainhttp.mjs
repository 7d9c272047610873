// What @azure/cosmos reports when it is pointed at the emulator's HTTPS
// port with an http:// endpoint (a common slip: the image serves http, make
// run serves https). It prints one JSON line per call: the error's status
// code, name and message, for compat_test/js_plainhttp_test.go to check.
//
//   COSMOS_ENDPOINT  the http:// URL of a port that serves HTTPS
//   COSMOS_KEY       the emulator's key
import { CosmosClient } from "@azure/cosmos";
import { endpoint, key, startWatchdog } from "./emulator.mjs";

startWatchdog("plain http on the https port", 60);

const client = new CosmosClient({ endpoint, key, connectionPolicy: { enableEndpointDiscovery: false } });
for (const [name, call] of [
  ["getDatabaseAccount", () => client.getDatabaseAccount()],
  ["createDatabase", () => client.databases.create({ id: "plainhttp" })],
]) {
  try {
    await call();
    console.log(JSON.stringify({ call: name, ok: true }));
  } catch (err) {
    console.log(JSON.stringify({ call: name, code: err.code ?? null, name: err.name ?? null, message: String(err.message ?? err) }));
  }
}
