// The cost of the OS sandbox: starting a sandboxed run_command (bubblewrap) against the same command
// unconfined, in-process, median of interleaved runs. Run alone with `bun scripts/bench-sandbox.ts`.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readFileTool } from "../lib/agent/tools/read-file.ts";
import { runShell } from "../lib/agent/tools/run-command.ts";
import { writeFileTool } from "../lib/agent/tools/write-file.ts";
import type { ToolContext } from "../lib/agent/types.ts";
import { writeFileAtomic } from "../lib/core/fs.ts";
import { Sandbox } from "../lib/sandbox/sandbox.ts";
import { networkRows } from "./bench-network.ts";

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
    const files = await fileToolRows(ws, env, ctx, runs);
    const network = await networkRows(ws, env, ctx, runs);
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
      ...files,
      ...network,
    ];
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}

const ROOT = resolve(import.meta.dir, "..");

/**
 * chatcli's own file tools, per call: the floor is the plain fs call the tools made before (a
 * readFileSync; for an existing file, writeFileAtomic's temp file + rename); "no sandbox" is the openat-style walk
 * in-process; "bubblewrap" is the run's file worker (dist/chatcli inside bwrap) over its pipe.
 * The worker's start-up (once per run and layout) is measured separately.
 */
async function fileToolRows(
  ws: string,
  env: Record<string, string>,
  ctx: (sandbox: Sandbox) => ToolContext,
  runs: number,
): Promise<string[]> {
  const bin = join(ROOT, "dist", "chatcli");
  const selfArgv = existsSync(bin) ? [bin] : [process.execPath, join(ROOT, "main.ts")];
  const file = join(ws, "data.txt");
  await writeFile(file, `${"0123456789abcdef".repeat(255)}\n`);
  const open = (setting: "off" | "auto") =>
    Sandbox.create({ env, setting, permissionMode: "edit", workspaceRoot: ws, selfArgv });
  const [walk, boxed] = await Promise.all([open("off"), open("auto")]);
  const content = "x".repeat(4096);
  const cases: Array<[string, () => unknown]> = [
    ["read 4 KB: fs.readFileSync (floor)", () => readFileSync(file)],
    [
      "read_file 4 KB, no sandbox (walk)",
      () => readFileTool.execute({ file: "data.txt" }, ctx(walk)),
    ],
    [
      "read_file 4 KB, bubblewrap worker",
      () => readFileTool.execute({ file: "data.txt" }, ctx(boxed)),
    ],
    // what write_file did before for an existing file: temp file + rename, in chatcli itself
    ["write 4 KB: writeFileAtomic (floor)", () => writeFileAtomic(join(ws, "w0.txt"), content)],
    [
      "write_file 4 KB, no sandbox (walk)",
      () => writeFileTool.execute({ file: "w1.txt", content }, ctx(walk)),
    ],
    [
      "write_file 4 KB, bubblewrap worker",
      () => writeFileTool.execute({ file: "w2.txt", content }, ctx(boxed)),
    ],
  ];
  const times: number[][] = cases.map(() => []);
  try {
    for (let i = 0; i < runs * 10 + 20; i++) {
      for (const [k, [, run]] of cases.entries()) {
        const t = performance.now();
        const r = (await run()) as { isError?: boolean; output?: string } | undefined;
        if (r?.isError) throw new Error(`bench: ${r.output}`);
        if (i >= 20) times[k]?.push(performance.now() - t);
      }
    }
  } finally {
    walk.dispose();
    boxed.dispose();
  }
  // a fresh run's first file call starts its worker
  const starts: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(runs / 3)); i++) {
    const sb = await open("auto");
    const t = performance.now();
    await readFileTool.execute({ file: "data.txt" }, ctx(sb));
    starts.push(performance.now() - t);
    sb.dispose();
  }
  const med = times.map((t) => median(t));
  const row = (k: number, floor: number) =>
    `| ${cases[k]?.[0]} | ${((med[k] as number) * 1000).toFixed(0)} | ${((med[k] as number) / (med[floor] as number)).toFixed(1)}× |`;
  return [
    "",
    `## Sandbox: chatcli's file tools per call (in-process, median of ${runs * 10} interleaved calls; worker: ${selfArgv.length === 1 ? "dist/chatcli" : "bun main.ts"})`,
    "",
    "| what | µs per call | ratio to its floor |",
    "|---|---:|---:|",
    ...[0, 1, 2].map((k) => row(k, 0)),
    ...[3, 4, 5].map((k) => row(k, 3)),
    "",
    `The worker starts once per run (and once more in read-only mode when a rule or a human lets an edit tool write): first call ${median(starts).toFixed(0)} ms, median of ${starts.length}. A model turn is seconds; a sandboxed run_command is ~10 ms.`,
  ];
}

if (import.meta.main)
  console.log((await sandboxSection(Number(process.env["BENCH_RUNS"] ?? 30))).join("\n"));
