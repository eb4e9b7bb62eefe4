import type { Ctx } from "../lib/core/ctx.ts";

/**
 * `chatcli compact` in its plainest forms without commander (issue 23: at 7 MB, start-up was most
 * of `compact --level 1`), called by commands/fast.ts. The forms: `--level 1`, `--level 3` and
 * `--no-llm`, each at most once, in any order, with FILE, `-` or nothing (stdin) — only those that
 * cannot call a model (level 1, or `--no-llm`). They run commands/compact-run.ts's runCompact with
 * the flags commander would have given it, so they print what the commander path prints
 * (tests/unit/commands/fast.test.ts runs each both ways). Anything else returns undefined.
 */
export async function fastCompact(
  rest: readonly string[],
  ctx: Ctx,
  report: (error: unknown) => Promise<number>,
): Promise<number | undefined> {
  const form = compactForm(rest);
  if (!form) return undefined;
  try {
    const { runCompact } = await import("./compact-run.ts");
    return await runCompact(ctx, form.file, { level: form.level, llm: form.llm }, "text");
  } catch (error) {
    return report(error);
  }
}

/** The flags and FILE of a form fastCompact takes, else undefined. */
export function compactForm(
  rest: readonly string[],
): { level: string; llm: boolean; file: string | undefined } | undefined {
  let level: string | undefined;
  let llm = true;
  let file: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--level" && level === undefined) {
      level = rest[++i];
      if (level !== "1" && level !== "3") return undefined;
    } else if (arg === "--no-llm" && llm) llm = false;
    else if (file === undefined && (arg === "-" || isWord(arg))) file = arg;
    else return undefined;
  }
  level ??= "3"; // commander's default
  return level === "1" || !llm ? { level, llm, file } : undefined;
}

/** A positional argument commander would take as it is (no flag, no `--`, not `help`). */
function isWord(arg: string): boolean {
  return arg !== "" && !arg.startsWith("-") && arg !== "help";
}
