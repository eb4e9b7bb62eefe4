import type { SpawnResult } from "../../sandbox/spawn.ts";

export type { SpawnResult } from "../../sandbox/spawn.ts";

/** The combined stdout/stderr text a model sees for a finished command. */
export function formatProcessOutput(
  result: SpawnResult & { network?: string[] },
  timeoutMs: number,
): string {
  const parts: string[] = [];
  if (result.timedOut)
    parts.push(`[timed out after ${Math.round(timeoutMs / 1000)} s; process killed]`);
  if (result.aborted) parts.push("[cancelled; process killed]");
  parts.push(`exit code: ${result.exitCode ?? "none"}`);
  if (result.stdout) parts.push(result.stdout.trimEnd());
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.trimEnd()}`);
  // what the sandbox's proxy let through and refused (--allow-network HOST)
  if (result.network?.length) parts.push(`[network]\n${result.network.join("\n")}`);
  return parts.join("\n");
}
