import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { envInt } from "../../core/settings.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import {
  fileKind,
  isProtectedEntry,
  num,
  protectedGlobs,
  resolvePath,
  SKIP_DIRS,
  sandboxOf,
  str,
  toolError,
} from "./common.ts";
import { searchWithWorker, type WorkerSearchResult } from "./search-worker.ts";

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

async function builtinSearch(
  ctx: ToolContext,
  root: string,
  re: RegExp,
  globs: string[],
  context: number,
  maxResults: number,
  hidden: boolean,
): Promise<WorkerSearchResult> {
  const scan = new Bun.Glob("**/*").scan({ cwd: root, onlyFiles: true, dot: hidden });
  const sandbox = sandboxOf(ctx);
  const files: string[] = [];
  for await (const rel of scan) {
    if (ctx.signal.aborted) break;
    const parts = rel.split("/");
    if (parts.some((p) => SKIP_DIRS.has(p))) continue;
    if (
      globs.length &&
      !globs.some(
        (g) => new Bun.Glob(g).match(rel) || new Bun.Glob(g).match(parts.at(-1) as string),
      )
    )
      continue;
    // credential stores and chatcli's home are not searched, through a link either
    if (sandbox.refusesRead(join(root, rel)) || isProtectedEntry(ctx, join(root, rel))) continue;
    files.push(rel);
  }
  files.sort();
  async function* texts() {
    for (const rel of files) {
      const buf = await readFile(join(root, rel)).catch(() => undefined);
      if (!buf || buf.length > MAX_FILE_BYTES || buf.subarray(0, 8000).includes(0)) continue;
      yield { rel, text: buf.toString("utf8") };
    }
  }
  return searchWithWorker(texts(), {
    source: re.source,
    flags: re.flags,
    context,
    maxResults,
    perFileMs: perFileBudget(ctx),
    signal: ctx.signal,
  });
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
    if ((await fileKind(resolved.abs)) !== "dir") return toolError(`${dir} is not a directory`);
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
    // Unconfined, ripgrep would read credential stores under the root: the built-in search skips them.
    const rg =
      ctx.env["CHATCLI_NO_RIPGREP"] || sandboxOf(ctx).exposesDeniedUnder(resolved.abs)
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
    const { lines, matches, skipped, aborted } = await builtinSearch(
      ctx,
      resolved.abs,
      re,
      globs,
      context,
      maxResults,
      hidden,
    );
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
