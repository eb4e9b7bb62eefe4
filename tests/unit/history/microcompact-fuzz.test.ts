// A seeded fuzzer for docs/compaction.md "Microcompact pays for itself": with the default policy an
// agent run, stopped after any request, never writes more to the cache (Anthropic model) nor sends
// more uncached input (OpenAI model, before rounding) than the same run without microcompaction, and
// the last two turns always go out as the tools returned them. GENERATED adversarial trajectories:
// outputs of 0 chars to 200k, up to 25 parallel calls a round (past Anthropic's 20-block lookback),
// exact repeats (of results long cleared too), near-repeats of numbered file views (`cat -n`, `N→`,
// `N | `, SWE-agent's `N:`) after edits and in wider or shifted windows, test reruns with a few lines
// changed, long assistant texts and long (nested) call arguments, turns that must stay as sent
// (reasoning, thought signatures), turns without calls, 1–200 rounds, prompts of 0 to 150k tokens,
// cold-cache spells at random requests, and sizes biased towards the chars/4 rounding edges.
// The budget test and the minimised counterexamples below FAIL on the library as it is (issue found
// by this fuzzer: the write budget is kept in chars / 4, the bill in ceil(chars / 4) per message;
// and a pointer's base is not protected when call ids repeat across turns).
import { describe, expect, test } from "bun:test";
import { uniqueCallIds } from "../../../lib/agent/call-ids.ts";
import { microcompact, newMicrocompactState } from "../../../lib/history/microcompact.ts";
import { duplicateLine, summaryLine } from "../../../lib/history/microcompact-forms.ts";
import type { ChatMessage, ToolCall } from "../../../lib/llm/types.ts";
import { mulberry32 } from "../../support/devset.ts";
import { neverAbove, type ReplayResult, replay, type Trajectory } from "../../support/replay.ts";

type Rand = () => number;

const int = (rand: Rand, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(rand: Rand, items: readonly T[]): T =>
  items[Math.floor(rand() * items.length)] as T;
/** Log-uniform in [lo, hi]: tiny and huge both come up. */
const logUniform = (rand: Rand, lo: number, hi: number) =>
  Math.round(Math.exp(Math.log(lo) + rand() * (Math.log(hi) - Math.log(lo))));

const WORDS = [
  "value",
  "config",
  "request",
  "handler",
  "cache",
  "result",
  "index",
  "parser",
  "token",
  "stream",
  "buffer",
  "session",
];

function codeLine(rand: Rand, n: number): string {
  const w = pick(rand, WORDS);
  switch (int(rand, 0, 8)) {
    case 0:
      return `    def ${w}_${n}(self, ${pick(rand, WORDS)}=None):`;
    case 1:
      return `        ${w} = self._${pick(rand, WORDS)}.get(${JSON.stringify(w)}, ${n})`;
    case 2:
      return `        if ${w} is None:`;
    case 3:
      return `            raise ValueError("invalid ${w}: %r" % (${w},))`;
    case 4:
      return `        return ${pick(rand, WORDS)}_${n % 13}(${w})`;
    case 5:
      return `    # ${w} handling for case ${n}`;
    case 6:
      return "}";
    case 7:
      return "    ".repeat(int(rand, 0, 3)) + "x".repeat(int(rand, 0, 140));
    default:
      return "";
  }
}

/** Fresh text of exactly `chars` chars (lines of varied length; sometimes one long line). */
function freshText(rand: Rand, chars: number, salt: number): string {
  if (chars <= 0) return "";
  if (rand() < 0.05) return `${salt}:${"z".repeat(chars)}`.slice(0, chars);
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < chars; n++) {
    const line =
      rand() < 0.5
        ? `[${salt}.${n}] ${pick(rand, WORDS)} ${codeLine(rand, n)}`
        : `${salt}-${n} ${pick(rand, WORDS)}=${Math.floor(rand() * 1e9)} ${"-".repeat(int(rand, 0, 90))}`;
    parts.push(line);
    size += line.length + 1;
  }
  return parts.join("\n").slice(0, chars);
}

type Style = "catn" | "arrow" | "pipe" | "swe" | "plain" | "zero";

interface FileModel {
  path: string;
  lines: string[];
  style: Style;
  width: number;
}

function numbered(style: Style, n: number, width: number, line: string): string {
  switch (style) {
    case "catn":
      return `${String(n).padStart(6)}\t${line}`;
    case "arrow":
      return `${String(n).padStart(6)}→${line}`;
    case "pipe":
      return `${String(n).padStart(width)} | ${line}`;
    case "swe":
      return `${n}:${line}`;
    case "zero":
      return `${String(n).padStart(width, "0")}: ${line}`;
    default:
      return line;
  }
}

function view(rand: Rand, f: FileModel, start: number, count: number): string {
  const end = Math.min(f.lines.length, start + count);
  const body = f.lines
    .slice(start, end)
    .map((l, i) => numbered(f.style, start + i + 1, f.width, l));
  const crlf = f.style === "swe" && rand() < 0.2;
  const header =
    f.style === "swe"
      ? [`[File: ${f.path} (${f.lines.length} lines total)]`, `(${start} more lines above)`]
      : f.style === "catn" || f.style === "arrow"
        ? [`Here's the result of running \`cat -n\` on ${f.path}:`]
        : [];
  const footer =
    f.style === "swe" ? [`(${Math.max(0, f.lines.length - end)} more lines below)`] : [];
  const text = [...header, ...body, ...footer].join(crlf ? "\r\n" : "\n");
  return rand() < 0.5 ? `${text}\n` : text;
}

function edit(rand: Rand, f: FileModel, tag: string): void {
  const edits = int(rand, 1, 4);
  for (let e = 0; e < edits; e++) {
    const at = int(rand, 0, f.lines.length);
    const del = rand() < 0.5 ? int(rand, 0, 5) : 0;
    const add = Array.from(
      { length: rand() < 0.2 ? int(rand, 20, 200) : int(rand, 0, 6) },
      (_, i) => `        # fixed ${tag}.${e}.${i}`,
    );
    f.lines.splice(at, del, ...add);
  }
}

function testOutput(rand: Rand, tests: number, failing: ReadonlySet<number>, run: number): string {
  const lines = [`============ test session starts (run ${run}) ============`];
  for (let k = 0; k < tests; k++)
    lines.push(
      `tests/test_${k % 17}.py::test_${WORDS[k % WORDS.length]}_${k} ${failing.has(k) ? "FAILED" : "PASSED"}`,
    );
  for (const k of failing)
    lines.push(`E       AssertionError: expected ${k} got ${k + 1}`, `    at line ${k * 7}`);
  lines.push(
    `====== ${failing.size} failed, ${tests - failing.size} passed in ${(rand() * 20).toFixed(2)}s ======`,
  );
  return lines.join("\n");
}

interface Profile {
  rounds: number;
  maxCalls: number;
  manyCalls: number;
  sizeHi: number;
  repeat: number;
  near: number;
  assistantHi: number;
  longArgs: number;
  sealed: number;
  noCalls: number;
  feedback: number;
  /** Pad outputs to a multiple of 4 chars (chars/4 estimates exact for them, not for their pointers). */
  round4: number;
  /** Lines of the biggest file a run views (whole-file views of it are near-repeats). */
  fileLinesHi: number;
  /**
   * Pad outputs and pick call ids so that chars/4 overestimates what each pointer and each clearing
   * saves by ¾ token (the output a multiple of 4 chars, its pointer and summary line 1 more).
   */
  tune: boolean;
}

/**
 * `content` padded with spaces (at most 40) to a multiple of 4 chars whose summary line is 1 char
 * past one, and an id suffix (0–3 chars) for which its pointer line is too.
 */
function tuned(content: string): { content: string; idPad: number } {
  for (let pad = 0; pad <= 40; pad++) {
    const c = content + " ".repeat(pad);
    if (c.length % 4 !== 0 || summaryLine(c).length % 4 !== 1) continue;
    for (let idPad = 0; idPad < 4; idPad++)
      if (duplicateLine(c, `${"t".repeat(20)}${"x".repeat(idPad)}`).length % 4 === 1)
        return { content: c, idPad };
  }
  return { content, idPad: 0 };
}

function profile(rand: Rand): Profile {
  const kind = rand();
  const rounds =
    kind < 0.1
      ? int(rand, 1, 4)
      : kind < 0.85
        ? logUniform(rand, 3, 30)
        : kind < 0.97
          ? logUniform(rand, 30, 90)
          : logUniform(rand, 90, 200);
  // the longer the run, the smaller its outputs (the replay is quadratic in the history)
  const size = rounds <= 30 ? 0 : rounds <= 90 ? 1 : 2;
  return {
    rounds,
    maxCalls: [rand() < 0.3 ? int(rand, 3, 8) : int(rand, 1, 2), int(rand, 1, 3), int(rand, 1, 2)][
      size
    ] as number,
    manyCalls: size === 0 && rand() < 0.25 ? 0.2 : size === 1 && rand() < 0.1 ? 0.05 : 0,
    sizeHi: pick(
      rand,
      [
        [1500, 6000, 20_000, 60_000, 200_000],
        [1500, 6000, 20_000],
        [1000, 2000, 4000],
      ][size] as number[],
    ),
    fileLinesHi: [3000, 600, 150][size] as number,
    repeat: rand() * 0.5,
    near: rand() * 0.6,
    assistantHi: pick(rand, [1, 400, 4000, size === 2 ? 4000 : 30_000]),
    longArgs: rand() * 0.6,
    sealed: rand() < 0.2 ? rand() * 0.5 : 0,
    noCalls: rand() < 0.2 ? rand() * 0.3 : 0,
    feedback: rand() < 0.1 ? 0.3 : 0,
    round4: rand() < 0.3 ? 0.8 : 0,
    tune: rand() < 0.3,
  };
}

/** One adversarial trajectory; the same seed gives the same bytes. */
export function fuzzTrajectory(seed: number): Trajectory {
  const rand = mulberry32(seed * 2654435761 + 7);
  const p = profile(rand);
  const files: FileModel[] = [];
  const nFiles = int(rand, 1, 6);
  for (let i = 0; i < nFiles; i++) {
    const n = logUniform(rand, 5, rand() < 0.2 ? p.fileLinesHi : Math.min(600, p.fileLinesHi));
    files.push({
      path: `src/pkg/mod_${i}.py`,
      lines: Array.from({ length: n }, (_, k) => codeLine(rand, k)),
      style: pick(rand, ["catn", "arrow", "pipe", "swe", "plain", "zero"] as const),
      width: int(rand, 1, 6),
    });
  }
  const windows = new Map<FileModel, [number, number]>();
  const tests = int(rand, 5, 400);
  let failing = new Set(Array.from({ length: int(rand, 0, 8) }, () => int(rand, 0, tests - 1)));
  let lastTest: string | undefined;
  const outputs: string[] = [];
  const idLen = pick(rand, [0, 3, 12, 30]);
  const rounds: ChatMessage[][] = [];
  let resultCount = 0;

  // a run's budget (the replay is quadratic in results and their lines): past it, small outputs only
  let chars = 0;
  const budget = logUniform(rand, 20_000, 800_000);
  const output = (t: number, c: number): string => {
    const r = rand();
    if (chars > budget) {
      const small = outputs.filter((o) => o.length < 2000);
      if (r < p.repeat && small.length) return pick(rand, small);
      return freshText(rand, logUniform(rand, 1, 1200), t * 100 + c);
    }
    if (r < p.repeat && outputs.length) {
      // an exact repeat: the latest, any earlier one (cleared long ago, maybe), or the test again
      return rand() < 0.5 ? (outputs.at(-1) as string) : pick(rand, outputs);
    }
    if (r < p.repeat + p.near) {
      const f = pick(rand, files);
      const kind = rand();
      if (kind < 0.25) edit(rand, f, `${t}.${c}`);
      if (kind < 0.75) {
        const w = windows.get(f);
        let start = w?.[0] ?? 0;
        let count = w?.[1] ?? f.lines.length;
        const move = rand();
        if (!w || move < 0.2) {
          start = int(rand, 0, Math.max(0, f.lines.length - 1));
          count = rand() < 0.3 ? f.lines.length : int(rand, 10, 300);
        } else if (move < 0.45) {
          start = Math.max(0, start - int(rand, 0, 40));
          count += int(rand, 0, 120);
        } else if (move < 0.6) start += int(rand, -20, 20);
        start = Math.max(0, Math.min(start, f.lines.length - 1));
        windows.set(f, [start, count]);
        return view(rand, f, start, count);
      }
      // a test rerun: a few results flipped
      if (rand() < 0.6 || !lastTest) {
        const next = new Set(failing);
        for (let k = int(rand, 0, 3); k > 0; k--) {
          const x = int(rand, 0, tests - 1);
          if (next.has(x)) next.delete(x);
          else next.add(x);
        }
        failing = next;
      }
      lastTest = testOutput(rand, tests, failing, t);
      return lastTest;
    }
    const tiny = rand() < 0.25;
    const size = tiny
      ? pick(rand, [0, 1, 2, 3, 4, 17, 60, 255, 256, 257, 399, 400, 401, 999, 1000, 1001])
      : logUniform(rand, 1, p.sizeHi);
    return freshText(rand, size, t * 100 + c);
  };

  const longArg = (): string =>
    freshText(rand, pick(rand, [299, 300, 301, logUniform(rand, 300, 20_000)]), int(rand, 0, 1e6));

  for (let t = 0; t < p.rounds; t++) {
    const thought = logUniform(rand, 1, p.assistantHi) - 1;
    const content = rand() < 0.4 ? "" : freshText(rand, thought, -t);
    if (rand() < p.noCalls) {
      const round: ChatMessage[] = [{ role: "assistant", content: content || "Thinking…" }];
      if (rand() < p.feedback)
        round.push({
          role: "user",
          content: `Your reply was cut off. ${freshText(rand, int(rand, 0, 3000), t)}`,
          meta: { agent_feedback: true },
        });
      rounds.push(round);
      continue;
    }
    const n =
      resultCount > 160 ? 1 : rand() < p.manyCalls ? int(rand, 8, 25) : int(rand, 1, p.maxCalls);
    resultCount += n;
    const sealed = rand() < p.sealed;
    const calls: ToolCall[] = [];
    const results: ChatMessage[] = [];
    for (let c = 0; c < n; c++) {
      let out = output(t, c);
      if (rand() < p.round4 && out.length % 4 !== 0) out += " ".repeat(4 - (out.length % 4));
      let pad = idLen;
      if (p.tune) ({ content: out, idPad: pad } = tuned(out));
      // `toolu_` + 4 digits and `_`: the tuned suffix keeps the pointer line's length mod 4
      const id =
        `toolu_${String(seed % 10_000).padStart(4, "0")}_${t}_${c}`.padEnd(20, "_") +
        "x".repeat(pad);
      outputs.push(out);
      chars += out.length;
      const args: Record<string, unknown> =
        rand() < p.longArgs
          ? pick(rand, [
              () => ({
                command: "str_replace",
                path: "src/a.py",
                old_str: longArg(),
                new_str: longArg(),
              }),
              () => ({ command: "create", path: "src/b.py", file_text: longArg() }),
              () => ({
                edits: [
                  { old: longArg(), new: "x" },
                  { old: "y", new: longArg() },
                ],
              }),
              () => ({ command: `python - <<'EOF'\n${longArg()}\nEOF` }),
            ])()
          : { command: `cat src/pkg/mod_${c}.py`, n: t };
      const call: ToolCall = {
        id,
        type: "function",
        name: pick(rand, ["bash", "str_replace_editor", "read_file"]),
        arguments: args,
      };
      if (sealed && c === 0) {
        if (rand() < 0.5) call.thought_signature = `sig_${t}`;
        else
          call.thinking = [
            { type: "thinking", thinking: freshText(rand, 500, t), signature: "s" },
          ] as never;
      }
      calls.push(call);
      results.push({ role: "tool", tool_call_id: id, content: out });
    }
    rounds.push([{ role: "assistant", content, tool_calls: calls }, ...results]);
  }

  const coldKind = rand();
  let coldAt: number[] | undefined;
  if (coldKind < 0.3) {
    coldAt = [];
    const rate = pick(rand, [0.05, 0.15, 0.4, 0.8]);
    for (let i = 0; i <= p.rounds; i++) if (rand() < rate) coldAt.push(i);
  } else if (coldKind < 0.4) {
    const every = int(rand, 2, 8);
    coldAt = Array.from({ length: p.rounds + 1 }, (_, i) => i).filter(
      (i) => i % every === every - 1,
    );
  }
  return {
    prefixTokens: pick(rand, [
      0,
      1,
      50,
      1024,
      1500,
      6000,
      30_000,
      150_000,
      logUniform(rand, 1, 20_000),
    ]),
    task: { role: "user", content: freshText(rand, logUniform(rand, 1, 40_000), -1) },
    rounds,
    ...(coldAt ? { coldAt } : {}),
  };
}

/** Where the default first goes above off, if anywhere, and by how much (cumulative tokens). */
function firstAbove(on: ReplayResult, off: ReplayResult) {
  let writes = 0;
  let uncached = 0;
  for (const [i, r] of on.requests.entries()) {
    writes += r.anthropicWrite - (off.requests[i]?.anthropicWrite as number);
    uncached += r.openaiUncachedExact - (off.requests[i]?.openaiUncachedExact as number);
    if (writes > 0 || uncached > 0) return { request: i, writes, uncached };
  }
  return undefined;
}

describe("microcompact fuzz: the default never above off, the last two turns verbatim", () => {
  test("a few thousand adversarial trajectories", () => {
    const failures: string[] = [];
    let requests = 0;
    let clearings = 0;
    let pointers = 0;
    let recipes = 0;
    const started = performance.now();
    // 600 runs here (~6 s); FUZZ_RUNS=… for more (1800 and 8,000 seeds were run with the fix)
    const N = Number(process.env["FUZZ_RUNS"] ?? 600);
    const seeds = Array.from({ length: N }, (_, i) => i + 1);
    for (const seed of seeds) {
      const t = fuzzTrajectory(seed);
      const on = replay(t, {});
      const off = replay(t, "none");
      requests += on.requests.length;
      clearings += on.clearings;
      pointers += on.deduplicated;
      recipes += on.delta;
      if (!neverAbove(on.requests, off.requests)) {
        const f = firstAbove(on, off);
        failures.push(
          `seed ${seed}: above off after request ${f?.request} (writes ${f?.writes}, uncached ${f?.uncached})`,
        );
      }
      if (!on.lastTwoVerbatim) failures.push(`seed ${seed}: last two turns not verbatim`);
    }
    console.log(
      `fuzz: ${seeds.length} runs, ${requests} requests, ${clearings} clearings, ${pointers} pointers, ${recipes} recipes, ${Math.round(performance.now() - started)} ms`,
    );
    expect(failures).toEqual([]);
  });

  test("the write budget (state.credit) never exceeds what the run actually saved so far", () => {
    // A clearing may spend the whole credit, so the credit must stay at or below the tokens the run
    // is actually below off (cache writes and uncached input); when it is above, a clearing that
    // spends it to the token goes above off. The loop's microcompact, with its state in sight:
    // the same calls replay(t, {}) makes.
    const failures: string[] = [];
    let worst = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const t = fuzzTrajectory(seed);
      const state = newMicrocompactState();
      const credit: number[] = [];
      const on = replay(t, {
        compact: (history, turn) => {
          const cold = t.coldAt?.includes(turn) ? { idleMs: 1, cacheTtlMs: 1 } : {};
          const mc = microcompact(history, turn, {}, { state, ...cold });
          credit.push(state.credit);
          return mc.messages;
        },
      });
      const off = replay(t, "none");
      if (seed % 50 === 0) expect(on.requests).toEqual(replay(t, {}).requests);
      let writes = 0;
      let uncached = 0;
      for (const [i, r] of on.requests.entries()) {
        writes += (off.requests[i]?.anthropicWrite as number) - r.anthropicWrite;
        uncached += (off.requests[i]?.openaiUncachedExact as number) - r.openaiUncachedExact;
        const over = (credit[i] as number) - Math.min(writes, uncached);
        if (over >= 1) {
          worst = Math.max(worst, over);
          failures.push(
            `seed ${seed}: after request ${i} the credit is ${over} tokens above the saving`,
          );
          break;
        }
      }
    }
    expect({ runs: failures.length, worst, first: failures.slice(0, 5) }).toEqual({
      runs: 0,
      worst: 0,
      first: [],
    });
  });
});

// Counterexamples, minimised (found by the fuzzer). They failed before the budget counted in the
// bill's unit: the write budget (state.credit)
// adds what a pointer or recipe saved as chars / 4, and at a cold spell adds `freed`, also summed
// as chars / 4; the provider (and the replay) count each message as ceil(chars / 4) + 4 — now the
// credit is messageTokens(before) − messageTokens(after) too. A 400-char
// output (100 tokens) replaced by a 69-char pointer (18 tokens) saves 82 tokens but is credited
// 82.75; a clearing then spends the credit to the token.
const bash = (id: string, out: string, text = ""): ChatMessage[] => [
  {
    role: "assistant",
    content: text,
    tool_calls: [{ id, type: "function", name: "bash", arguments: {} }],
  },
  { role: "tool", tool_call_id: id, content: out },
];

describe("counterexamples: the credit counts chars / 4, the bill ceil(chars / 4) per message", () => {
  test("4 rounds: two pointers credited 163.5 tokens saved 162; the clearing rewrites 163 (1 token above off)", () => {
    // X: 400 chars; its pointer `[Same output as tool call toolu_01 above (unchanged): 1 lines, 400 chars]`: 73
    const X = "x".repeat(400);
    const t: Trajectory = {
      prefixTokens: 1500,
      task: { role: "user", content: "Fix the failing test." },
      rounds: [
        bash("toolu_01", X),
        bash("toolu_02", "u".repeat(4000)),
        bash("toolu_03", X, "a".repeat(440)),
        bash("toolu_04", X),
      ],
    };
    const on = replay(t, {});
    const off = replay(t, "none");
    expect(firstAbove(on, off)).toBeUndefined();
  });

  test("amplified by cold spells: 79 pointers credited again after each of 9 idle spells, one clearing spends it all", () => {
    const X = "x".repeat(400);
    const rounds: ChatMessage[][] = [];
    for (let r = 0; r < 10; r++) {
      // 8 parallel reads of the same 400-char output (4-char ids: 69-char pointers)
      const ids = Array.from({ length: 8 }, (_, c) => `c${r}${c}_`);
      rounds.push([
        {
          role: "assistant",
          content: "",
          tool_calls: ids.map((id) => ({ id, type: "function", name: "bash", arguments: {} })),
        },
        ...ids.map((id): ChatMessage => ({ role: "tool", tool_call_id: id, content: X })),
      ]);
    }
    rounds.push(bash("u000", "u".repeat(200_000)));
    // the model's long write-up makes the one clearing (of u000) rewrite exactly the credit
    rounds.push(bash("p110", X, "a".repeat(142_784)));
    rounds.push(bash("p120", X));
    const t: Trajectory = {
      prefixTokens: 0,
      task: { role: "user", content: "t" },
      rounds,
      coldAt: [2, 3, 4, 5, 6, 7, 8, 9, 10],
    };
    expect(firstAbove(replay(t, {}), replay(t, "none"))).toBeUndefined();
  });
});

describe("duplicate call ids (chatcli names calls call_0 / gemini_call_1 when the server sends none)", () => {
  test("the loop renames a repeated id, so a pointer's base is the result it names and stays verbatim", () => {
    const X = Array.from({ length: 100 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    const rounds = [bash("call_0", X), bash("call_0", "ok"), bash("call_0", X)];
    const state = newMicrocompactState();
    let history: ChatMessage[] = [{ role: "user", content: "t" }];
    for (let t = 0; t <= rounds.length; t++) {
      history = microcompact(history, t, {}, { state }).messages;
      if (t === rounds.length) break;
      // as lib/agent/loop.ts does with each reply before its calls run
      const [reply, ...results] = rounds[t] as ChatMessage[];
      const calls = uniqueCallIds(reply?.tool_calls ?? [], history, t);
      history.push({ ...(reply as ChatMessage), tool_calls: calls });
      for (const [i, r] of results.entries())
        history.push({ ...r, tool_call_id: (calls[i] as ToolCall).id });
    }
    expect(history.map((m) => m.tool_call_id ?? m.tool_calls?.[0]?.id ?? "")).toEqual([
      "",
      "call_0",
      "call_0",
      "call_0_t1",
      "call_0_t1",
      "call_0_t2",
      "call_0_t2",
    ]);
    // the newest result is a pointer to the first, which is still there verbatim
    expect(history[6]?.content).toStartWith("[Same output as tool call call_0 above");
    expect(history[2]?.content).toBe(X);
  });
});
