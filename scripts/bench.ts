// `npm run bench`: start-up time and memory of chatcli as ratios to a bare Bun binary built in this run,
// plus the in-process targets of the memory, compaction and prompt-size work. Prints markdown; with
// --write, also saves it to docs/bench.md.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { buildFloor, type Measurement, measureAll, type RunSpec, ratioTable } from "./bench-lib.ts";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "chatcli");
const runs = Number(process.env["BENCH_RUNS"] ?? 30);
const sections: string[] = [];

await $`bun scripts/build.ts`.cwd(ROOT).quiet();
const work = await mkdtemp(join(tmpdir(), "chatcli-bench-"));
try {
  const floorBin = await buildFloor(join(work, "floor"));
  const home = join(work, "home");
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    NO_COLOR: "1",
  };
  const specs: RunSpec[] = [
    { name: "bun hello (floor)", cmd: [floorBin] },
    { name: "chatcli --version", cmd: [BIN, "--version"], env },
    {
      name: "chatcli ask -m mock:echo (no network)",
      cmd: [BIN, "ask", "-m", "mock:echo", "say hi"],
      env,
      cwd: work,
    },
  ];
  const extra = await import("./bench-scenarios.ts").catch(() => undefined);
  const cleanups: Array<() => Promise<void>> = [];
  if (extra) {
    const more = await extra.startupScenarios({ bin: BIN, env, work });
    specs.push(...more.specs);
    cleanups.push(more.cleanup);
  }
  const rows: Measurement[] = await measureAll(specs, runs);
  for (const c of cleanups) await c();
  const floor = rows[0] as Measurement;
  sections.push(
    `## Start-up (median of ${runs} interleaved runs, 3 warm-ups; ${new Date().toISOString().slice(0, 10)}, ${navigator.hardwareConcurrency} cores)`,
    "",
    ratioTable(rows, floor),
    "",
    "Budgets (docs/contract.md §12): non-LLM commands ≤ 1.3× the floor; `ask` ≤ 1.5× the floor plus the round trip, ≤ 60 MB.",
  );
  if (extra) sections.push("", ...(await extra.inProcessSections({ bin: BIN, env, work })));
  const sandbox = await import("./bench-sandbox.ts");
  sections.push(...(await sandbox.sandboxSection(runs)));
} finally {
  await rm(work, { recursive: true, force: true });
}

const report = `# chatcli benchmarks\n\n${sections.join("\n")}\n\nRun with \`npm run bench\` (\`-- --write\` saves this file); see docs/bench.md's notes for how to read it.\n`;
console.log(report);
if (process.argv.includes("--write")) await writeFile(join(ROOT, "docs", "bench.md"), report);
