import type { Tool } from "../types.ts";
import { fileError, filesOf, num, resolvePath, SKIP_DIRS, str, toolError } from "./common.ts";

const MAX_ENTRIES = 2000;

/** list_directory: an indented tree (dirs end with `/`), hidden entries and vendored dirs skipped. */
export const listDirectoryTool: Tool = {
  name: "list_directory",
  description:
    "A directory as an indented tree (dirs end with /); skips .git, node_modules and dot-files unless include_hidden.",
  input_schema: {
    type: "object",
    properties: {
      dir: { type: "string", description: "default: cwd" },
      max_depth: { type: "integer", minimum: 1, description: "default 3" },
      include_hidden: { type: "boolean" },
    },
  },
  kind: "read",
  subject: (args) => str(args, "dir") ?? ".",
  async execute(args, ctx) {
    const dir = str(args, "dir") ?? ".";
    const resolved = resolvePath(ctx, dir);
    if (typeof resolved === "string") return toolError(resolved);
    // walked in the run's sandbox, one open directory at a time: a credential store is listed by
    // name only (its contents are not read), a link is listed, never entered
    let listing: { lines: string[]; truncated: boolean };
    try {
      const r = await filesOf(ctx, false).read({
        path: resolved.abs,
        wholeMax: 0,
        window: 0,
        statOnly: true,
      });
      if (r.kind !== "dir") return toolError(`${dir} is not a directory`);
      listing = await filesOf(ctx, false).list({
        path: resolved.abs,
        maxDepth: num(args, "max_depth") ?? 3,
        hidden: args["include_hidden"] === true,
        maxEntries: MAX_ENTRIES,
        skip: [...SKIP_DIRS],
      });
    } catch (error) {
      return fileError(dir, error);
    }
    const lines = [...listing.lines];
    if (listing.truncated) lines.push(`[... stopped at ${MAX_ENTRIES} entries ...]`);
    const body = lines.length ? lines.join("\n") : "(empty)";
    return { output: `${resolved.shown}/\n${body}`, summary: `${listing.lines.length} entries` };
  },
};
