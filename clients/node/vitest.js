// A vitest global set-up that starts one emulator for the whole run:
//
//   // vitest.config.js
//   export default { test: { globalSetup: ["cosmos-emulator-node/vitest"] } };
//
//   // a test
//   import { inject } from "vitest";
//   import { CosmosClient } from "@azure/cosmos";
//   import { clientOptions } from "cosmos-emulator-node";
//   const client = new CosmosClient(clientOptions(inject("cosmosEmulator")));
//
// The emulator is chosen by the environment variables startEmulator reads
// (COSMOS_EMULATOR_BIN, COSMOS_EMULATOR_IMAGE, COSMOS_EMULATOR_PROTOCOL).
import { startEmulator } from "./index.js";

/**
 * Returns a vitest global set-up function that starts an emulator with
 * options (see startEmulator), provides { endpoint, key, protocol, ca } to
 * the tests under the name "cosmosEmulator" (read it with inject), also sets
 * COSMOS_ENDPOINT and COSMOS_KEY in the environment, and returns the
 * teardown that stops the emulator.
 * @param {import("./index.d.ts").StartOptions} [options]
 */
export function createGlobalSetup(options) {
  return async function setup(project) {
    const emulator = await startEmulator(options);
    const info = { endpoint: emulator.endpoint, key: emulator.key, protocol: emulator.protocol, ca: emulator.ca };
    // vitest 1 and 2 pass a context with provide, vitest 3 and later the
    // TestProject, which has it too.
    project?.provide?.("cosmosEmulator", info);
    process.env.COSMOS_ENDPOINT = emulator.endpoint;
    process.env.COSMOS_KEY = emulator.key;
    return () => emulator.stop();
  };
}

/** The global set-up with the default options (from the environment). */
export default createGlobalSetup();
