import { escapeControls } from "../core/controls.ts";
import type { Env, Sink } from "../core/ctx.ts";
import { mayRedact, redact, redactDeep } from "../core/redact.ts";

export type ColorChoice = "auto" | "always" | "never";

/** --color > NO_COLOR > FORCE_COLOR > auto (per stream). */
export function shouldColor(sink: Sink, env: Env, choice: ColorChoice = "auto"): boolean {
  if (choice === "always") return true;
  if (choice === "never") return false;
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true;
  return sink.isTTY && env["TERM"] !== "dumb";
}

// CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, lone ESC pairs, the same as 8-bit C1
// introducers (U+009B CSI, U+009D OSC, U+0090/98/9E/9F strings, ST U+009C), and C0/C1 controls except
// \t \n — a lone ESC too (an unfinished sequence at the end of an answer must not reach a terminal).
const ESCAPES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u001b[PX^_][\s\S]*?(?:\u001b\\|\u009c)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]|\u009d[\s\S]*?(?:\u0007|\u009c|\u001b\\)|[\u0090\u0098\u009e\u009f][\s\S]*?(?:\u009c|\u001b\\)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Where a held-back escape may start: ESC, CR, and the 8-bit introducers. */
const INTRODUCERS = /[\u001b\r\u0090\u0098\u009b\u009d\u009e\u009f]/g;

/**
 * A warning or error for stderr that may quote input (a `.env` line, a file name, a provider's error
 * body): the run's secrets redacted and control characters written out visibly (`\x1b`), so the user
 * sees what was there and the terminal acts on none of it.
 */
export function quotedLine(text: string, secrets: readonly string[] = []): string {
  return escapeControls(redact(text, secrets));
}

/**
 * What every match of ESCAPES (and a lone CR) starts with: ESC, the C1 introducers, CR and the other
 * C0/C1 controls but \t \n. A text without one is left as it is (one scan instead of two replaces:
 * compact writes megabytes through here).
 */
const CONTROL_CHAR = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Strips escape sequences and control characters (keeps \n and \t; \r\n becomes \n). */
export function stripControl(text: string): string {
  if (!CONTROL_CHAR.test(text)) return text;
  return text.replace(/\r(?!\n)/g, "").replace(ESCAPES, "");
}

/**
 * stripControl on every string inside a JSON-able value, keys too (a tool name the model made up is a
 * key of `tools.by_name`): JSON never carries escapes.
 */
export function stripControlDeep<T>(value: T): T {
  if (typeof value === "string") return stripControl(value) as T;
  if (Array.isArray(value)) return value.map((v) => stripControlDeep(v)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[stripControl(k)] = stripControlDeep(v);
    return out as T;
  }
  return value;
}

/**
 * One JSON document for stdout: secrets redacted, escape sequences and control characters gone.
 * `known.plain`: the caller vouches that `value` is plain data — what JSON.parse gives, plus
 * strings, numbers, arrays and plain objects — so the walk that checks it is skipped (500 facts
 * read from the store: ~1.5 ms of a cold start, more than the stringify).
 */
export function jsonDocument(
  value: unknown,
  secrets: readonly string[],
  indent?: number,
  known?: { plain: true },
): string {
  // Most documents hold nothing to hide: stringified once and checked, instead of a regex pass per
  // string (`memory facts --json` on 500 facts: most of its time). The same text either way.
  const plain =
    known?.plain || isPlainData(value) ? JSON.stringify(value, null, indent) : undefined;
  if (plain !== undefined && !needsCleaning(plain, secrets)) return `${plain}\n`;
  return `${JSON.stringify(stripControlDeep(redactDeep(value, secrets)), null, indent)}\n`;
}

/** Strings, numbers, booleans, null, arrays and plain objects only (what the deep copies keep as is). */
function isPlainData(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "bigint";
  if (depth > 64) return false;
  if (Array.isArray(value)) return value.every((v) => isPlainData(v, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || "toJSON" in value) return false;
  for (const key in value) {
    if (!isPlainData((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** A secret JSON would write escaped, or a character stripControl removes (JSON escapes it). */
const ESCAPED_SECRET = /["\\\u0000-\u001f]/;
const CONTROL_IN_JSON = /\\[rbf]|\\u00|[\u007f-\u009f]/;

/** Whether redaction or control stripping could change any string of a document stringified as `json`. */
function needsCleaning(json: string, secrets: readonly string[]): boolean {
  for (const s of secrets) if (ESCAPED_SECRET.test(s)) return true; // (some(): ~70 µs cold)
  return mayRedact(json, secrets) || CONTROL_IN_JSON.test(json);
}

/**
 * Streaming variant: holds back an incomplete escape sequence at the end of a chunk so a sequence split
 * across two deltas is still removed.
 */
export function createStreamStripper(): { push(chunk: string): string; flush(): string } {
  let pending = "";
  return {
    push(chunk: string): string {
      const text = pending + chunk;
      const lastEsc = lastIntroducer(text);
      if (lastEsc >= 0 && text.length - lastEsc < 64) {
        const tail = text.slice(lastEsc);
        if (!isCompleteEscape(tail)) {
          pending = tail;
          return stripControl(text.slice(0, lastEsc));
        }
      }
      pending = "";
      return stripControl(text);
    },
    flush(): string {
      const out = stripControl(pending);
      pending = "";
      return out;
    },
  };
}

function lastIntroducer(text: string): number {
  let last = -1;
  const from = Math.max(0, text.length - 64);
  INTRODUCERS.lastIndex = from;
  for (let m = INTRODUCERS.exec(text); m; m = INTRODUCERS.exec(text)) last = m.index;
  return last;
}

function isCompleteEscape(tail: string): boolean {
  if (tail.startsWith("\r")) return tail.length > 1;
  if (tail[0] === "\u009b") return /^\u009b[0-?]*[ -/]*[@-~]/.test(tail);
  if (tail[0] !== "\u001b") return /\u0007|\u009c|\u001b\\/.test(tail);
  if (tail.length < 2) return false;
  if (tail[1] === "[") return /^\u001b\[[0-?]*[ -/]*[@-~]/.test(tail);
  if (tail[1] === "]") return /\u0007|\u001b\\|\u009c/.test(tail);
  return true;
}

/** Minimal styling helpers that honour a colour decision. */
export function style(enabled: boolean) {
  const wrap = (open: string, close: string) => (s: string) =>
    enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    bold: wrap("1", "22"),
    dim: wrap("2", "22"),
    red: wrap("31", "39"),
    green: wrap("32", "39"),
    yellow: wrap("33", "39"),
    cyan: wrap("36", "39"),
  };
}
