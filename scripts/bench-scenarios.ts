// Scenarios added as features land: extra start-up specs, and in-process report sections.
import { join } from "node:path";
import { startMockLlm } from "../tests/support/mock-llm.ts";
import { setupBootstrapBench } from "./bench-bootstrap.ts";
import type { RunSpec } from "./bench-lib.ts";

export interface BenchInput {
  bin: string;
  env: Record<string, string>;
  work: string;
}

/** Start-up scenarios: `bootstrap show` with 5×8 KiB files and 20 rules; `ask` against a local mock. */
export async function startupScenarios(
  input: BenchInput,
): Promise<{ specs: RunSpec[]; cleanup: () => Promise<void> }> {
  const boot = setupBootstrapBench(join(input.work, "bootstrap"));
  const llm = await startMockLlm({ defaultText: "hi" });
  const specs: RunSpec[] = [
    {
      name: "chatcli bootstrap show (5×8 KiB files, 20 rules)",
      cmd: [input.bin, ...boot.argv],
      env: { ...input.env, ...boot.env, CHATCLI_HOME: join(boot.home, ".chatcli") },
      cwd: boot.cwd,
    },
    {
      name: 'chatcli ask "say hi" (OpenAI API, local mock)',
      cmd: [input.bin, "ask", "say hi"],
      env: { ...input.env, ...llm.env("openai") },
      cwd: input.work,
    },
    {
      name: 'chatcli ask "say hi" (Anthropic API, local mock)',
      cmd: [input.bin, "ask", "say hi"],
      env: { ...input.env, ...llm.env("anthropic") },
      cwd: input.work,
    },
  ];
  return { specs, cleanup: () => llm.close() };
}

/** In-process sections (memory, compaction, prompt sizes) — filled in as those features land. */
export async function inProcessSections(_input: BenchInput): Promise<string[]> {
  return [];
}
