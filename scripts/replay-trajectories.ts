// `bun scripts/replay-trajectories.ts [--tool-tokens N] [--runs] PATH…`: the microcompact replay of
// docs/bench.md on trajectories from files — real agent runs (SWE-agent `.traj`, mini-SWE-agent
// `.traj.json`, OpenAI or Anthropic message arrays and request bodies, ChatCLI sessions, JSONL),
// read by tests/support/trajectory-files.ts. A directory is searched for .json, .jsonl and .traj
// files. Prints the same table as `npm run bench` for the same policies, and with --runs a line per
// run. --tool-tokens adds the tool definitions' size to every run's cached prefix (trajectory files
// rarely hold them; chatcli's agent sends ~1k tokens of them).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { clearingCeiling, neverAbove, replay, replayAll } from "../tests/support/replay.ts";
import { type LoadedRun, runsInText } from "../tests/support/trajectory-files.ts";
import { POLICIES, REPLAY_HEADER, replayRow } from "./bench-microcompact.ts";

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path).sort()) {
    const full = join(path, entry);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full));
    else if (/\.(json|jsonl|traj)$/.test(entry)) out.push(full);
  }
  return out;
}

function parseArgs(argv: string[]): { toolTokens: number; perRun: boolean; paths: string[] } {
  let toolTokens = 0;
  let perRun = false;
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--runs") perRun = true;
    else if (arg === "--tool-tokens") toolTokens = Number(argv[++i]);
    else paths.push(arg);
  }
  if (paths.length === 0 || !Number.isFinite(toolTokens) || toolTokens < 0) {
    console.error("usage: bun scripts/replay-trajectories.ts [--tool-tokens N] [--runs] PATH…");
    process.exit(2);
  }
  return { toolTokens, perRun, paths };
}

const { toolTokens, perRun, paths } = parseArgs(process.argv.slice(2));
const runs: LoadedRun[] = [];
for (const file of paths.flatMap(filesUnder)) {
  try {
    const found = runsInText(readFileSync(file, "utf8"), file, toolTokens);
    const usable = found.filter((r) => r.trajectory.rounds.length > 0);
    if (usable.length === 0) console.error(`skipped ${file}: no agent run in it`);
    runs.push(...usable);
  } catch (error) {
    console.error(`skipped ${file}: ${(error as Error).message}`);
  }
}
if (runs.length === 0) {
  console.error("no trajectories found");
  process.exit(1);
}
const set = runs.map((r) => r.trajectory);
const converted = runs.filter((r) => r.converted).length;
console.log(
  `${runs.length} runs, ${set.reduce((n, t) => n + t.rounds.length, 0)} replies${converted ? ` (${converted} text-command runs replayed as tool calls)` : ""}\n`,
);
console.log(REPLAY_HEADER.join("\n"));
for (const [name, policy] of POLICIES)
  console.log(replayRow("files", name, replayAll(set, policy)));
console.log(
  `\nCeiling: every result older than the last two turns cleared at every request, at no rewrite cost, saves ${(100 * clearingCeiling(set)).toFixed(1)}% of the input.`,
);
if (perRun) {
  const [name, policy] = POLICIES[1] as (typeof POLICIES)[number];
  console.log(`\nPer run (${name}):\n`);
  console.log("| run | requests | input saved | Anthropic cost vs none | ever above none |");
  console.log("|---|---:|---:|---:|---|");
  for (const r of runs) {
    const off = replay(r.trajectory, "none");
    const on = replay(r.trajectory, policy);
    const saved = 1 - on.cumulativeInput / off.cumulativeInput;
    console.log(
      `| ${r.name} | ${on.requests.length} | ${(100 * saved).toFixed(1)}% | ${(on.cost.anthropic / off.cost.anthropic).toFixed(3)}× | ${neverAbove(on.requests, off.requests) ? "no" : "YES"} |`,
    );
  }
}
