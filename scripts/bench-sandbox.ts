// The cost of the OS sandbox: starting a sandboxed run_command (bubblewrap) against the same command
// unconfined, in-process, median of interleaved runs. Run alone with `bun scripts/bench-sandbox.ts`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runShell } from "../lib/agent/tools/run-command.ts";
import type { ToolContext } from "../lib/agent/types.ts";
import { Sandbox } from "../lib/sandbox/sandbox.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

export async function sandboxSection(runs = 30): Promise<string[]> {
  const ws = await mkdtemp(join(tmpdir(), "chatcli-bench-sandbox-"));
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: ws };
  const ctx = (sandbox: Sandbox): ToolContext => ({
    workspaceRoot: ws,
    cwd: ws,
    env,
    signal: new AbortController().signal,
    fetch: globalThis.fetch,
    now: () => new Date(),
    sandbox,
  });
  try {
    const none = Sandbox.none(env, ws);
    const modes = ["read-only", "auto"] as const;
    const boxes = await Promise.all(
      modes.map((m) =>
        Sandbox.create({ env, setting: "auto", permissionMode: m, workspaceRoot: ws }),
      ),
    );
    if (!boxes[0]?.confines)
      return ["", "## Sandbox", "", `(skipped: ${boxes[0]?.unavailableReason ?? "no sandbox"})`];
    const times: number[][] = [[], ...boxes.map(() => [])];
    for (let i = 0; i < runs + 3; i++) {
      for (const [k, sb] of [none, ...boxes].entries()) {
        const t = performance.now();
        const r = await runShell("true", undefined, 30, ctx(sb));
        if (r.isError) throw new Error(`bench: ${r.output}`);
        if (i >= 3) times[k]?.push(performance.now() - t);
      }
    }
    for (const b of boxes) b.dispose();
    const base = median(times[0] as number[]);
    const rows = [
      `| run_command \`true\`, unconfined | ${base.toFixed(1)} | 1.00× |`,
      ...modes.map((m, k) => {
        const med = median(times[k + 1] as number[]);
        return `| run_command \`true\`, bubblewrap (${m}) | ${med.toFixed(1)} | ${(med / base).toFixed(2)}× |`;
      }),
    ];
    return [
      "",
      `## Sandbox: starting a run_command (in-process, median of ${runs} interleaved runs)`,
      "",
      "| what | ms | ratio |",
      "|---|---:|---:|",
      ...rows,
      "",
      "The sandboxed figure includes planning the mounts (a few stat/realpath calls), bwrap's namespaces and the seccomp filter; see docs/security.md for the comparison with @anthropic-ai/sandbox-runtime.",
    ];
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}

if (import.meta.main)
  console.log((await sandboxSection(Number(process.env["BENCH_RUNS"] ?? 30))).join("\n"));
