import type { Env } from "./ctx.ts";

/**
 * A `.env` file read as the Go ChatCLI reads it (github.com/joho/godotenv's parser):
 * - `KEY=value`, `export KEY=value` and YAML-style `KEY: value`; keys of letters, digits, `_`, `.`;
 * - `#` starts a comment at the start of a statement, or after whitespace in an unquoted value;
 * - unquoted values are trimmed; `'single'` quotes are literal (no escapes, no expansion);
 * - `"double"` quotes may span lines; `\n` and `\r` become newline and CR, any other `\X` becomes `X`
 *   (so `\"` and `\\`), except `\$`, which stays a literal `$`;
 * - `$VAR` and `${VAR}` (upper-case names) expand in unquoted and double-quoted values, from the
 *   file's earlier keys first, then the process environment; unknown names expand to "";
 * - several statements may share a line after a quoted value (`A="x" B=y`); `---` lines are ignored.
 * Deviation: where godotenv fails the whole file on a malformed key, that one statement is skipped.
 */
export function parseDotenvFile(text: string, env: Env = {}): Record<string, string> {
  const src = text.replaceAll("\r\n", "\n").replaceAll("---\n", "\n");
  const out: Record<string, string> = {};
  let i = 0;
  const n = src.length;
  const lineEnd = (from: number) => {
    const k = src.indexOf("\n", from);
    return k < 0 ? n : k;
  };
  while (i < n) {
    while (i < n && /\s/.test(src[i] as string)) i++;
    if (i >= n) break;
    if (src[i] === "#") {
      i = lineEnd(i);
      continue;
    }
    if (src.startsWith("export", i) && isSpace(src[i + 6])) {
      i += 6;
      while (isSpace(src[i])) i++;
    }
    // The key: up to `=` or `:`, spaces ignored, letters/digits/`_`/`.` only.
    let key = "";
    let bad = false;
    while (i < n && src[i] !== "=" && src[i] !== ":" && src[i] !== "\n") {
      const c = src[i] as string;
      if (!isSpace(c)) {
        if (/[\p{L}\p{N}_.]/u.test(c)) key += c;
        else bad = true;
      }
      i++;
    }
    if (src[i] !== "=" && src[i] !== ":") {
      i = lineEnd(i); // no separator on this line: not a statement
      continue;
    }
    i++;
    while (isSpace(src[i])) i++;
    const quote = src[i];
    let value: string;
    if (quote === '"' || quote === "'") {
      let end = i + 1;
      while (end < n && !(src[end] === quote && src[end - 1] !== "\\")) end++;
      if (end >= n) break; // unterminated quote: godotenv stops with an error; keep what we have
      const raw = trimChar(src.slice(i, end), quote);
      value = quote === '"' ? expand(unescapeDouble(raw), out, env) : raw;
      i = end + 1;
    } else {
      const end = Math.min(lineEnd(i), indexOrEnd(src, "\r", i));
      let body = src.slice(i, end);
      for (let k = body.length - 1; k > 0; k--) {
        if (body[k] === "#" && isSpace(body[k - 1])) {
          body = body.slice(0, k);
          break;
        }
      }
      value = expand(body.replace(/^[\t\v\f\r \x85\xa0]+|[\t\v\f\r \x85\xa0]+$/g, ""), out, env);
      i = end;
    }
    if (key && !bad) out[key] = value;
  }
  return out;
}

function isSpace(c: string | undefined): boolean {
  return c !== undefined && "\t\v\f\r \x85\xa0".includes(c);
}

function indexOrEnd(s: string, needle: string, from: number): number {
  const k = s.indexOf(needle, from);
  return k < 0 ? s.length : k;
}

function trimChar(s: string, c: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === c) a++;
  while (b > a && s[b - 1] === c) b--;
  return s.slice(a, b);
}

/** Double-quote escapes: `\n`, `\r`; `\X` → `X` for any other X except `$`. */
function unescapeDouble(s: string): string {
  return s
    .replace(/\\./gs, (m) => (m === "\\n" ? "\n" : m === "\\r" ? "\r" : m))
    .replace(/\\([^$])/gs, "$1");
}

const VAR = /(\\)?(\$)(\()?\{?([A-Z0-9_]+)?\}?/g;

/** `$VAR` / `${VAR}`: the file's earlier keys, then the environment; `\$` is a literal `$`. */
function expand(s: string, vars: Record<string, string>, env: Env): string {
  return s.replace(VAR, (match, escaped: string | undefined, _d, _p, name: string | undefined) => {
    if (escaped) return match.slice(1);
    if (!name) return match;
    if (Object.hasOwn(vars, name)) return vars[name] as string;
    return env[name] ?? "";
  });
}
