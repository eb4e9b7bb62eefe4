import type { FileOps } from "../../sandbox/file-ops.ts";
import type { Tool } from "../types.ts";
import { fileError, filesOf, resolveWritePath, str, toolError } from "./common.ts";

/** The largest file patch_file and multipatch edit (read whole, in memory). */
export const MAX_PATCH_BYTES = 64 * 1024 * 1024;

/**
 * A file's text as the run's sandbox sees it (through the no-follow walk), or the error to return.
 */
export async function readForPatch(
  files: FileOps,
  abs: string,
  shown: string,
): Promise<string | { error: string }> {
  const r = await files.read({ path: abs, wholeMax: MAX_PATCH_BYTES, window: 0 });
  if (r.kind !== "file") return { error: `${shown} does not exist or is not a regular file` };
  if (r.windowed) return { error: `${shown} is larger than ${MAX_PATCH_BYTES} bytes; not patched` };
  return Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength).toString("utf8");
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let i = text.indexOf(search); i >= 0; i = text.indexOf(search, i + search.length)) count++;
  return count;
}

/** Search/replace that must match exactly once (CRLF files accept LF search text). */
export function applySearchReplace(
  text: string,
  search: string,
  replace: string,
): { text: string } | { error: string } {
  if (search === "") return { error: "search text is empty" };
  let s = search;
  let r = replace;
  let count = countOccurrences(text, s);
  if (count === 0 && text.includes("\r\n") && !search.includes("\r\n")) {
    s = search.replace(/\n/g, "\r\n");
    r = replace.replace(/\n/g, "\r\n");
    count = countOccurrences(text, s);
  }
  if (count !== 1) {
    const advice =
      count === 0
        ? "Re-read the file and copy the text exactly, including whitespace."
        : "Include more surrounding lines so the search text is unique.";
    return {
      error: `search text matched ${count} times; it must match exactly once. ${advice}`,
    };
  }
  const at = text.indexOf(s);
  return { text: text.slice(0, at) + r + text.slice(at + s.length) };
}

interface Hunk {
  oldStart: number;
  oldLines: string[];
  newLines: string[];
}

function parseDiff(diff: string): Hunk[] | string {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of diff.replace(/\r\n/g, "\n").split("\n")) {
    const header = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/.exec(line);
    if (header) {
      current = { oldStart: Number(header[1]), oldLines: [], newLines: [] };
      hunks.push(current);
      continue;
    }
    if (!current || line.startsWith("\\")) continue;
    if (line.startsWith("---") || line.startsWith("+++")) {
      if (current.oldLines.length === 0 && current.newLines.length === 0) continue;
    }
    const tag = line[0];
    const body = line.slice(1);
    if (tag === " " || line === "") {
      current.oldLines.push(body);
      current.newLines.push(body);
    } else if (tag === "-") current.oldLines.push(body);
    else if (tag === "+") current.newLines.push(body);
    else return `unexpected diff line: ${JSON.stringify(line.slice(0, 60))}`;
  }
  if (hunks.length === 0) return "the diff has no @@ hunks";
  return hunks;
}

/** Applies a unified diff; each hunk's old lines must be found (nearest to its line number). */
export function applyUnifiedDiff(text: string, diff: string): { text: string } | { error: string } {
  const parsed = parseDiff(diff);
  if (typeof parsed === "string") return { error: parsed };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const placed: Array<{ at: number; hunk: Hunk }> = [];
  for (const [i, hunk] of parsed.entries()) {
    // Trailing blank context produced by a final newline is not part of the hunk.
    while (hunk.oldLines.at(-1) === "" && hunk.newLines.at(-1) === "" && hunk.oldLines.length > 0) {
      hunk.oldLines.pop();
      hunk.newLines.pop();
    }
    const matches: number[] = [];
    for (let at = 0; at + hunk.oldLines.length <= lines.length; at++) {
      if (hunk.oldLines.every((l, k) => lines[at + k] === l)) matches.push(at);
    }
    if (matches.length === 0) {
      return { error: `hunk ${i + 1} does not apply: its context/removed lines were not found` };
    }
    const want = hunk.oldStart - 1;
    matches.sort((a, b) => Math.abs(a - want) - Math.abs(b - want));
    placed.push({ at: matches[0] as number, hunk });
  }
  placed.sort((a, b) => b.at - a.at);
  for (let k = 1; k < placed.length; k++) {
    const later = placed[k - 1] as { at: number };
    const earlier = placed[k] as { at: number; hunk: Hunk };
    if (earlier.at + earlier.hunk.oldLines.length > later.at)
      return { error: "two hunks apply to overlapping lines; merge them into one hunk" };
  }
  for (const { at, hunk } of placed) lines.splice(at, hunk.oldLines.length, ...hunk.newLines);
  return { text: lines.join(eol) };
}

/** patch_file: exact search/replace (must match once) or a unified diff. */
export const patchFileTool: Tool = {
  name: "patch_file",
  description:
    "Edit a file: replace `search` (must match exactly once) with `replace`, or apply a unified `diff`.",
  input_schema: {
    type: "object",
    properties: {
      file: { type: "string" },
      search: { type: "string" },
      replace: { type: "string" },
      diff: { type: "string" },
    },
    required: ["file"],
  },
  kind: "edit",
  subject: (args) => str(args, "file") ?? "",
  writes: (args) => [str(args, "file") ?? ""],
  validate(args) {
    const hasDiff = typeof args["diff"] === "string";
    const hasSearch = typeof args["search"] === "string";
    if (hasDiff && hasSearch) return "give either search/replace or diff, not both";
    if (!hasDiff && !hasSearch) return '"search" and "replace" (or "diff") are required';
    if (hasSearch && typeof args["replace"] !== "string")
      return '"replace" is required with search';
    return undefined;
  },
  async execute(args, ctx) {
    const file = str(args, "file") as string;
    const resolved = resolveWritePath(ctx, file, true);
    if (typeof resolved === "string") return toolError(resolved);
    const files = filesOf(ctx, true);
    try {
      const before = await readForPatch(files, resolved.abs, file);
      if (typeof before !== "string") return toolError(before.error);
      const diff = str(args, "diff");
      const result =
        diff !== undefined
          ? applyUnifiedDiff(before, diff)
          : applySearchReplace(
              before,
              str(args, "search") as string,
              str(args, "replace") as string,
            );
      if ("error" in result) return toolError(`${resolved.shown}: ${result.error}`);
      if (result.text === before)
        return { output: `${resolved.shown}: no change`, summary: "no change" };
      await ctx.beforeFileChange?.(resolved.abs);
      // Replaced atomically (temp + rename), keeping its mode, inside the run's sandbox: a full disk
      // never leaves the file half-written, a hard link elsewhere is broken instead of written through.
      await files.write({ path: resolved.abs, data: Buffer.from(result.text), existingOnly: true });
    } catch (error) {
      return fileError(file, error);
    }
    return {
      output: `patched ${resolved.shown}`,
      summary: "patched",
      filesChanged: [{ path: resolved.abs, change: "modified" }],
    };
  },
};
