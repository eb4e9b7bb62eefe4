import { appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../core/fs.ts";
import type { Tool } from "../types.ts";
import { fileKind, resolveWritePath, str, toolError, writeTarget } from "./common.ts";

/** write_file: creates or overwrites (or appends to) a file inside the workspace. */
export const writeFileTool: Tool = {
  name: "write_file",
  description:
    "Create or overwrite a file (parent dirs are created); append=true appends. Prefer patch_file for small edits.",
  input_schema: {
    type: "object",
    properties: {
      file: { type: "string" },
      content: { type: "string" },
      append: { type: "boolean" },
    },
    required: ["file", "content"],
  },
  kind: "edit",
  subject: (args) => str(args, "file") ?? "",
  writes: (args) => [str(args, "file") ?? ""],
  async execute(args, ctx) {
    const file = str(args, "file") as string;
    const content = str(args, "content") as string;
    // The permission policy already judged the workspace boundary; re-check against links swapped since.
    const resolved = resolveWritePath(ctx, file, true);
    if (typeof resolved === "string") return toolError(resolved);
    const kind = await fileKind(resolved.abs);
    if (kind === "dir" || kind === "other") return toolError(`${file} is not a regular file`);
    const at = await writeTarget(ctx, resolved.abs, resolved.shown);
    if (typeof at === "string") return toolError(at);
    await ctx.beforeFileChange?.(resolved.abs);
    await mkdir(dirname(at.target), { recursive: true });
    if (at.exists) {
      // Replaced (temp file + rename), keeping its mode: a full disk never leaves the user's file
      // half-written, and a hard link to a file elsewhere is broken instead of written through.
      const { mode } = await stat(at.target);
      const before = args["append"] === true ? await readFile(at.target) : undefined;
      if (before && at.nlink <= 1) await appendFile(at.target, content);
      else
        await writeFileAtomic(
          at.target,
          before ? Buffer.concat([before, Buffer.from(content)]) : content,
          {
            mode: mode & 0o7777,
          },
        );
    } else await writeFile(at.target, content, { flag: "wx" });
    const change = kind === "missing" ? "created" : "modified";
    const bytes = Buffer.byteLength(content);
    return {
      output: `${args["append"] === true ? "appended" : "wrote"} ${bytes} bytes to ${resolved.shown} (${change})`,
      summary: `${change}, ${bytes} bytes`,
      filesChanged: [{ path: resolved.abs, change }],
    };
  },
};
