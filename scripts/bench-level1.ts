// `npm run bench` section of issue 23: `chatcli compact --level 1 --no-llm FILE` at 7 MB and 75 MB
// against a floor built in the same run — a binary compiled like chatcli that reads the file, parses
// it, stringifies it and writes it to stdout — run interleaved, medians; peak RSS of both against
// the input's size. Also level 1 in-process (compactHistory) for reference.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { $ } from "bun";
import { compactHistory } from "../lib/history/compact.ts";
import { historyChars } from "../lib/history/tokens.ts";
import { syntheticHistory } from "./bench-compact.ts";
import { peakRssMb } from "./bench-lib.ts";

export interface Level1Row {
  megabytes: number;
  messages: number;
  inProcessMbPerSecond: number;
  /** Median wall ms of the CLI and of the floor, interleaved. */
  cliMs: number;
  floorMs: number;
  /** Median user + system CPU ms of each (less sensitive to a loaded machine). */
  cliCpuMs: number;
  floorCpuMs: number;
  cliPeakRssMb: number;
  floorPeakRssMb: number;
  /** Peak RSS of the CLI on a one-message file (the binary's own footprint). */
  idleRssMb: number;
}

/** A synthetic history of about `megabytes` MB (JSON), as the compact command reads it. */
function historyOf(megabytes: number) {
  const probe = syntheticHistory(1000);
  const perMessage = JSON.stringify(probe).length / 1000;
  return syntheticHistory(Math.ceil((megabytes * 1024 * 1024) / perMessage));
}

/** The floor: read + JSON.parse + JSON.stringify + write, compiled with chatcli's flags. */
export async function buildJsonFloor(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const src = join(dir, "json-floor.ts");
  await writeFile(
    src,
    'import { readFileSync, writeSync } from "node:fs";\nwriteSync(1, JSON.stringify(JSON.parse(readFileSync(process.argv[2] as string, "utf8"))));\n',
  );
  const out = join(dir, "json-floor");
  await $`bun build ${src} --compile --minify --bytecode --format=esm --outfile ${out}`.quiet();
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function timed(cmd: string[], env: Record<string, string>) {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore", env });
  if ((await proc.exited) !== 0) throw new Error(`bench: ${cmd.join(" ")} failed`);
  const wall = performance.now() - started;
  return { wall, cpu: Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000 };
}

/** Level 1 in-process and through the binary, against the floor. */
export async function benchLevel1(
  bin: string | undefined,
  work: string,
  sizes: readonly number[] = [7, 75],
  runs = 7,
): Promise<Level1Row[]> {
  const rows: Level1Row[] = [];
  const floor = bin ? await buildJsonFloor(join(work, "json-floor")) : undefined;
  const env = { PATH: process.env["PATH"] ?? "", HOME: work, CHATCLI_HOME: join(work, ".chatcli") };
  let idleRssMb = Number.NaN;
  if (bin) {
    const tiny = join(work, "tiny.json");
    await writeFile(tiny, '[{"role":"user","content":"hi"}]');
    const idle = { name: "idle", cmd: [bin, "compact", "--level", "1", "--no-llm", tiny], env };
    idleRssMb = median([await peakRssMb(idle), await peakRssMb(idle), await peakRssMb(idle)]);
  }
  for (const size of sizes) {
    const history = historyOf(size);
    const text = JSON.stringify(history);
    const megabytes = text.length / (1024 * 1024);
    await compactHistory(history.slice(0, 2000), { budgetTokens: 1000, maxLevel: 1 });
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      const result = await compactHistory(history, { budgetTokens: 20_000, maxLevel: 1 });
      best = Math.min(best, performance.now() - start);
      if (result.levelsRun.join() !== "1") throw new Error("bench: expected level 1 only");
    }
    const row: Level1Row = {
      megabytes,
      messages: history.length,
      inProcessMbPerSecond: historyChars(history) / (1024 * 1024) / (best / 1000),
      cliMs: Number.NaN,
      floorMs: Number.NaN,
      cliCpuMs: Number.NaN,
      floorCpuMs: Number.NaN,
      cliPeakRssMb: Number.NaN,
      floorPeakRssMb: Number.NaN,
      idleRssMb,
    };
    if (bin && floor) {
      const file = join(work, `conversation-${size}mb.json`);
      await writeFile(file, text);
      const cli = [bin, "compact", "--level", "1", "--no-llm", file];
      const base = [floor, file];
      const a: Array<{ wall: number; cpu: number }> = [];
      const b: Array<{ wall: number; cpu: number }> = [];
      await timed(cli, env); // warm the page cache
      for (let i = 0; i < runs; i++) {
        a.push(await timed(cli, env));
        b.push(await timed(base, env));
      }
      row.cliMs = median(a.map((x) => x.wall));
      row.floorMs = median(b.map((x) => x.wall));
      row.cliCpuMs = median(a.map((x) => x.cpu));
      row.floorCpuMs = median(b.map((x) => x.cpu));
      const rss = async (cmd: string[]) =>
        median([
          await peakRssMb({ name: "rss", cmd, env }),
          await peakRssMb({ name: "rss", cmd, env }),
          await peakRssMb({ name: "rss", cmd, env }),
        ]);
      row.cliPeakRssMb = await rss(cli);
      row.floorPeakRssMb = await rss(base);
    }
    rows.push(row);
  }
  return rows;
}

export async function level1Section(bin: string | undefined, work: string): Promise<string[]> {
  const rows = await benchLevel1(bin, work);
  const out = [
    "## `chatcli compact --level 1` (7 MB and 75 MB conversations)",
    "",
    "| MB (JSON) | messages | CLI ms | floor ms | **× floor (time)** | CLI CPU ms | floor CPU ms | × floor (CPU) | CLI MB/s | CLI peak RSS MB | **RSS ÷ input** | (RSS − idle binary) ÷ input | floor RSS ÷ input | in-process level 1 MB/s |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    out.push(
      `| ${r.megabytes.toFixed(1)} | ${r.messages} | ${r.cliMs.toFixed(0)} | ${r.floorMs.toFixed(0)} | ${(r.cliMs / r.floorMs).toFixed(2)} | ${r.cliCpuMs.toFixed(0)} | ${r.floorCpuMs.toFixed(0)} | ${(r.cliCpuMs / r.floorCpuMs).toFixed(2)} | ${(r.megabytes / (r.cliMs / 1000)).toFixed(0)} | ${r.cliPeakRssMb.toFixed(0)} | ${(r.cliPeakRssMb / r.megabytes).toFixed(1)} | ${((r.cliPeakRssMb - r.idleRssMb) / r.megabytes).toFixed(1)} | ${(r.floorPeakRssMb / r.megabytes).toFixed(1)} | ${r.inProcessMbPerSecond.toFixed(0)} |`,
    );
  }
  out.push(
    "",
    `Floor: a binary compiled like chatcli that reads the file, JSON.parse, JSON.stringify, writes it (built in this run); CLI and floor interleaved, medians of 7 wall-clock runs, peak RSS the median of 3 (GNU time). Idle binary: ${rows[0]?.idleRssMb.toFixed(0)} MB (the same command on a one-message file). Goal (issue 23): ≤ 1.5× the floor, RSS ≤ 4× the input. The input is the synthetic agent history of scripts/bench-compact.ts (GENERATED); level 1 shrinks it to about a quarter.`,
  );
  return out;
}
