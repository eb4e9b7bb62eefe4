// Ad-hoc A/B for issue 23's level-1 section: `compact --level 1 --no-llm FILE` for binaries A and B
// and the JSON floor (scripts/bench-level1.ts), interleaved, medians; peak RSS via GNU time.
// Usage: bun scripts/bench-level1-ab.ts BIN_A BIN_B [runs] [args-variant]
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { syntheticHistory } from "./bench-compact.ts";
import { buildJsonFloor } from "./bench-level1.ts";
import { peakRssMb } from "./bench-lib.ts";

const [binA, binB, runsArg] = process.argv.slice(2);
if (!binA || !binB) throw new Error("usage: bench-level1-ab.ts BIN_A BIN_B [runs]");
const runs = Number(runsArg ?? 11);
const work = process.env["WORK"] ?? "/tmp/level1-ab";
const env = { PATH: process.env["PATH"] ?? "", HOME: work, CHATCLI_HOME: join(work, ".chatcli") };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");

async function timed(cmd: string[]) {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore", env });
  if ((await proc.exited) !== 0) throw new Error(`bench: ${cmd.join(" ")} failed`);
  const wall = performance.now() - started;
  return { wall, cpu: Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000 };
}

const floor = await buildJsonFloor(join(work, "json-floor"));
const tiny = join(work, "tiny.json");
await writeFile(tiny, '[{"role":"user","content":"hi"}]');
const probe = syntheticHistory(1000);
const perMessage = JSON.stringify(probe).length / 1000;
console.log(`load at start ${load()}`);
for (const size of [0, 7, 75]) {
  let file = tiny;
  if (size > 0) {
    const text = JSON.stringify(syntheticHistory(Math.ceil((size * 1024 * 1024) / perMessage)));
    file = join(work, `conversation-${size}mb.json`);
    await writeFile(file, text);
  }
  const specs = {
    A: [binA, "compact", "--level", "1", "--no-llm", file],
    B: [binB, "compact", "--level", "1", "--no-llm", file],
    floor: [floor, file],
  };
  const samples: Record<string, { wall: number; cpu: number }[]> = { A: [], B: [], floor: [] };
  for (const cmd of Object.values(specs)) await timed(cmd);
  const n = size === 75 ? Math.max(7, Math.floor(runs / 2)) : runs;
  for (let i = 0; i < n; i++)
    for (const [name, cmd] of Object.entries(specs)) samples[name]?.push(await timed(cmd));
  const rss: Record<string, number> = {};
  for (const [name, cmd] of Object.entries(specs)) {
    const r: number[] = [];
    for (let i = 0; i < 5; i++) r.push(await peakRssMb({ name, cmd, env }));
    rss[name] = median(r);
  }
  const f = samples["floor"] ?? [];
  const fw = median(f.map((x) => x.wall));
  const fc = median(f.map((x) => x.cpu));
  console.log(
    `\n${size} MB (runs ${n}, load ${load()})  floor ${fw.toFixed(1)} ms wall, ${fc.toFixed(1)} ms CPU, RSS ${rss["floor"]?.toFixed(1)} MB`,
  );
  for (const name of ["A", "B"]) {
    const s = samples[name] ?? [];
    const w = median(s.map((x) => x.wall));
    const c = median(s.map((x) => x.cpu));
    console.log(
      `  ${name}: ${w.toFixed(1)} ms (${(w / fw).toFixed(2)}×), CPU ${c.toFixed(1)} ms (${(c / fc).toFixed(2)}×), RSS ${rss[name]?.toFixed(1)} MB` +
        (size > 0 ? ` (${((rss[name] ?? 0) / size).toFixed(1)}× input)` : ""),
    );
  }
}
console.log(`\nload at end ${load()}`);
