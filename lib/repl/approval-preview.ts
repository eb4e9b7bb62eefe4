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
    else lines.push(...trimDiff(lineDiff(text("search") ?? "", text("replace") ?? "")));
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
