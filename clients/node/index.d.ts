import type { Agent } from "node:https";

/** Options of startEmulator; each falls back to an environment variable, then a default. */
export interface StartOptions {
  /** Path of the cosmos-emulator binary (COSMOS_EMULATOR_BIN; default: cosmos-emulator on PATH). */
  binary?: string;
  /** Run this image with `docker run` instead of the binary (COSMOS_EMULATOR_IMAGE). */
  image?: string;
  /** "http" (default) or "https" (COSMOS_EMULATOR_PROTOCOL). */
  protocol?: "http" | "https";
  /** Master key (default WELL_KNOWN_KEY). */
  key?: string;
  /** Extra command-line flags for the emulator. */
  args?: string[];
  /** Extra environment variables for the binary or the container. */
  env?: Record<string, string>;
  /** How long to wait for /_emulator/health to answer 200 (default 120000). */
  startTimeoutMs?: number;
  /** Called with each line the emulator prints. */
  onOutput?: (line: string) => void;
}

/** A running emulator. */
export interface Emulator {
  /** e.g. http://127.0.0.1:40123/ */
  endpoint: string;
  key: string;
  protocol: "http" | "https";
  /** PEM of the emulator's certificate (https only). */
  ca?: string;
  /** An https.Agent trusting ca (https only); pass it to CosmosClient. */
  agent?: Agent;
  /** AccountEndpoint=...;AccountKey=...; */
  connectionString: string;
  /** Ends the emulator and removes what it made; safe to call more than once. */
  stop(): Promise<void>;
}

/** What the vitest global set-up provides as "cosmosEmulator". */
export interface EmulatorInfo {
  endpoint: string;
  key: string;
  protocol?: "http" | "https";
  ca?: string;
}

/** The well-known master key of the Cosmos DB emulators. */
export const WELL_KNOWN_KEY: string;

/** Starts an emulator and resolves once GET /_emulator/health answers 200. */
export function startEmulator(options?: StartOptions): Promise<Emulator>;

/** Options for `new CosmosClient(...)`: endpoint, key, and for https an agent trusting ca. */
export function clientOptions(info: EmulatorInfo): { endpoint: string; key: string; agent?: Agent };
