import { open } from "node:fs/promises";
import type { Tool } from "../types.ts";
import { fileKind, num, resolvePath, str, toolError } from "./common.ts";

const MAX_BYTES = 200_000;

/** read_file: a file's lines with numbers, optionally a range, capped in size. */
export const readFileTool: Tool = {
  name: "read_file",
  description:
    "Read a text file. Returns numbered lines (`N | text`). Use start/end (1-based, inclusive) or head/tail for large files.",
  input_schema: {
    type: "object",
    properties: {
      file: { type: "string", description: "path, relative to the working directory" },
      start: { type: "integer", minimum: 1, description: "first line (1-based)" },
      end: { type: "integer", minimum: 1, description: "last line (inclusive)" },
      head: { type: "integer", minimum: 1, description: "only the first N lines" },
      tail: { type: "integer", minimum: 1, description: "only the last N lines" },
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
    const kind = await fileKind(resolved.abs);
    if (kind === "missing") return toolError(`${file} does not exist`);
    if (kind !== "file") return toolError(`${file} is not a regular file (${kind})`);
    const handle = await open(resolved.abs, "r");
    let bytes: Buffer;
    let size: number;
    try {
      size = (await handle.stat()).size;
      const buf = Buffer.alloc(Math.min(size, MAX_BYTES));
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      bytes = buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    if (bytes.subarray(0, 8000).includes(0)) return toolError(`${file} looks binary; not shown`);
    const text = bytes.toString("utf8");
    const lines = text.split("\n");
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    const total = lines.length;
    let from = num(args, "start") ?? 1;
    let to = num(args, "end") ?? total;
    const head = num(args, "head");
    const tail = num(args, "tail");
    if (head !== undefined) to = Math.min(total, head);
    if (tail !== undefined) from = Math.max(1, total - tail + 1);
    if (from > total && total > 0) {
      return toolError(`start ${from} is past the end of ${file} (${total} lines)`);
    }
    to = Math.min(to, total);
    if (to < from) return toolError(`end ${to} is before start ${from}`);
    const width = String(to).length;
    const body = lines
      .slice(from - 1, to)
      .map((line, i) => `${String(from + i).padStart(width)} | ${line}`)
      .join("\n");
    const cut =
      size > MAX_BYTES ? `\n[... file truncated at ${MAX_BYTES} of ${size} bytes ...]` : "";
    const header = `${resolved.shown} (lines ${from}-${to} of ${total}${size > MAX_BYTES ? "+" : ""})`;
    return {
      output: `${header}\n${body}${cut}`,
      summary: `${to - from + 1} line${to === from ? "" : "s"}`,
    };
  },
};
