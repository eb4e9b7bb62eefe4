import type { Tool } from "../types.ts";
import { fileError, filesOf, resolveWritePath, str, toolError } from "./common.ts";

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
    // The permission policy already judged the workspace boundary; the walk below holds it again,
    // step by step, against links swapped in since.
    const resolved = resolveWritePath(ctx, file, true);
    if (typeof resolved === "string") return toolError(resolved);
    // The work happens in the run's sandbox (a worker with this mode's mounts) or, without one,
    // here through the same no-follow walk: never through a link out of the workspace. A file that
    // exists is replaced (temp + rename, its mode kept): a full disk never leaves it half-written,
    // and a hard link to a file elsewhere is broken instead of written through.
    const files = filesOf(ctx, true);
    try {
      const now = await files.read({ path: resolved.abs, wholeMax: 0, window: 0, statOnly: true });
      if (now.kind === "dir" || now.kind === "other")
        return toolError(`${file} is not a regular file`);
      await ctx.beforeFileChange?.(resolved.abs);
      const data = Buffer.from(content);
      const done = await files.write({
        path: resolved.abs,
        data,
        append: args["append"] === true,
      });
      return {
        output: `${args["append"] === true ? "appended" : "wrote"} ${data.length} bytes to ${resolved.shown} (${done.change})`,
        summary: `${done.change}, ${data.length} bytes`,
        filesChanged: [{ path: resolved.abs, change: done.change }],
      };
    } catch (error) {
      return fileError(file, error);
    }
  },
};
