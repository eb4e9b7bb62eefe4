import { relative } from "node:path";
import { envInt } from "../../core/settings.ts";
import type { WorkerSearchResult } from "../../sandbox/search-worker.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import {
  fileError,
  filesOf,
  num,
  protectedGlobs,
  resolvePath,
  SKIP_DIRS,
  sandboxOf,
  str,
  toolError,
} from "./common.ts";

const MAX_FILE_BYTES = 1_048_576;

function buildMatcher(term: string, regex: boolean, caseSensitive: boolean): RegExp | string {
  const source = regex ? term : term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  try {
    return new RegExp(source, caseSensitive ? "" : "i");
  } catch (error) {
    return `invalid regex: ${(error as Error).message}`;
  }
}

/** Per-file budget of the built-in matcher (CHATCLI_SEARCH_FILE_BUDGET_MS, default 2 s). */
function perFileBudget(ctx: ToolContext): number {
  return Math.max(10, envInt(ctx.env, "CHATCLI_SEARCH_FILE_BUDGET_MS", 2000));
}

async function ripgrep(
  rg: string,
  ctx: ToolContext,
  root: string,
  args: {
    term: string;
    regex: boolean;
    caseSensitive: boolean;
    globs: string[];
    context: number;
    maxResults: number;
    hidden: boolean;
  },
): Promise<ToolOutcome> {
  const argv = [rg, "--line-number", "--no-heading", "--color", "never", "--sort", "path"];
  if (!args.regex) argv.push("--fixed-strings");
  if (!args.caseSensitive) argv.push("--ignore-case");
  if (args.context > 0) argv.push("--context", String(args.context));
  if (args.hidden) argv.push("--hidden");
  for (const g of args.globs) argv.push("--glob", g);
  for (const g of protectedGlobs(ctx, root)) argv.push("--glob", g);
  argv.push("--", args.term, ".");
  const sandbox = sandboxOf(ctx);
  const result = await sandbox.run(argv, {
    cwd: root,
    env: sandbox.childEnv(ctx.env),
    timeoutMs: 60_000,
    signal: ctx.signal,
  });
  if (result.exitCode === 1) return { output: "no matches", summary: "0 matches" };
  if (result.exitCode !== 0) return toolError(result.stderr.trim() || "ripgrep failed");
  const lines = result.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^\.\//, ""));
  const kept = lines.slice(0, args.maxResults * (1 + 2 * args.context));
  return { output: kept.join("\n"), summary: `${kept.length} lines` };
}

/** search_files: regex or literal search with globs and context lines; ripgrep when on PATH. */
export const searchFilesTool: Tool = {
  name: "search_files",
  description:
    "Search file contents: `path:line:text` lines (context lines `path-line-text`). Literal, case-insensitive by default.",
  input_schema: {
    type: "object",
    properties: {
      term: { type: "string" },
      dir: { type: "string", description: "default: cwd" },
      regex: { type: "boolean" },
      glob: { type: "string", description: "comma-separated file globs" },
      context: { type: "integer", minimum: 0, description: "lines around each match" },
      max_results: { type: "integer", minimum: 1, description: "default 100" },
      case_sensitive: { type: "boolean" },
    },
    required: ["term"],
  },
  kind: "read",
  subject: (args) => str(args, "term") ?? "",
  async execute(args, ctx) {
    const dir = str(args, "dir") ?? ".";
    const resolved = resolvePath(ctx, dir);
    if (typeof resolved === "string") return toolError(resolved);
    const sandbox = sandboxOf(ctx);
    const files = filesOf(ctx, false);
    try {
      const r = await files.read({ path: resolved.abs, wholeMax: 0, window: 0, statOnly: true });
      if (r.kind !== "dir") return toolError(`${dir} is not a directory`);
    } catch (error) {
      return fileError(dir, error);
    }
    const term = str(args, "term") as string;
    const regex = args["regex"] === true;
    const caseSensitive = args["case_sensitive"] === true;
    const re = buildMatcher(term, regex, caseSensitive);
    if (typeof re === "string") return toolError(re);
    const globs = (str(args, "glob") ?? "")
      .split(",")
      .map((g) => g.trim())
      .filter(Boolean);
    const context = num(args, "context") ?? 0;
    const maxResults = num(args, "max_results") ?? 100;
    const hidden = false;
    // ripgrep only where the sandbox confines it (or in bypass mode): unconfined, it opens paths a
    // concurrent command can swap for links (and would read credential stores under the root); the
    // built-in search walks with no link followed and skips protected paths.
    const confinedOrBypass = sandbox.confines || sandbox.permissionMode === "bypass";
    const rg =
      ctx.env["CHATCLI_NO_RIPGREP"] || !confinedOrBypass || sandbox.exposesDeniedUnder(resolved.abs)
        ? null
        : Bun.which("rg", { PATH: ctx.env["PATH"] ?? "" });
    if (rg) {
      return ripgrep(rg, ctx, resolved.abs, {
        term,
        regex,
        caseSensitive,
        globs,
        context,
        maxResults,
        hidden,
      });
    }
    let found: WorkerSearchResult;
    try {
      found = await files.search(
        {
          path: resolved.abs,
          hidden,
          globs,
          skip: [...SKIP_DIRS],
          maxFileBytes: MAX_FILE_BYTES,
          source: re.source,
          flags: re.flags,
          context,
          maxResults,
          perFileMs: perFileBudget(ctx),
        },
        ctx.signal,
      );
    } catch (error) {
      return fileError(dir, error);
    }
    const { lines, matches, skipped, aborted } = found;
    const slow = skipped.length
      ? `\n[skipped ${skipped.length} file(s) where the pattern took over ${perFileBudget(ctx)} ms per file (a pattern with nested repetition like (a+)+ backtracks without end): ${skipped.slice(0, 10).join(", ")}]`
      : "";
    const stop = aborted ? "\n[search cancelled]" : "";
    if (matches === 0 && !slow && !stop) return { output: "no matches", summary: "0 matches" };
    const base = relative(ctx.cwd, resolved.abs);
    const note = base && base !== "." ? `(paths relative to ${base})\n` : "";
    const more = matches >= maxResults ? `\n[stopped at ${maxResults} matches]` : "";
    const body = matches === 0 ? "no matches" : lines.join("\n");
    return {
      output: `${note}${body}${more}${slow}${stop}`,
      summary: `${matches} matches${skipped.length ? `, ${skipped.length} skipped` : ""}`,
    };
  },
};
