// Scenarios added as features land: each returns extra start-up specs or in-process report sections.
import type { RunSpec } from "./bench-lib.ts";

export interface BenchInput {
  bin: string;
  env: Record<string, string>;
  work: string;
}

export async function startupScenarios(
  _input: BenchInput,
): Promise<{ specs: RunSpec[]; cleanup: () => Promise<void> }> {
  return { specs: [], cleanup: async () => {} };
}

export async function inProcessSections(_input: BenchInput): Promise<string[]> {
  return [];
}
