#!/usr/bin/env bun
/**
 * Memory benchmarks (wired into `npm run bench` by scripts/bench.ts):
 * remember and recall at 500 / 5,000 / 10,000 facts, and the index digest size.
 * Budget: in-process recall at 10k facts ≤ 20 ms; digest ≤ 600 runes and flat.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CATEGORIES } from "../lib/memory/config.ts";
import { type Fact, type FactState, factId, factToJson, rankedFacts } from "../lib/memory/facts.ts";
import { formatGoTime } from "../lib/memory/gotime.ts";
import { remember } from "../lib/memory/ops.ts";
import { buildDigest, memoryDigest } from "../lib/memory/prompt.ts";
import { FactIndex } from "../lib/memory/retrieve.ts";
import { loadFacts, openMemory, writeStoreJson } from "../lib/memory/store.ts";

const SUBJECTS = [
  "api",
  "cache",
  "deploy",
  "database",
  "auth",
  "tests",
  "build",
  "queue",
  "frontend",
  "logging",
  "metrics",
  "cli",
];
const VERBS = [
  "uses",
  "requires",
  "prefers",
  "avoids",
  "runs",
  "stores",
  "depends on",
  "breaks without",
];
const OBJECTS = [
  "postgres",
  "redis",
  "kafka",
  "bun",
  "docker",
  "kubernetes",
  "terraform",
  "vitest",
  "nginx",
  "s3",
  "grpc",
  "sqlite",
];

/** When the generated facts were last touched and written. */
const WRITTEN_AT = new Date("2026-08-01T12:00:00Z");

/** N synthetic facts with realistic shapes (deterministic). */
export function generateFacts(n: number, now = WRITTEN_AT): Fact[] {
  const out: Fact[] = [];
  for (let i = 0; i < n; i++) {
    const content = `The ${SUBJECTS[i % 12]} of service${i} ${VERBS[i % 8]} ${OBJECTS[(i * 7) % 12]} in region r${i % 97} (ticket ${1000 + i})`;
    const at = formatGoTime(new Date(now.getTime() - (i % 180) * 86400_000));
    out.push({
      id: factId(content),
      content,
      category: CATEGORIES[i % 7] as string,
      tags: [OBJECTS[(i * 7) % 12] as string],
      created_at: at,
      last_accessed: at,
      access_count: 1 + (i % 9),
      score: 1,
      source_project: `/src/project${i % 5}`,
      confidence: 0.6,
      provenance: "extraction",
    });
  }
  return out;
}

/**
 * A temp CHATCLI_HOME holding N facts in memory_index.json, written as chatcli and the Go tool write
 * it (reference §2: sorted by score, descending, each score the live score at the write).
 */
export async function storeWithFacts(
  n: number,
): Promise<{ env: Record<string, string>; dispose(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), "chatcli-bench-mem-"));
  const env = { CHATCLI_HOME: home, CHATCLI_MEMORY_MAX_FACTS: String(n + 1000) };
  const ranked = rankedFacts(generateFacts(n), WRITTEN_AT.getTime());
  await writeStoreJson(openMemory({ env }), "memory_index.json", ranked.map(factToJson));
  return { env, dispose: () => rm(home, { recursive: true, force: true }) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const QUERIES = [
  "how is the deploy cache configured",
  "redis auth",
  "which services use kafka in region r12",
  "terraform",
  "grpc frontend tests",
];

/** Recall timings at N facts: warm (index built once) and cold (load + index + search). */
export async function benchRecall(
  n: number,
): Promise<{ facts: number; warmMs: number; coldMs: number; indexMs: number }> {
  const store = await storeWithFacts(n);
  try {
    const mem = openMemory({ env: store.env, workspace: "/src/project1" });
    const coldStart = performance.now();
    const state = await loadFacts(mem);
    const t0 = performance.now();
    const index = new FactIndex(state.facts.values());
    const indexMs = performance.now() - t0;
    index.search(QUERIES[0] as string, { nowMs: Date.now(), workspace: mem.workspace, limit: 10 });
    const coldMs = performance.now() - coldStart;
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      for (const q of QUERIES) {
        const s = performance.now();
        index.search(q, { nowMs: Date.now(), workspace: mem.workspace, limit: 10 });
        times.push(performance.now() - s);
      }
    }
    return { facts: n, warmMs: median(times), coldMs, indexMs };
  } finally {
    await store.dispose();
  }
}

/** `remember` (lock + read + merge + atomic write + MEMORY.md) at N facts, median of 5. */
export async function benchRemember(n: number): Promise<{ facts: number; ms: number }> {
  const store = await storeWithFacts(n);
  try {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      await remember({ env: store.env }, `Benchmark fact ${i} zulu${i} yankee${i} xray${i}`);
      times.push(performance.now() - s);
    }
    return { facts: n, ms: median(times) };
  } finally {
    await store.dispose();
  }
}

/** Index digest size (runes) at N facts, with a busy profile/topics/projects. */
export async function digestSize(n: number): Promise<{ facts: number; runes: number }> {
  const state: FactState = { facts: new Map(), tombstones: new Map() };
  for (const f of generateFacts(n)) state.facts.set(f.id, f);
  const topics = Array.from({ length: 40 }, (_, i) => ({ name: `topic-${i}`, mentions: 40 - i }));
  const projects = Array.from({ length: 20 }, (_, i) => ({
    name: `project-${i}`,
    status: "active",
    last_active: "2026-08-01T00:00:00Z",
  }));
  const digest = buildDigest(
    { name: "Ana", role: "SRE", expertise_level: "expert", company: "Acme" },
    projects,
    topics,
    state,
    12,
  );
  return { facts: n, runes: [...digest].length };
}

/**
 * Wall time of `<argv> memory facts` against an N-fact store (median of `runs`), e.g.
 * `benchFactsCommand(500, ["dist/chatcli"])` — compare with the Bun hello floor measured in the same run.
 */
export async function benchFactsCommand(
  n: number,
  argv: readonly string[],
  runs = 15,
): Promise<{ facts: number; ms: number }> {
  const store = await storeWithFacts(n);
  try {
    const env = { ...store.env, PATH: Bun.env["PATH"] ?? "" };
    const times: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const t = performance.now();
      const proc = Bun.spawn([...argv, "memory", "facts"], {
        env,
        stdout: "ignore",
        stderr: "ignore",
      });
      await proc.exited;
      if (i >= 2) times.push(performance.now() - t);
    }
    return { facts: n, ms: median(times) };
  } finally {
    await store.dispose();
  }
}

/**
 * Cold `memory recall` through the binary at N facts: median wall time of a fresh process answering
 * from the persisted recall index, against `memory path` (the same start-up, no store read) — the
 * difference is what recall costs over the process start (budget ≤ 20 ms at 10k). `rebuildMs` is one
 * run right after the store changed (index rebuilt and re-persisted).
 */
export async function benchColdRecall(
  n: number,
  bin: string,
  runs = 15,
): Promise<{
  facts: number;
  recallMs: number;
  startMs: number;
  overStartMs: number;
  rebuildMs: number;
  /** `chatcli --version` (the floor issue 25 measures against) and recall ÷ that. */
  versionMs: number;
  ratio: number;
}> {
  const store = await storeWithFacts(n);
  try {
    const env = { ...store.env, PATH: Bun.env["PATH"] ?? "", NO_COLOR: "1" };
    const time = async (argv: string[]) => {
      const t = performance.now();
      const proc = Bun.spawn([bin, ...argv], { env, stdout: "ignore", stderr: "ignore" });
      await proc.exited;
      return performance.now() - t;
    };
    const q = ["memory", "recall", "which services use kafka in region r12", "--json"];
    const rebuildMs = await time(q);
    const recall: number[] = [];
    const start: number[] = [];
    const version: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const a = await time(q);
      const b = await time(["memory", "path"]);
      const c = await time(["--version"]);
      if (i >= 2) {
        recall.push(a);
        start.push(b);
        version.push(c);
      }
    }
    const recallMs = median(recall);
    const startMs = median(start);
    const versionMs = median(version);
    return {
      facts: n,
      recallMs,
      startMs,
      overStartMs: recallMs - startMs,
      rebuildMs,
      versionMs,
      ratio: recallMs / versionMs,
    };
  } finally {
    await store.dispose();
  }
}

/** Everything, as one JSON-able report. */
export async function runMemoryBench(sizes: readonly number[] = [500, 5000, 10_000]) {
  const recall = [];
  const rememberRows = [];
  const digest = [];
  for (const n of sizes) {
    recall.push(await benchRecall(n));
    rememberRows.push(await benchRemember(n));
    digest.push(await digestSize(n));
  }
  const at10k = recall.find((r) => r.facts === 10_000);
  return {
    recall,
    remember: rememberRows,
    digest,
    budgets: {
      recall_10k_warm_ms_le_20: at10k ? at10k.warmMs <= 20 : null,
      digest_le_600: digest.every((d) => d.runes <= 600),
    },
  };
}

export { memoryDigest };

if (import.meta.main) {
  const bin = Bun.argv[2];
  const cold = [];
  if (bin) for (const n of [500, 5000, 10_000]) cold.push(await benchColdRecall(n, bin));
  console.log(JSON.stringify({ ...(await runMemoryBench()), cold_recall: cold }, null, 2));
}
