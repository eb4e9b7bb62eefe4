// `bun scripts/bench-startup.ts [NAME=BINARY …]`: only the non-LLM start-up scenarios of
// scripts/bench.ts (`--version`, `bootstrap show` 5×8 KiB files + 20 rules, `memory facts --json` on
// 500 facts), interleaved with the floor (a compiled Bun hello-world) — a quick before/after check
// that does not take `npm run bench`'s minutes. With no argument it builds and times dist/chatcli;
// with several binaries (`base=/tmp/old new=dist/chatcli`) every one runs in the same interleaved
// rounds, so their ratios are comparable. BENCH_RUNS (30) sets the rounds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { setupBootstrapBench } from "./bench-bootstrap.ts";
import { buildJobFloors } from "./bench-job-floor.ts";
import { buildFloor, machineLoad, measureAll, type RunSpec, ratioTable } from "./bench-lib.ts";
import { storeWithFacts } from "./bench-memory.ts";

const ROOT = resolve(import.meta.dir, "..");
const runs = Number(process.env["BENCH_RUNS"] ?? 30);
const given = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf("=");
  return at < 0
    ? { name: "chatcli", bin: resolve(arg) }
    : { name: arg.slice(0, at), bin: resolve(arg.slice(at + 1)) };
});
if (given.length === 0) {
  await $`bun scripts/build.ts`.cwd(ROOT).quiet();
  given.push({ name: "chatcli", bin: join(ROOT, "dist", "chatcli") });
}

const work = await mkdtemp(join(tmpdir(), "chatcli-bench-startup-"));
const facts = await storeWithFacts(500);
try {
  const home = join(work, "home");
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    NO_COLOR: "1",
  };
  const boot = setupBootstrapBench(join(work, "bootstrap"));
  const jobs = await buildJobFloors(join(work, "jobs"));
  const specs: RunSpec[] = [
    { name: "bun hello (floor)", cmd: [await buildFloor(join(work, "floor"))] },
    { name: "job floor: bootstrap show's reads and writes", cmd: [jobs.files, ...boot.files] },
    {
      name: "job floor: memory facts --json's parse, score, sort, stringify",
      cmd: [jobs.facts],
      env: { ...env, ...facts.env },
    },
  ];
  for (const { name, bin } of given) {
    specs.push(
      { name: `${name} --version`, cmd: [bin, "--version"], env },
      {
        name: `${name} bootstrap show (5×8 KiB files, 20 rules)`,
        cmd: [bin, ...boot.argv],
        env: { ...env, ...boot.env, CHATCLI_HOME: join(boot.home, ".chatcli") },
        cwd: boot.cwd,
      },
      {
        name: `${name} memory facts --json (500 facts)`,
        cmd: [bin, "memory", "facts", "--json"],
        env: { ...env, ...facts.env },
        cwd: work,
      },
    );
  }
  const before = machineLoad();
  const rows = await measureAll(specs, runs);
  console.log(
    `median of ${runs} interleaved runs, 3 warm-ups; load ${before} → ${machineLoad()}\n`,
  );
  console.log(ratioTable(rows, rows[0] as (typeof rows)[number]));
} finally {
  await facts.dispose();
  await rm(work, { recursive: true, force: true });
}
