import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { stripControl } from "../output/terminal.ts";

/** Most diff lines an approval shows; the rest is summarised in one line. */
const MAX_DIFF_LINES = 40;

export interface PreviewInput {
  tool: string;
  args: Record<string, unknown>;
  cwd: string;
  reason: string;
}

/**
 * What an approval prompt shows under its head line: the full command and where it runs, or the
 * change a file edit makes as a diff (trimmed for large edits), then the reason in the REPL's words.
 */
export function approvalDetail(input: PreviewInput): string {
  const lines: string[] = [];
  const text = (key: string) =>
    typeof input.args[key] === "string" ? (input.args[key] as string) : undefined;
  if (input.tool === "run_command" || input.tool === "run_tests") {
    const dir = text("dir");
    lines.push(`$ ${stripControl(text("cmd") ?? "")}`);
    lines.push(`in ${dir ? resolve(input.cwd, dir) : input.cwd}`);
  } else if (input.tool === "write_file" && text("file")) {
    const path = resolveIn(input.cwd, text("file") as string);
    const before = input.args["append"] === true ? undefined : readOrUndefined(path);
    const after = text("content") ?? "";
    lines.push(...trimDiff(before === undefined ? added(after) : lineDiff(before, after)));
  } else if (input.tool === "patch_file") {
    const diff = text("diff");
    if (diff) lines.push(...trimDiff(stripControl(diff).split("\n")));
    else {
      const edit = { search: text("search") ?? "", replace: text("replace") ?? "" };
      lines.push(...trimDiff(editPreview(input.cwd, text("file") ?? "", [edit])));
    }
  } else if (input.tool === "multipatch") {
    lines.push(...trimDiff(multipatchPreview(input.cwd, input.args["edits"])));
  }
  const reason = replReason(input.reason);
  if (reason) lines.push(`(${reason})`);
  return lines.join("\n");
}

/** The policy's reason without CLI flags: in the REPL the answer to "why" is this very prompt. */
export function replReason(reason: string): string {
  return reason
    .replace(/ need --permission-mode \S+ \((\S+) mode\)/g, " need approval in $1 mode")
    .replace(/ \(allow with [^)]*\)/g, "");
}

interface Edit {
  search: string;
  replace: string;
}

/**
 * The file's own lines around search/replace edits, applied in order as patch_file and multipatch
 * apply them (CRLF files take LF search text); what cannot be applied is said, with the fragments.
 */
function editPreview(cwd: string, file: string, edits: readonly Edit[]): string[] {
  const shown = stripControl(file);
  const before = readOrUndefined(resolveIn(cwd, file));
  const fragments = (e: Edit) => lineDiff(e.search, e.replace);
  if (before === undefined) return [`(cannot read ${shown})`, ...edits.flatMap(fragments)];
  let after = before;
  for (const e of edits) {
    const crlf = !after.includes(e.search) && after.includes("\r\n");
    const search = crlf ? e.search.replace(/\n/g, "\r\n") : e.search;
    const at = e.search === "" ? -1 : after.indexOf(search);
    if (at < 0) return [`(the search text is not in ${shown})`, ...fragments(e)];
    const replace = crlf ? e.replace.replace(/\n/g, "\r\n") : e.replace;
    after = after.slice(0, at) + replace + after.slice(at + search.length);
  }
  return lineDiff(before.replace(/\r\n/g, "\n"), after.replace(/\r\n/g, "\n"));
}

/** multipatch: one diff per file (first-seen order), each headed by the file's name. */
function multipatchPreview(cwd: string, raw: unknown): string[] {
  const byFile = new Map<string, Edit[]>();
  for (const e of Array.isArray(raw) ? raw : []) {
    const { file, search, replace } = (e ?? {}) as Record<string, unknown>;
    if (typeof file !== "string" || typeof search !== "string" || typeof replace !== "string")
      continue;
    byFile.set(file, [...(byFile.get(file) ?? []), { search, replace }]);
  }
  return [...byFile].flatMap(([file, edits]) => [
    stripControl(file),
    ...editPreview(cwd, file, edits),
  ]);
}

function resolveIn(cwd: string, file: string): string {
  return isAbsolute(file) ? file : resolve(cwd, file);
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function added(text: string): string[] {
  return splitLines(text).map((l) => `+${l}`);
}

function splitLines(text: string): string[] {
  const lines = stripControl(text).split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * A line diff (`-` old, `+` new, ` ` unchanged context) from the common prefix and suffix: edits
 * are usually one region, and this stays linear on large files.
 */
export function lineDiff(before: string, after: string): string[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const context = (from: number, to: number) => a.slice(from, to).map((l) => ` ${l}`);
  return [
    ...context(Math.max(0, head - 2), head),
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
    ...context(a.length - tail, Math.min(a.length, a.length - tail + 2)),
  ];
}

function trimDiff(lines: string[]): string[] {
  if (lines.length <= MAX_DIFF_LINES) return lines;
  const more = lines.length - MAX_DIFF_LINES;
  return [...lines.slice(0, MAX_DIFF_LINES), `… ${more} more line${more === 1 ? "" : "s"}`];
}

/** Most output lines shown under a finished command in the REPL (the model gets all of it). */
const OUTPUT_LINES = 5;

/**
 * The last lines of a finished command's output, indented under its `▸ run_command … → exit 0`
 * line: the human sees what the approved command did, not only its exit code.
 */
export function commandOutputPreview(output: string, max = OUTPUT_LINES): string[] {
  const lines = stripControl(output)
    .replace(/^exit code: \S+\n?/m, "")
    .split("\n")
    .filter((l) => l.trim() !== "" && l !== "[stderr]")
    .map((l) => (l.length > 160 ? `${l.slice(0, 159)}…` : l));
  const shown = lines.slice(-max).map((l) => `  │ ${l}`);
  return lines.length > max ? [`  │ … ${lines.length - max} earlier lines`, ...shown] : shown;
}

/**
 * What an `a` (always) answer covers for the rest of the session: a file tool by name, a command by
 * its first word (`npm …`). Undefined for calls that must be asked every time.
 */
export function alwaysScope(tool: string, args: Record<string, unknown>): string | undefined {
  if (tool !== "run_command" && tool !== "run_tests") return tool;
  const cmd = typeof args["cmd"] === "string" ? args["cmd"].trim() : "";
  const word = /^[A-Za-z0-9_./-]+/.exec(cmd)?.[0];
  if (!word || /[;&|`$<>()]/.test(cmd)) return undefined; // a compound command is asked each time
  return `${tool} ${word} …`;
}
