import type { FileChange, Tool } from "../types.ts";
import { fileErrorText, filesOf, resolveWritePath, toolError } from "./common.ts";
import { applySearchReplace, readForPatch } from "./patch-file.ts";

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
function editedFiles(args: Record<string, unknown>): string[] {
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
  subject: (args) => editedFiles(args).join(", "),
  writes: (args) => editedFiles(args),
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
    // every read and write happens in the run's sandbox (or through the no-follow walk without one)
    const files = filesOf(ctx, true);
    // 1. validate everything in memory: nothing on disk changes unless every edit applies
    const planned = new Map<string, { shown: string; before: string; after: string }>();
    for (const [i, edit] of edits.entries()) {
      const resolved = resolveWritePath(ctx, edit.file, true);
      if (typeof resolved === "string")
        return toolError(`edit ${i + 1}: ${resolved}; no file was changed`);
      let entry = planned.get(resolved.abs);
      if (!entry) {
        let before: string | { error: string };
        try {
          before = await readForPatch(files, resolved.abs, edit.file);
        } catch (error) {
          before = { error: `${edit.file}: ${fileErrorText(error)}` };
        }
        if (typeof before !== "string")
          return toolError(`edit ${i + 1}: ${before.error}; no file was changed`);
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
        await files.write({ path: abs, data: Buffer.from(e.after), existingOnly: true });
        written.push([abs, e.before]);
      }
    } catch (error) {
      // a write failed midway (disk full, a link swapped in): put the files already written back
      for (const [abs, before] of written.reverse()) {
        try {
          await files.write({ path: abs, data: Buffer.from(before), existingOnly: true });
        } catch {
          // best effort; the snapshot taken above still lets rewind restore it
        }
      }
      return toolError(
        `multipatch failed while writing (${fileErrorText(error)}); the files written were restored`,
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
