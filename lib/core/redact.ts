import { CREDENTIAL_BINDINGS } from "./credential-bindings.ts";
import type { Env } from "./ctx.ts";

/** Secret shapes, most specific first. Each match becomes `[REDACTED:kind]`. */
// `hint`: literal text every match contains, checked with indexOf first (a regex scan of a large
// text is ~20× slower, and most texts hold none of them).
const PATTERNS: ReadonlyArray<{ kind: string; re: RegExp; hint: readonly string[] }> = [
  {
    kind: "private_key",
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g,
    hint: ["PRIVATE KEY-----"],
  },
  { kind: "anthropic_key", re: /\bsk-ant-[A-Za-z0-9_-]{16,}/g, hint: ["sk-ant-"] },
  {
    kind: "openai_key",
    re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    hint: ["sk-"],
  },
  {
    kind: "github_token",
    re: /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}/g,
    hint: ["ghp_", "gho_", "ghs_", "ghu_", "ghr_"],
  },
  { kind: "github_token", re: /\bgithub_pat_[A-Za-z0-9_]{30,}/g, hint: ["github_pat_"] },
  { kind: "slack_token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, hint: ["xox"] },
  { kind: "aws_access_key", re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, hint: ["AKIA", "ASIA"] },
  { kind: "google_api_key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g, hint: ["AIza"] },
];

/**
 * Every hint at once: one scan of a large text that holds none of them (most texts), not one each.
 * Plain loops at module load: the engine's first flatMap costs ~0.15 ms, every start pays it.
 */
const ANY_HINT = new RegExp(
  (() => {
    const parts: string[] = [];
    for (const p of PATTERNS)
      for (const h of p.hint) parts.push(h.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return parts.join("|");
  })(),
);

const KEY_VARS = /(?:KEY|TOKEN|SECRET|PASSWORD)$/;
/** Where a credential binding names a source, not a secret (a profile name, a file, a URL). */
const NOT_SECRET = /_PROFILE$|_FILE$|_URI$/;
/** Every variable the provider table binds as a credential (CLIENT_ID, AWS_ACCESS_KEY_ID…). */
const BOUND = new Set<string>();
for (const b of CREDENTIAL_BINDINGS)
  for (const name of b.credentials) if (!NOT_SECRET.test(name)) BOUND.add(name);

/**
 * The values of configured secrets (env vars named *KEY, *TOKEN, …, and every credential the provider
 * table binds) long enough to be worth hiding.
 */
export function configuredSecrets(env: Env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8) continue;
    const upper = name.toUpperCase();
    if (KEY_VARS.test(upper) || BOUND.has(upper)) out.push(value);
  }
  return out.sort((a, b) => b.length - a.length);
}

/**
 * Whether `redact(text, secrets)` may change anything: a configured secret or a pattern's literal
 * is in the text. False means it returns the text as it is (one regex scan instead of a pass per
 * secret shape).
 */
export function mayRedact(text: string, secrets: readonly string[] = []): boolean {
  // a loop, not some(): that builtin's first call costs a start ~70 µs (issue 23)
  for (const value of secrets) if (text.includes(value)) return true;
  return ANY_HINT.test(text);
}

/** Replaces secrets in text with `[REDACTED:kind]`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const value of secrets) {
    if (out.includes(value)) out = out.split(value).join("[REDACTED:configured_key]");
  }
  if (!ANY_HINT.test(out)) return out;
  for (const { kind, re, hint } of PATTERNS) {
    if (!hint.some((h) => out.includes(h))) continue;
    re.lastIndex = 0;
    out = out.replace(re, `[REDACTED:${kind}]`);
  }
  return out;
}

/** Redacts every string inside a JSON-able value (keys untouched). */
export function redactDeep<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === "string") return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, secrets);
    return out as T;
  }
  return value;
}

/** Characters between the pieces of a JSON document (structure, white space, quotes). */
const BETWEEN_PIECES = /[\s,:{}[\]"]/;
const PIECE_CHUNK = 1 << 16;

/**
 * `redact` over a text given in pieces (JSON written message by message), yielding chunks whose
 * concatenation is exactly `redact(pieces.join(""), secrets)` without ever holding the whole text:
 * pieces are batched into ~64 KB chunks and each is redacted alone, which is the same because no
 * secret can match across the JSON between two pieces. Where one could — a configured secret holding
 * JSON punctuation, or a private key block (its pattern spans anything up to its END line) — the rest
 * of the text is redacted as one string.
 */
export function* redactPieces(
  pieces: Iterable<string>,
  secrets: readonly string[] = [],
  chunkChars = PIECE_CHUNK,
) {
  let whole = secrets.some((s) => BETWEEN_PIECES.test(s));
  let chunk: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    chunk.push(piece);
    size += piece.length;
    if (whole || size < chunkChars) continue;
    const text = chunk.join("");
    if (text.includes("PRIVATE KEY-----")) {
      whole = true;
      chunk = [text];
      continue;
    }
    yield redact(text, secrets);
    chunk = [];
    size = 0;
  }
  if (chunk.length > 0) yield redact(chunk.join(""), secrets);
}

/**
 * `redact` over text that arrives in pieces (an answer's deltas): a configured secret split across
 * two pieces is still replaced. Holds back only a tail that could be the start of a secret (so an
 * answer streams as it comes, and a stalled stream still shows what it sent); `flush` gives the rest.
 * With no configured secrets it passes pieces through (patterns only).
 */
export function createStreamRedactor(secrets: () => readonly string[]): {
  push(piece: string): string;
  flush(): string;
  pending(): boolean;
} {
  let held = "";
  return {
    push(piece: string): string {
      const list = secrets().filter((x) => x.length > 0);
      if (list.length === 0) return redact(piece, list);
      const text = held + piece;
      let end = text.length - secretPrefixTail(text, list);
      // a secret that starts before the cut and ends after it: cut after it
      for (const x of list) {
        for (let at = text.indexOf(x); at >= 0 && at < end; at = text.indexOf(x, at + 1))
          if (at + x.length > end) end = at + x.length;
      }
      held = text.slice(end);
      return redact(text.slice(0, end), list);
    },
    flush(): string {
      const out = redact(held, secrets());
      held = "";
      return out;
    },
    pending: () => held !== "",
  };
}

/** The length of the longest tail of `text` that is a proper prefix of one of `secrets`. */
function secretPrefixTail(text: string, secrets: readonly string[]): number {
  let best = 0;
  for (const x of secrets) {
    const from = Math.max(0, text.length - (x.length - 1));
    for (let at = from; at < text.length && text.length - at > best; at++) {
      if (text.charCodeAt(at) !== x.charCodeAt(0)) continue;
      if (x.startsWith(text.slice(at))) {
        best = text.length - at;
        break;
      }
    }
  }
  return best;
}
