import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Tool } from "../types.ts";
import {
  fileKind,
  isProtectedEntry,
  num,
  resolvePath,
  SKIP_DIRS,
  sandboxOf,
  str,
  toolError,
} from "./common.ts";

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
    if ((await fileKind(resolved.abs)) !== "dir") return toolError(`${dir} is not a directory`);
    const maxDepth = num(args, "max_depth") ?? 3;
    const hidden = args["include_hidden"] === true;
    const lines: string[] = [];
    let truncated = false;
    const sandbox = sandboxOf(ctx);
    const walk = async (abs: string, depth: number): Promise<void> => {
      let entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
      entries = entries
        .filter((e) => hidden || !e.name.startsWith("."))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (lines.length >= MAX_ENTRIES) {
          truncated = true;
          return;
        }
        const isDir = entry.isDirectory();
        lines.push(`${"  ".repeat(depth)}${entry.name}${isDir ? "/" : ""}`);
        const child = join(abs, entry.name);
        if (isProtectedEntry(ctx, child)) {
          lines[lines.length - 1] += " (protected, not listed)";
          continue;
        }
        // a credential store is listed by name only: its contents are not read
        const denied = isDir && sandbox.refusesRead(child);
        if (isDir && !denied && depth + 1 < maxDepth && !SKIP_DIRS.has(entry.name)) {
          await walk(join(abs, entry.name), depth + 1);
        }
      }
    };
    await walk(resolved.abs, 0);
    if (truncated) lines.push(`[... stopped at ${MAX_ENTRIES} entries ...]`);
    const body = lines.length ? lines.join("\n") : "(empty)";
    return { output: `${resolved.shown}/\n${body}`, summary: `${lines.length} entries` };
  },
};
