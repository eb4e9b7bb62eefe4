import { GIT_CREDENTIAL_LINE } from "../../policy/credential-dumps.ts";
import type { ReadReply } from "../../sandbox/file-ops.ts";
import type { Tool } from "../types.ts";
import { fileError, filesOf, num, resolvePath, str, toolError } from "./common.ts";

/** The most text one call returns. */
const MAX_BYTES = 200_000;
/** Files up to this size are read whole, so ranges and tail reach every line. */
const WHOLE_FILE_BYTES = 64 * 1024 * 1024;

/** A git configuration file: `.git/config`, a worktree's `config.worktree`, `~/.gitconfig`. */
function isGitConfig(abs: string): boolean {
  return /\/\.git\/(?:config|config\.worktree|modules\/.+\/config)$|\/\.gitconfig$|\/git\/config$/.test(
    abs,
  );
}

/** Blanks the credential values of a git config (the rest stays readable). */
export function maskGitCredentials(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      GIT_CREDENTIAL_LINE.test(line)
        ? line.replace(/=.*$/, "= [credential removed by chatcli]")
        : line,
    )
    .join("\n");
}

/** read_file: a file's lines with numbers, optionally a range, capped in size. */
export const readFileTool: Tool = {
  name: "read_file",
  description:
    "Read a text file. Returns numbered lines (`N | text`). Use start/end (1-based, inclusive) or head/tail for large files.",
  input_schema: {
    type: "object",
    properties: {
      file: { type: "string" },
      start: { type: "integer", minimum: 1 },
      end: { type: "integer", minimum: 1 },
      head: { type: "integer", minimum: 1 },
      tail: { type: "integer", minimum: 1 },
    },
    required: ["file"],
  },
  kind: "read",
  subject: (args) => str(args, "file") ?? "",
  validate(args) {
    if (args["head"] !== undefined && args["tail"] !== undefined)
      return "use head or tail, not both";
    return undefined;
  },
  async execute(args, ctx) {
    const file = str(args, "file") as string;
    const resolved = resolvePath(ctx, file);
    if (typeof resolved === "string") return toolError(resolved);
    const tail = num(args, "tail");
    // read where the run's sandbox stands (a worker inside it), through the no-follow walk
    let r: ReadReply;
    try {
      r = await filesOf(ctx, false).read({
        path: resolved.abs,
        wholeMax: WHOLE_FILE_BYTES,
        window: MAX_BYTES,
        fromEnd: tail !== undefined,
      });
    } catch (error) {
      return fileError(file, error);
    }
    if (r.kind === "missing") return toolError(`${file} does not exist`);
    if (r.kind !== "file") return toolError(`${file} is not a regular file (${r.kind})`);
    // Bigger than WHOLE_FILE_BYTES: only a window (the end of the file for tail) was read.
    const { size, windowed } = r;
    const bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
    if (bytes.subarray(0, 8000).includes(0)) return toolError(`${file} looks binary; not shown`);
    const raw = bytes.toString("utf8");
    // a git config can hold a token (actions/checkout's extraheader, user:token@ remotes)
    const text = isGitConfig(resolved.abs) || isGitConfig(r.path) ? maskGitCredentials(raw) : raw;
    const lines = text.split("\n");
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    if (windowed && tail !== undefined) lines.shift(); // a partial first line
    const total = lines.length;
    let from = num(args, "start") ?? 1;
    let to = num(args, "end") ?? total;
    const head = num(args, "head");
    if (head !== undefined) to = Math.min(total, head);
    if (tail !== undefined) from = Math.max(1, total - tail + 1);
    if (from > total && total > 0) {
      return toolError(
        `start ${from} is past the end of ${file} (${total}${windowed ? "+" : ""} lines${windowed ? `; only the first ${MAX_BYTES} bytes of this ${size}-byte file are readable here, use run_command with sed -n` : ""})`,
      );
    }
    to = Math.min(to, total);
    if (to < from) return toolError(`end ${to} is before start ${from}`);
    const width = String(to).length;
    const shown: string[] = [];
    let used = 0;
    let last = from - 1;
    for (let n = from; n <= to; n++) {
      const line = `${String(n).padStart(width)} | ${lines[n - 1]}`;
      if (used + line.length + 1 > MAX_BYTES && shown.length > 0) break;
      shown.push(line);
      used += line.length + 1;
      last = n;
    }
    const cut =
      last < to
        ? `\n[... output stopped at line ${last} (${MAX_BYTES} bytes); continue with start=${last + 1} ...]`
        : windowed
          ? `\n[... only ${MAX_BYTES} of ${size} bytes read${tail !== undefined ? " (the end of the file)" : ""} ...]`
          : "";
    const body = shown.join("\n");
    const header = `${resolved.shown} (lines ${from}-${last} of ${total}${windowed ? "+" : ""})`;
    return {
      output: `${header}\n${body}${cut}`,
      summary: `${last - from + 1} line${last === from ? "" : "s"}`,
    };
  },
};
