// Near-repeats (issue 23): a new tool result that is mostly an earlier result still verbatim in the
// history — the same file viewed again after an edit, a wider window of a file already shown, a test
// run whose output changed in a few lines — goes out as a recipe built from that earlier output: runs
// of its lines, and the lines that are new. It was never sent, so nothing cached changes; the model
// has the earlier output in front of it (it stays verbatim as long as the recipe would have).

/**
 * A line of a numbered file view: `cat -n` (`     7\t…`), `     7→…`, chatcli's read_file
 * (`  7 | …`), SWE-agent's windowed viewer (`1457:…`). A number with a leading zero is not one (it
 * could not be renumbered byte for byte).
 */
const NUMBERED = /^( *)([1-9]\d*)(\t|→| \| |:)/;

interface Line {
  /** What must match: the line without its number when numbered. */
  key: string;
  /** The view's line number, or -1. */
  num: number;
}

function linesOf(content: string): { raw: string[]; lines: Line[] } {
  const raw = content.split("\n");
  const lines = raw.map((text): Line => {
    const m = NUMBERED.exec(text);
    if (!m) return { key: text, num: -1 };
    // the number's width is part of the key: a run renumbered keeps its padding, so it rebuilds exactly
    const width = (m[1] as string).length + (m[2] as string).length;
    return { key: `\u0001${width}${m[3]}${text.slice(m[0].length)}`, num: Number(m[2]) };
  });
  return { raw, lines };
}

interface Segment {
  /** A run of the base's lines [from, from + count), 0-based, their numbers shifted by `shift`. */
  from: number;
  count: number;
  shift: number;
}

/** Copy runs shorter than this many lines are written out instead (a reference costs a line too). */
const MIN_RUN = 3;
/** Base positions tried per line (a line repeated everywhere, like `}` or a blank, matches many). */
const MAX_TRIES = 8;

/** The longest run of base lines matching `target` from position `i`, numbers shifted consistently. */
function longestRun(base: Line[], target: Line[], i: number, at: readonly number[]) {
  let best: Segment | undefined;
  for (const j of at.slice(0, MAX_TRIES)) {
    const shift = (target[i] as Line).num - (base[j] as Line).num;
    let n = 0;
    while (i + n < target.length && j + n < base.length) {
      const t = target[i + n] as Line;
      const b = base[j + n] as Line;
      if (t.key !== b.key || t.num - b.num !== shift) break;
      n++;
    }
    if (!best || n > best.count) best = { from: j, count: n, shift };
  }
  return best;
}

/** The new output as runs of the base's lines and literal lines. */
function segments(base: Line[], target: Line[]): Array<Segment | number[]> {
  const where = new Map<string, number[]>();
  for (const [j, l] of base.entries()) {
    const list = where.get(l.key);
    if (list) list.push(j);
    else where.set(l.key, [j]);
  }
  const out: Array<Segment | number[]> = [];
  let literal: number[] = [];
  const flush = () => {
    if (literal.length) out.push(literal);
    literal = [];
  };
  for (let i = 0; i < target.length; ) {
    const at = where.get((target[i] as Line).key);
    const run = at ? longestRun(base, target, i, at) : undefined;
    if (run && run.count >= MIN_RUN) {
      flush();
      out.push(run);
      i += run.count;
    } else {
      literal.push(i);
      i++;
    }
  }
  flush();
  return out;
}

function render(baseId: string, content: string, raw: string[], parts: Array<Segment | number[]>) {
  const body: string[] = [];
  for (const p of parts) {
    if (Array.isArray(p)) {
      for (const i of p) body.push(`+${raw[i]}`);
      continue;
    }
    const range = p.count === 1 ? `${p.from + 1}` : `${p.from + 1}-${p.from + p.count}`;
    const shift = p.shift === 0 ? "" : ` (line numbers ${p.shift > 0 ? "+" : ""}${p.shift})`;
    body.push(`=${range}${shift}`);
  }
  return `[Output built from tool call ${baseId}'s output above (${raw.length} lines, ${content.length} chars): "=A-B" is that output's lines A to B (its first line is 1), "+" starts a new line]\n${body.join("\n")}`;
}

export const DELTA =
  /^\[Output built from tool call (\S+)'s output above \((\d+) lines, (\d+) chars\)/;

/** How many of `target`'s lines a base has too (to pick the base worth diffing against). */
function shared(keys: ReadonlySet<string>, base: string): number {
  let n = 0;
  for (const line of linesOf(base).lines) if (keys.has(line.key)) n++;
  return n;
}

/**
 * `content` as a recipe from the earlier output that shares most lines with it, when that saves at
 * least `minSaved` chars and the recipe is at most half the content; undefined otherwise.
 */
export function deltaPointer(
  content: string,
  bases: ReadonlyArray<{ id: string; content: string }>,
  minSaved: number,
): string | undefined {
  const target = linesOf(content);
  if (target.lines.length < 2 * MIN_RUN) return undefined;
  const keys = new Set(target.lines.map((l) => l.key));
  let best: { id: string; content: string } | undefined;
  let bestShared = Math.floor(target.lines.length / 2);
  for (const b of bases) {
    const n = shared(keys, b.content);
    if (n >= bestShared) {
      best = b;
      bestShared = n;
    }
  }
  if (!best) return undefined;
  const text = render(
    best.id,
    content,
    target.raw,
    segments(linesOf(best.content).lines, target.lines),
  );
  if (text.length > content.length / 2 || content.length - text.length < minSaved) return undefined;
  // what the model reads back must be the output itself: a line the numbering rules misread is
  // not worth a wrong byte (the replay checks every recipe too)
  return applyDelta(text, best.content) === content ? text : undefined;
}

/** The output a recipe stands for, given its base's output (the inverse of deltaPointer). */
export function applyDelta(recipe: string, base: string): string {
  const baseLines = base.split("\n");
  const out: string[] = [];
  for (const line of recipe.split("\n").slice(1)) {
    if (line.startsWith("+")) {
      out.push(line.slice(1));
      continue;
    }
    const m = /^=(\d+)(?:-(\d+))?(?: \(line numbers ([+-]?\d+)\))?$/.exec(line);
    if (!m) throw new Error(`not a recipe line: ${line}`);
    const from = Number(m[1]) - 1;
    const to = m[2] === undefined ? from + 1 : Number(m[2]);
    const shift = Number(m[3] ?? 0);
    for (const text of baseLines.slice(from, to)) {
      const n = NUMBERED.exec(text);
      out.push(n && shift ? `${renumber(n, shift)}${text.slice(n[0].length)}` : text);
    }
  }
  return out.join("\n");
}

function renumber(m: RegExpExecArray, shift: number): string {
  const width = (m[1] as string).length + (m[2] as string).length;
  return `${String(Number(m[2]) + shift).padStart(width)}${m[3]}`;
}
