import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { fileKind, num, resolvePath, SKIP_DIRS, str, toolError } from "./common.ts";
import { scrubEnv, spawnCapture } from "./process.ts";

const MAX_FILE_BYTES = 1_048_576;

function buildMatcher(term: string, regex: boolean, caseSensitive: boolean): RegExp | string {
  const source = regex ? term : term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  try {
    return new RegExp(source, caseSensitive ? "" : "i");
  } catch (error) {
    return `invalid regex: ${(error as Error).message}`;
  }
}

async function builtinSearch(
  root: string,
  re: RegExp,
  globs: string[],
  context: number,
  maxResults: number,
  hidden: boolean,
): Promise<{ lines: string[]; matches: number }> {
  const scan = new Bun.Glob("**/*").scan({ cwd: root, onlyFiles: true, dot: hidden });
  const files: string[] = [];
  for await (const rel of scan) {
    const parts = rel.split("/");
    if (parts.some((p) => SKIP_DIRS.has(p))) continue;
    if (
      globs.length &&
      !globs.some(
        (g) => new Bun.Glob(g).match(rel) || new Bun.Glob(g).match(parts.at(-1) as string),
      )
    )
      continue;
    files.push(rel);
  }
  files.sort();
  const out: string[] = [];
  let matches = 0;
  for (const rel of files) {
    if (matches >= maxResults) break;
    const buf = await readFile(join(root, rel)).catch(() => undefined);
    if (!buf || buf.length > MAX_FILE_BYTES || buf.subarray(0, 8000).includes(0)) continue;
    const lines = buf.toString("utf8").split(/\r?\n/);
    let lastShown = -1;
    for (let i = 0; i < lines.length && matches < maxResults; i++) {
      if (!re.test(lines[i] as string)) continue;
      matches++;
      const from = Math.max(lastShown + 1, i - context);
      if (context > 0 && lastShown >= 0 && from > lastShown + 1) out.push("--");
      for (let k = from; k <= Math.min(lines.length - 1, i + context); k++) {
        out.push(`${rel}${k === i ? ":" : "-"}${k + 1}${k === i ? ":" : "-"}${lines[k]}`);
        lastShown = k;
      }
    }
  }
  return { lines: out, matches };
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
  argv.push("--", args.term, ".");
  const result = await spawnCapture(argv, {
    cwd: root,
    env: scrubEnv(ctx.env),
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
    const rg = ctx.env["CHATCLI_NO_RIPGREP"]
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
    const { lines, matches } = await builtinSearch(
      resolved.abs,
      re,
      globs,
      context,
      maxResults,
      hidden,
    );
    if (matches === 0) return { output: "no matches", summary: "0 matches" };
    const base = relative(ctx.cwd, resolved.abs);
    const note = base && base !== "." ? `(paths relative to ${base})\n` : "";
    const more = matches >= maxResults ? `\n[stopped at ${maxResults} matches]` : "";
    return { output: `${note}${lines.join("\n")}${more}`, summary: `${matches} matches` };
  },
};
