// Helpers for scripts/bench.ts: spawn a command N times, report median wall time and peak RSS.
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { $ } from "bun";

/** The machine's load averages (1, 5, 15 min), for a section's heading: the machine is shared. */
export function machineLoad(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(" / ");
}

export interface Measurement {
  name: string;
  medianMs: number;
  p90Ms: number;
  /** Median user + system CPU time of the process: far less sensitive to a loaded machine. */
  medianCpuMs: number;
  medianRssMb: number;
  runs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function p90(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] as number;
}

export interface RunSpec {
  name: string;
  cmd: string[];
  env?: Record<string, string>;
  cwd?: string;
  stdin?: string;
  /** Expected exit code (default 0); a bench of a failing command is a broken bench. */
  expectCode?: number;
}

/** Runs a command once (async, so a mock server in this process keeps answering). */
export async function measureOnce(
  spec: RunSpec,
): Promise<{ ms: number; cpuMs: number; rssMb: number }> {
  const started = performance.now();
  const proc = Bun.spawn(spec.cmd, {
    env: spec.env,
    cwd: spec.cwd,
    stdin: spec.stdin === undefined ? "ignore" : new TextEncoder().encode(spec.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - started;
  if (code !== (spec.expectCode ?? 0))
    throw new Error(`${spec.name}: exit ${code}\n${err}\n${out}`);
  const cpu = proc.resourceUsage()?.cpuTime.total;
  return { ms, cpuMs: cpu === undefined ? Number.NaN : Number(cpu) / 1000, rssMb: Number.NaN };
}

const TIME = "/usr/bin/time";

/**
 * Peak RSS of one run, via GNU time's wait4-based %M (Bun's resourceUsage reports the maximum over
 * all children so far, not this one). NaN when GNU time is not installed.
 */
export async function peakRssMb(spec: RunSpec): Promise<number> {
  if (!(await Bun.file(TIME).exists())) return Number.NaN;
  const proc = Bun.spawn([TIME, "-f", "RSSKB=%M", ...spec.cmd], {
    env: spec.env,
    cwd: spec.cwd,
    stdin: spec.stdin === undefined ? "ignore" : new TextEncoder().encode(spec.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [, err] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const m = /RSSKB=(\d+)/.exec(err);
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Interleaves the specs `runs` times (after warm-ups) so machine noise hits them alike. */
export async function measureAll(specs: RunSpec[], runs = 30, warmup = 3): Promise<Measurement[]> {
  for (let i = 0; i < warmup; i++) for (const s of specs) await measureOnce(s);
  const samples = new Map<string, { ms: number[]; cpu: number[]; rss: number[] }>();
  for (const s of specs) samples.set(s.name, { ms: [], cpu: [], rss: [] });
  for (let i = 0; i < runs; i++) {
    for (const s of specs) {
      const m = await measureOnce(s);
      const bucket = samples.get(s.name) as { ms: number[]; cpu: number[]; rss: number[] };
      bucket.ms.push(m.ms);
      bucket.cpu.push(m.cpuMs);
      if (i < 7) bucket.rss.push(await peakRssMb(s));
    }
  }
  return specs.map((s) => {
    const b = samples.get(s.name) as { ms: number[]; cpu: number[]; rss: number[] };
    return {
      name: s.name,
      medianMs: median(b.ms),
      p90Ms: p90(b.ms),
      medianCpuMs: median(b.cpu),
      medianRssMb: median(b.rss),
      runs,
    };
  });
}

/** Builds a bare Bun hello-world binary with the same flags as chatcli: the floor. */
export async function buildFloor(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const src = join(dir, "hello.ts");
  await writeFile(src, 'console.log("hello");\n');
  const out = join(dir, "hello");
  await $`bun build ${src} --compile --minify --bytecode --format=esm --outfile ${out}`.quiet();
  return out;
}

export function ratioTable(rows: Measurement[], floor: Measurement): string {
  const lines = [
    "| command | median ms | p90 ms | × floor (time) | median CPU ms | × floor (CPU) | median peak RSS MB | × floor (RSS) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.medianMs.toFixed(1)} | ${r.p90Ms.toFixed(1)} | ${(r.medianMs / floor.medianMs).toFixed(2)} | ${r.medianCpuMs.toFixed(1)} | ${(r.medianCpuMs / floor.medianCpuMs).toFixed(2)} | ${r.medianRssMb.toFixed(1)} | ${(r.medianRssMb / floor.medianRssMb).toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}
