import type { StartOptions, EmulatorInfo } from "./index.d.ts";

/** Returns a vitest global set-up that starts an emulator with options and provides "cosmosEmulator". */
export function createGlobalSetup(options?: StartOptions): (project?: { provide?: (key: string, value: unknown) => void }) => Promise<() => Promise<void>>;

/** The global set-up with the default options (from the environment). */
declare const setup: ReturnType<typeof createGlobalSetup>;
export default setup;

declare module "vitest" {
  export interface ProvidedContext {
    cosmosEmulator: EmulatorInfo;
  }
}
