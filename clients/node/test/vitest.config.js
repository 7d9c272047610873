import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One emulator for the whole run, started before any test file.
    globalSetup: ["cosmos-emulator-node/vitest"],
    // A first start of the emulator runs initdb; a test's own requests are short.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
