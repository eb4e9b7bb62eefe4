// A dev set of agent trajectories shaped like real SWE-bench agent runs (issue 23). GENERATED data:
// no real trajectory is in here. What it copies from real runs (the shapes the held-out set showed):
// - run lengths are heavy-tailed: many short runs (a third under 10 turns), a few of 60–150 turns;
// - tool outputs vary wildly: many tiny (an edit's confirmation, an empty grep, `ls`), most 1–5 KB,
//   some whole-file views and test logs of 20–50 KB, and a per-run verbosity (scaffolds differ);
// - the same file is read many times: a small working set per run, picked Zipf-like, the same view
//   byte-identical until the agent edits that file; a reproduce / test command re-run with the same
//   output until an edit changes it;
// - phases: explore (search, read, ls), then reproduce, edit, test, iterate.
// Seeds 1–48 are the dev split (tune on these); 1001–1048 a held-out split of the same generator.
import type { ChatMessage } from "../../lib/llm/types.ts";
import type { Trajectory } from "./replay.ts";

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;

/** The generator's knobs (log-normal medians and spreads). */
export interface Shape {
  turnsMedian: number;
  turnsSigma: number;
  turnsMax: number;
  /** Median of the per-run scale of every output (scaffolds print more or less). */
  verbosity: number;
  fileChars: number;
  /** Share of file views that show the whole file (the rest show a 60–140-line window). */
  wholeFile: number;
  thoughtChars: number;
  thoughtSigma: number;
  commandChars: number;
  /** Median chars of code an edit call carries in its arguments (old_str + new_str). */
  editArgsChars: number;
  /** Median tokens of the system prompt + tool definitions. */
  prefixTokens: number;
}

/**
 * Three scaffolds (the held-out runs came from several agents), each fitted so that issue 14's
 * microcompact reproduces, on it alone, about what the issue measured on the real runs (22–26%
 * input saved, cost 0.87–0.88× OpenAI-style and 0.91–0.92× Anthropic): a windowed viewer with a
 * long system prompt, a whole-file viewer with long edits, and a terse one with a short prompt.
 */
export const SCAFFOLDS: readonly Shape[] = [
  {
    turnsMedian: 16,
    turnsSigma: 0.8,
    turnsMax: 50,
    verbosity: 0.6,
    fileChars: 9000,
    wholeFile: 0.25,
    thoughtChars: 300,
    thoughtSigma: 1.3,
    commandChars: 500,
    editArgsChars: 300,
    prefixTokens: 6000,
  },
  {
    turnsMedian: 16,
    turnsSigma: 0.8,
    turnsMax: 80,
    verbosity: 0.6,
    fileChars: 5000,
    wholeFile: 0.1,
    thoughtChars: 300,
    thoughtSigma: 0.8,
    commandChars: 1000,
    editArgsChars: 1200,
    prefixTokens: 6000,
  },
  {
    turnsMedian: 12,
    turnsSigma: 0.8,
    turnsMax: 80,
    verbosity: 0.6,
    fileChars: 5000,
    wholeFile: 0.1,
    thoughtChars: 300,
    thoughtSigma: 0.8,
    commandChars: 500,
    editArgsChars: 300,
    prefixTokens: 1500,
  },
];

function normal(rand: Rand): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** A log-normal draw with median `median` and log-sd `sigma`, clamped to [min, max]. */
function lognormal(rand: Rand, median: number, sigma: number, min: number, max: number): number {
  return Math.round(Math.min(max, Math.max(min, median * Math.exp(sigma * normal(rand)))));
}

function pick<T>(rand: Rand, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** Index in [0, n) with weight 1 / (i + 1)^s: a few items get most of the picks. */
function zipf(rand: Rand, n: number, s = 1.2): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += 1 / (i + 1) ** s;
  let r = rand() * total;
  for (let i = 0; i < n; i++) {
    r -= 1 / (i + 1) ** s;
    if (r <= 0) return i;
  }
  return n - 1;
}

const WORDS = ["value", "config", "request", "handler", "cache", "result", "index", "parser"];

function codeLine(rand: Rand, n: number): string {
  const w = pick(rand, WORDS);
  const shapes = [
    () => `    def ${w}_${n}(self, ${pick(rand, WORDS)}=None):`,
    () => `        ${w} = self._${pick(rand, WORDS)}.get(${JSON.stringify(w)}, ${n})`,
    () => `        if ${w} is None:`,
    () => `            raise ValueError("invalid ${w}: %r" % (${w},))`,
    () => `        return ${pick(rand, WORDS)}_${n % 13}(${w})`,
    () => `    # ${w} handling for case ${n}`,
    () => "",
  ];
  return pick(rand, shapes)();
}

interface RepoFile {
  path: string;
  lines: string[];
  version: number;
}

/** What one run's tools see: its files (edited as the run goes), its commands' outputs. */
class Repo {
  files: RepoFile[] = [];
  /** Bumped by every edit: a command's output depends on the repo's state. */
  state = 0;
  constructor(
    private rand: Rand,
    private verbosity: number,
    fileChars: number,
  ) {
    const n = 3 + Math.floor(rand() * 9);
    for (let i = 0; i < n; i++) {
      const chars = lognormal(rand, fileChars * verbosity, 0.9, 300, 45_000);
      const lines: string[] = [];
      for (let size = 0, k = 0; size < chars; k++) {
        const line = codeLine(rand, k);
        lines.push(line);
        size += line.length + 1;
      }
      this.files.push({ path: `src/pkg/module_${i}.py`, lines, version: 0 });
    }
  }

  view(file: RepoFile, start: number, count: number): string {
    const end = Math.min(file.lines.length, start + count);
    const body = file.lines
      .slice(start, end)
      .map((l, i) => `${String(start + i + 1).padStart(6)}\t${l}`);
    return `Here's the result of running \`cat -n\` on ${file.path}:\n${body.join("\n")}\n`;
  }

  edit(file: RepoFile): string {
    const at = Math.floor(this.rand() * file.lines.length);
    const n = 1 + Math.floor(this.rand() * 6);
    file.lines.splice(
      at,
      Math.floor(this.rand() * 3),
      ...Array.from({ length: n }, (_, i) => `        # fixed (${file.version}.${i})`),
    );
    file.version++;
    this.state++;
    return `The file ${file.path} has been edited. ${this.view(file, Math.max(0, at - 5), 12 + n)}Review the changes and make sure they are as expected.`;
  }

  /** Output of a command; the same command in the same repo state prints the same bytes. */
  command(name: string, median: number, sigma: number, max: number): string {
    const r = mulberry32(hash(`${name}@${this.state}`));
    const chars = lognormal(r, median * this.verbosity, sigma, 40, max);
    const out: string[] = [`$ ${name}`];
    for (let size = 0, k = 0; size < chars; k++) {
      const line =
        r() < 0.03
          ? `E       AssertionError: expected ${k} got ${k + 1}`
          : `tests/test_${k % 17}.py::test_${pick(r, WORDS)}_${k} ${r() < 0.9 ? "PASSED" : "FAILED"}`;
      out.push(line);
      size += line.length + 1;
    }
    return out.join("\n").slice(0, chars);
  }
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

type Action = "read" | "search" | "ls" | "run" | "edit" | "tiny";

function nextAction(rand: Rand, progress: number): Action {
  const r = rand();
  if (progress < 0.4) {
    if (r < 0.4) return "read";
    if (r < 0.7) return "search";
    if (r < 0.82) return "ls";
    if (r < 0.95) return "run";
    return "tiny";
  }
  if (r < 0.28) return "edit";
  if (r < 0.6) return "run";
  if (r < 0.85) return "read";
  if (r < 0.93) return "search";
  return "tiny";
}

/** One tool call's name, arguments and output. */
function act(rand: Rand, repo: Repo, action: Action, windows: Map<string, number>, shape: Shape) {
  const file = repo.files[zipf(rand, repo.files.length)] as RepoFile;
  switch (action) {
    case "read": {
      // a whole-file view, or a window at one of the few places this run looks at in the file
      const whole = rand() < shape.wholeFile;
      const key = file.path;
      if (!windows.has(key) || rand() < 0.3)
        windows.set(key, Math.floor(rand() * Math.max(1, file.lines.length - 60)));
      const start = whole ? 0 : (windows.get(key) as number);
      const count = whole ? file.lines.length : 60 + Math.floor(rand() * 3) * 40;
      return {
        name: "str_replace_editor",
        args: {
          command: "view",
          path: file.path,
          ...(whole ? {} : { view_range: [start, count] }),
        },
        output: repo.view(file, start, count),
      };
    }
    case "edit": {
      const code = file.lines.slice(0, 400).join("\n");
      const half = Math.floor(lognormal(rand, shape.editArgsChars, 0.9, 20, 8000) / 2);
      return {
        name: "str_replace_editor",
        args: {
          command: "str_replace",
          path: file.path,
          old_str: code.slice(0, half),
          new_str: `${code.slice(0, half - 20)}  # fixed`,
        },
        output:
          rand() < 0.2
            ? `No replacement was performed: old_str did not appear verbatim in ${file.path}.`
            : repo.edit(file),
      };
    }
    case "search": {
      const word = pick(rand, WORDS);
      if (rand() < 0.15)
        return { name: "bash", args: { command: `grep -rn ${word}_x src` }, output: "" };
      return {
        name: "bash",
        args: { command: `grep -rn ${word} src` },
        output: repo.command(`grep -rn ${word} src`, 900, 1.2, 30_000),
      };
    }
    case "ls":
      return {
        name: "bash",
        args: { command: "find src -name '*.py'" },
        output: repo.command("find", 700, 0.8, 6000),
      };
    case "run": {
      const cmd = pick(rand, [
        "python reproduce.py",
        "python -m pytest tests/test_pkg.py",
        "python -m pytest tests/test_pkg.py -x -q",
      ]);
      return {
        name: "bash",
        args: { command: cmd },
        output: repo.command(cmd, shape.commandChars, 1.4, 50_000),
      };
    }
    default:
      return {
        name: "bash",
        args: { command: "git diff --stat" },
        output: repo.command("git diff --stat", 120, 0.8, 600),
      };
  }
}

/** One generated SWE-bench-shaped trajectory; the same seed gives the same bytes. */
export function realShapedTrajectory(
  seed: number,
  shape: Shape = SCAFFOLDS[seed % SCAFFOLDS.length] as Shape,
): Trajectory {
  const rand = mulberry32(seed * 7919 + 17);
  const turns = lognormal(rand, shape.turnsMedian, shape.turnsSigma, 3, shape.turnsMax);
  const verbosity = lognormal(rand, 100 * shape.verbosity, 0.4, 10, 400) / 100;
  const repo = new Repo(rand, verbosity, shape.fileChars);
  const windows = new Map<string, number>();
  const rounds: ChatMessage[][] = [];
  for (let t = 0; t < turns; t++) {
    const calls = rand() < 0.08 ? 2 : 1;
    const done = Array.from({ length: calls }, () =>
      act(rand, repo, nextAction(rand, t / turns), windows, shape),
    );
    const ids = done.map((_, c) => `toolu_${seed}_${t}_${c}`);
    const thought = lognormal(rand, shape.thoughtChars, shape.thoughtSigma, 0, 6000);
    rounds.push([
      {
        role: "assistant",
        content: "Let me look at how the handler resolves the cached value. "
          .repeat(110)
          .slice(0, thought),
        tool_calls: done.map((d, c) => ({
          id: ids[c] as string,
          type: "function",
          name: d.name,
          arguments: d.args,
        })),
      },
      ...done.map(
        (d, c): ChatMessage => ({
          role: "tool",
          tool_call_id: ids[c] as string,
          content: d.output,
        }),
      ),
    ]);
  }
  const taskChars = lognormal(rand, 2000, 0.7, 300, 12_000);
  return {
    prefixTokens: lognormal(rand, shape.prefixTokens, 0.4, 1000, 12_000),
    task: {
      role: "user",
      content: `<issue>\n${"Calling Handler.resolve() after reload() returns the stale value. ".repeat(200).slice(0, taskChars)}\n</issue>`,
    },
    rounds,
  };
}

export const DEV_SEEDS = Array.from({ length: 48 }, (_, i) => i + 1);
export const HELDOUT_SEEDS = Array.from({ length: 48 }, (_, i) => i + 1001);
