import type { Env } from "./ctx.ts";

/**
 * A `.env` file read exactly as the Go ChatCLI reads it: github.com/joho/godotenv v1.5.1 (the version
 * ChatCLI pins), whose parser walks the file's bytes:
 * - CRLF becomes LF; blank lines and `#` lines between statements are skipped;
 * - a statement is `[export ]KEY=value` or `KEY: value`; the key may hold letters and digits (tested
 *   byte by byte, each byte read as a Latin-1 rune — so most non-ASCII keys fail), `_`, `.` and
 *   spaces; any other character — `-`, a newline before `=`, `---` — fails the WHOLE file;
 * - an unquoted value runs to the end of the line, is cut at the last ` #` (a comment) and trimmed;
 * - `'single'` and `"double"` values run to the next quote not preceded by a backslash (they may
 *   span lines; every quote at either end is trimmed); an unterminated one fails the whole file;
 *   double quotes turn `\n`/`\r` into newline/CR and `\X` into `X` (except `\$`);
 * - `$VAR`, `${VAR}` (upper-case names) expand in unquoted and double-quoted values from the keys
 *   defined EARLIER IN THE FILE only (never the process environment); unknown names become "";
 *   `\$` and `$(` are kept literally (less their first character);
 * - after a quoted value, the rest of the line is read as the next statement.
 * A failed file loads nothing: `parseDotenv` says where (1-based line) and why.
 */
export type DotenvResult =
  | { ok: true; values: Record<string, string> }
  | { ok: false; line: number; message: string };

export function parseDotenv(text: string): DotenvResult {
  const src = Buffer.from(text.replaceAll("\r\n", "\n"), "utf8");
  const out: Record<string, string> = {};
  let at: number | undefined = 0;
  const fail = (pos: number, message: string): DotenvResult => ({
    ok: false,
    line: lineOf(src, pos),
    message,
  });
  for (;;) {
    at = statementStart(src, at);
    if (at === undefined) break;
    const key = locateKey(src, at);
    if ("error" in key) return fail(key.pos, key.error);
    const value = extractValue(src, key.rest, out);
    if ("error" in value) return fail(value.pos, value.error);
    out[key.key] = value.value;
    at = value.rest;
  }
  // Go's os.Setenv("") fails and is ignored: a keyless last line sets nothing.
  delete out[""];
  return { ok: true, values: out };
}

/**
 * The variables of a `.env` file; {} when godotenv would reject it (see parseDotenv). `_env` is no
 * longer read: godotenv 1.5.1 never expands from the process environment.
 */
export function parseDotenvFile(text: string, _env: Env = {}): Record<string, string> {
  const r = parseDotenv(text);
  return r.ok ? r.values : {};
}

function lineOf(src: Buffer, pos: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(pos, src.length); i++) if (src[i] === 0x0a) line++;
  return line;
}

/** One UTF-8 rune at `i`: [code point, byte length]; invalid bytes are U+FFFD of length 1. */
function rune(src: Buffer, i: number): [number, number] {
  const b = src[i] as number;
  if (b < 0x80) return [b, 1];
  const need = b >= 0xf8 ? -1 : b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : -1;
  if (need < 0) return [0xfffd, 1];
  let cp = b & (0x3f >> need);
  for (let k = 1; k <= need; k++) {
    const c = src[i + k];
    if (c === undefined || (c & 0xc0) !== 0x80) return [0xfffd, 1];
    cp = (cp << 6) | (c & 0x3f);
  }
  return [cp, need + 1];
}

/** unicode.IsSpace */
const isUnicodeSpace = (r: number) =>
  (r >= 0x09 && r <= 0x0d) ||
  r === 0x20 ||
  r === 0x85 ||
  r === 0xa0 ||
  r === 0x1680 ||
  (r >= 0x2000 && r <= 0x200a) ||
  r === 0x2028 ||
  r === 0x2029 ||
  r === 0x202f ||
  r === 0x205f ||
  r === 0x3000;

/** godotenv's isSpace: a space but not a line break. */
const isSpace = (r: number) =>
  r === 0x09 || r === 0x0b || r === 0x0c || r === 0x0d || r === 0x20 || r === 0x85 || r === 0xa0;

/** The first byte at or after `from` whose rune fails `pred` (src.length if none). */
function skipRunes(src: Buffer, from: number, pred: (r: number) => boolean): number {
  let i = from;
  while (i < src.length) {
    const [r, n] = rune(src, i);
    if (!pred(r)) return i;
    i += n;
  }
  return i;
}

/** Where the next statement starts (spaces and comment lines skipped); undefined at the end. */
function statementStart(src: Buffer, from: number): number | undefined {
  let i = from;
  for (;;) {
    i = skipRunes(src, i, isUnicodeSpace);
    if (i >= src.length) return undefined;
    if (src[i] !== 0x23) return i; // '#'
    const nl = src.indexOf(0x0a, i);
    if (nl < 0) return undefined;
    i = nl;
  }
}

/** unicode.IsLetter / unicode.IsNumber of a rune made from one byte (Latin-1). */
const latin1 = (b: number) => String.fromCharCode(b);
const isLetterOrNumber = (b: number) => /[\p{L}\p{N}]/u.test(latin1(b));

function locateKey(
  src: Buffer,
  from: number,
): { key: string; rest: number } | { error: string; pos: number } {
  let i = skipRunes(src, from, isSpace);
  if (src.subarray(i, i + 6).toString("latin1") === "export") {
    const after = i + 6;
    if (after < src.length && isSpace(rune(src, after)[0])) i = skipRunes(src, after, isSpace);
  }
  const start = i;
  let end = -1;
  let offset = 0;
  for (let k = start; k < src.length; k++) {
    const b = src[k] as number;
    if (isSpace(b)) continue;
    if (b === 0x3d || b === 0x3a) {
      end = k;
      offset = k + 1;
      break;
    }
    if (b === 0x5f || b === 0x2e || isLetterOrNumber(b)) continue;
    const shown = b === 0x0a ? "\\n" : b < 0x80 ? latin1(b) : `\\x${b.toString(16)}`;
    return { error: `unexpected character "${shown}" in variable name`, pos: k };
  }
  if (start >= src.length) return { error: "zero length string", pos: start };
  // No '=' before the end of the file: an empty key, and the whole rest is its value.
  const key = end < 0 ? "" : trimRightUnicode(src.subarray(start, end).toString("utf8"));
  return { key, rest: skipRunes(src, end < 0 ? start : offset, isSpace) };
}

function trimRightUnicode(s: string): string {
  let end = s.length;
  while (end > 0 && isUnicodeSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

function extractValue(
  src: Buffer,
  from: number,
  vars: Record<string, string>,
): { value: string; rest: number } | { error: string; pos: number } {
  const quote = src[from];
  if (quote !== 0x22 && quote !== 0x27) {
    let eol = from;
    while (eol < src.length && src[eol] !== 0x0a && src[eol] !== 0x0d) eol++;
    const line = [...src.subarray(from, eol).toString("utf8")];
    let endOfVar = line.length;
    for (let i = line.length - 1; i > 0; i--) {
      if (line[i] === "#" && isSpace((line[i - 1] as string).codePointAt(0) as number)) {
        endOfVar = i;
        break;
      }
    }
    const trimmed = trimFunc(line.slice(0, endOfVar).join(""), isSpace);
    return { value: expandVariables(trimmed, vars), rest: eol };
  }
  for (let i = from + 1; i < src.length; i++) {
    if (src[i] !== quote || src[i - 1] === 0x5c) continue;
    const q = String.fromCharCode(quote);
    let value = trimChar(src.subarray(from, i).toString("utf8"), q);
    if (quote === 0x22) value = expandVariables(expandEscapes(value), vars);
    return { value, rest: i + 1 };
  }
  return { error: "unterminated quoted value", pos: from };
}

function trimFunc(s: string, pred: (r: number) => boolean): string {
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && pred((chars[a] as string).codePointAt(0) as number)) a++;
  while (b > a && pred((chars[b - 1] as string).codePointAt(0) as number)) b--;
  return chars.slice(a, b).join("");
}

function trimChar(s: string, c: string): string {
  let a = 0;
  let b = s.length;
  while (b > a && s[b - 1] === c) b--;
  while (a < b && s[a] === c) a++;
  return s.slice(a, b);
}

/** Double-quote escapes: `\n`, `\r`; then `\X` → `X` for any X but `$` (Go's `.` skips newlines). */
function expandEscapes(s: string): string {
  return s
    .replace(/\\./g, (m) => (m === "\\n" ? "\n" : m === "\\r" ? "\r" : m))
    .replace(/\\([^$])/gs, "$1");
}

const VAR = /(\\)?(\$)(\()?\{?([A-Z0-9_]+)?\}?/g;

/** `$VAR` / `${VAR}` from the file's earlier keys only; `\$…` and `$(…` lose their first char. */
function expandVariables(s: string, vars: Record<string, string>): string {
  return s.replace(VAR, (match, escaped?: string, _d?: string, paren?: string, name?: string) => {
    if (escaped === "\\" || paren === "(") return match.slice(1);
    if (name) return Object.hasOwn(vars, name) ? (vars[name] as string) : "";
    return match;
  });
}
