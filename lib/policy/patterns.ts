/**
 * Patterns chatcli did not write — from the workspace (`.env` CHATCLI_AGENT_DENYLIST, a config's
 * deny globs), the environment or the model (web_fetch's filter/exclude, search_files' term) — are
 * matched in time linear in the input, whatever the pattern: a regex goes to RE2 (re2js, a port of
 * Go's and Google's RE2: no backtracking, so `(a+)+$` costs what `a+$` costs), and a rule's `*`
 * wildcard is matched by a loop, never turned into a backtracking RegExp.
 *
 * RE2 has no backreferences and no lookaround: such a pattern is an error the caller reports
 * ("invalid regex: …"), never something that falls back to the backtracking engine.
 */
import type { RE2JS } from "re2js";

export interface PatternOptions {
  /** Case-insensitive (the `i` flag). */
  ignoreCase?: boolean;
  /** `^`/`$` match at line breaks (the `m` flag). */
  multiline?: boolean;
  /** `.` matches a newline too (the `s` flag). */
  dotAll?: boolean;
}

/** A compiled untrusted regex: only `test`, the one thing callers need. */
export interface UntrustedPattern {
  readonly source: string;
  /** Whether the pattern matches anywhere in `text` (linear in `text`). */
  test(text: string): boolean;
}

type Re2Module = typeof import("re2js");
let re2: Re2Module | undefined;

/** re2js is loaded on first use (260 KB of JS commands that never match a pattern do not pay for). */
function engine(): Re2Module {
  re2 ??= require("re2js") as Re2Module;
  return re2;
}

/**
 * Compiles `source` with RE2. JavaScript spellings RE2 does not know (`\d` works; `(?<name>…)` is
 * translated; `\/` is accepted) are normalised first. Returns the error message for a pattern RE2
 * refuses (backreferences, lookaround, a repetition count over 1000).
 */
export function compileUntrustedPattern(
  source: string,
  options: PatternOptions = {},
): UntrustedPattern | { error: string } {
  const { RE2JS } = engine();
  let flags = 0;
  if (options.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE;
  if (options.multiline) flags |= RE2JS.MULTILINE;
  if (options.dotAll) flags |= RE2JS.DOTALL;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), flags);
  } catch (error) {
    return { error: oneLine((error as Error).message) };
  }
  return { source, test: (text) => compiled.test(text) };
}

/** Whether compileUntrustedPattern failed. */
export function isPatternError(p: UntrustedPattern | { error: string }): p is { error: string } {
  return "error" in p;
}

/** A literal string as an RE2 pattern that matches it exactly. */
export function quotePattern(text: string): string {
  return engine().RE2JS.quote(text);
}

function oneLine(message: string): string {
  return message
    .replace(/\s+/g, " ")
    .replace(/^error parsing regexp: /, "")
    .trim();
}

/**
 * `*` matches any run of characters (slashes and newlines too), everything else itself: the rule
 * syntax of `--allow-tool 'run_command(npm test*)'`. Greedy with one backtrack point (the last `*`),
 * so the cost is at most |glob| × |text| — never exponential, whatever the rule says.
 */
export function wildcardMatch(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = t;
    } else if (g < glob.length && glob[g] === text[t]) {
      g++;
      t++;
    } else if (star >= 0) {
      g = star + 1;
      t = ++resume;
    } else return false;
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}
