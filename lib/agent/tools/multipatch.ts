import { readFile, stat } from "node:fs/promises";
import { writeFileAtomic } from "../../core/fs.ts";
import type { FileChange, Tool } from "../types.ts";
import { fileKind, resolveWritePath, toolError } from "./common.ts";
import { applySearchReplace } from "./patch-file.ts";

/** At most this many edits in one call (a larger change is several calls, or write_file). */
export const MULTIPATCH_MAX_EDITS = 100;

interface Edit {
  file: string;
  search: string;
  replace: string;
}

function editsOf(args: Record<string, unknown>): Edit[] {
  const raw = args["edits"];
  return Array.isArray(raw) ? (raw as Edit[]) : [];
}

/** The files of the edits, in first-seen order, each once. */
function filesOf(args: Record<string, unknown>): string[] {
  const seen: string[] = [];
  for (const e of editsOf(args)) {
    const file = typeof e?.file === "string" ? e.file : "";
    if (!seen.includes(file)) seen.push(file);
  }
  return seen;
}

/**
 * multipatch: several exact search/replace edits over several files, all or nothing. Every edit is
 * checked first (file exists, search matches exactly once in the text the earlier edits of the same
 * file left); only then is any file written. Judged by the policy like patch_file on each file.
 */
export const multipatchTool: Tool = {
  name: "multipatch",
  description:
    "All-or-nothing search/replace over several files: `edits` is [{file, search, replace}]; each search must match once.",
  input_schema: {
    type: "object",
    properties: { edits: { type: "array", items: { type: "object" } } },
    required: ["edits"],
  },
  kind: "edit",
  subject: (args) => filesOf(args).join(", "),
  writes: (args) => filesOf(args),
  validate(args) {
    const edits = args["edits"] as unknown[];
    if (edits.length === 0) return '"edits" is empty: give at least one {file, search, replace}';
    if (edits.length > MULTIPATCH_MAX_EDITS)
      return `at most ${MULTIPATCH_MAX_EDITS} edits per call (got ${edits.length}); split the change`;
    for (const [i, e] of edits.entries()) {
      const edit = e as Record<string, unknown> | null;
      if (typeof edit !== "object" || edit === null || Array.isArray(edit))
        return `edit ${i + 1} must be an object {file, search, replace}`;
      for (const key of ["file", "search", "replace"]) {
        if (typeof edit[key] !== "string") return `edit ${i + 1}: "${key}" must be a string`;
      }
      if (edit["file"] === "") return `edit ${i + 1}: "file" is empty`;
      if (edit["search"] === "") return `edit ${i + 1}: "search" is empty`;
    }
    return undefined;
  },
  async execute(args, ctx) {
    const edits = editsOf(args);
    // 1. validate everything in memory: nothing on disk changes unless every edit applies
    const planned = new Map<string, { shown: string; before: string; after: string }>();
    for (const [i, edit] of edits.entries()) {
      const resolved = resolveWritePath(ctx, edit.file, true);
      if (typeof resolved === "string")
        return toolError(`edit ${i + 1}: ${resolved}; no file was changed`);
      let entry = planned.get(resolved.abs);
      if (!entry) {
        if ((await fileKind(resolved.abs)) !== "file")
          return toolError(
            `edit ${i + 1}: ${edit.file} does not exist or is not a regular file; no file was changed`,
          );
        const before = await readFile(resolved.abs, "utf8");
        entry = { shown: resolved.shown, before, after: before };
        planned.set(resolved.abs, entry);
      }
      const result = applySearchReplace(entry.after, edit.search, edit.replace);
      if ("error" in result)
        return toolError(
          `edit ${i + 1} (${resolved.shown}): ${result.error} No file was changed; fix this edit and send the whole multipatch again.`,
        );
      entry.after = result.text;
    }
    const changed = [...planned.entries()].filter(([, e]) => e.after !== e.before);
    if (changed.length === 0) return { output: "multipatch: no change", summary: "no change" };
    // 2. snapshot every file first (one checkpoint covers them all), then write
    for (const [abs] of changed) await ctx.beforeFileChange?.(abs);
    const written: Array<[string, string]> = [];
    try {
      for (const [abs, e] of changed) {
        const { mode } = await stat(abs);
        await writeFileAtomic(abs, e.after, { mode: mode & 0o7777 });
        written.push([abs, e.before]);
      }
    } catch (error) {
      // a write failed midway (disk full, permissions): put the files already written back
      for (const [abs, before] of written.reverse()) {
        try {
          const { mode } = await stat(abs);
          await writeFileAtomic(abs, before, { mode: mode & 0o7777 });
        } catch {
          // best effort; the snapshot taken above still lets rewind restore it
        }
      }
      return toolError(
        `multipatch failed while writing (${(error as Error).message}); the files written were restored`,
      );
    }
    const filesChanged: FileChange[] = changed.map(([abs]) => ({ path: abs, change: "modified" }));
    const names = changed.map(([, e]) => e.shown);
    return {
      output: `multipatch: applied ${edits.length} edit${edits.length === 1 ? "" : "s"} to ${names.length} file${names.length === 1 ? "" : "s"}: ${names.join(", ")}`,
      summary: `${edits.length} edits, ${names.length} files`,
      filesChanged,
    };
  },
};
