/**
 * A known secret the model transformed before putting it in a URL or a query: with separators
 * between its characters (`R.t.S.e…`, `52-74-53…`), reversed, in a Caesar shift (rot13 or any
 * ROT-n of its letters), hex after the separators are stripped, in any case, and any combination of
 * these. The text is brought to canonical forms — every non-alphanumeric character removed,
 * lower-cased, and hex runs decoded — and each window is compared with the secret's own canonical
 * form by a rotation-invariant key, forwards and backwards. What is looked for: for values of 16
 * or more every random-looking 8-character piece (a letter, a digit, six distinct characters), as
 * lib/core/secrets.ts does for the raw spellings; for shorter ones the whole value (its letters and
 * digits, 8 or more) when it looks random too. Words alone are left to the raw checks. Used for web_fetch URLs and web_search queries (lib/policy/outbound.ts).
 */
import { decodedForms, type KnownSecret, SECRET_PART } from "./secrets.ts";

/** How the secret was found: the piece/whole and the direction. */
export interface TransformedSecret {
  secret: KnownSecret;
  /** A piece of it rather than the whole value. */
  piece: boolean;
}

/** Letters and digits only, lower case (the separators and the case a model may add or change). */
export function canonical(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * A key equal for a string and every ROT-n of it: letters shifted so the first letter is `a`,
 * digits kept (`rt4f` and `eg4s` share one).
 */
export function rotationKey(s: string): string {
  let shift = -1;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      if (shift < 0) shift = c - 97;
      out += String.fromCharCode(((c - 97 - shift + 26) % 26) + 97);
    } else out += s[i];
  }
  return out;
}

const reverse = (s: string) => [...s].reverse().join("");

/** A canonical window worth refusing alone: a letter, a digit and six distinct characters. */
function randomLooking(w: string): boolean {
  return /\d/.test(w) && /[a-z]/.test(w) && new Set(w).size >= 6;
}

type Index = Map<number, Map<string, TransformedSecret>>;
const indexes = new WeakMap<readonly KnownSecret[], Index>();

/** Per window length, the keys of the secrets' canonical forms and pieces, both directions. */
function indexOf(secrets: readonly KnownSecret[]): Index {
  const cached = indexes.get(secrets);
  if (cached) return cached;
  const index: Index = new Map();
  const add = (w: string, hit: TransformedSecret) => {
    const keys = index.get(w.length) ?? new Map<string, TransformedSecret>();
    index.set(w.length, keys);
    for (const k of [rotationKey(w), rotationKey(reverse(w))]) if (!keys.has(k)) keys.set(k, hit);
  };
  for (const secret of secrets) {
    const c = canonical(secret.value);
    if (c.length < SECRET_PART) continue;
    const pieces: string[] = [];
    if (c.length >= 2 * SECRET_PART)
      for (let i = 0; i + SECRET_PART <= c.length; i++) {
        const w = c.slice(i, i + SECRET_PART);
        if (randomLooking(w)) pieces.push(w);
      }
    // with pieces, any window of the whole contains one; without, the whole value is the key —
    // when it looks random too: words (`localhost-dev`, `correct horse battery`) joined across
    // separators or shifted are too easily met in an ordinary URL
    if (pieces.length === 0 && randomLooking(c)) add(c, { secret, piece: false });
    for (const w of pieces) add(w, { secret, piece: true });
  }
  indexes.set(secrets, index);
  return index;
}

/** The hex runs of a canonical text (16+ digits) decoded at both alignments, canonical again. */
function hexDecoded(c: string): string[] {
  const out: string[] = [];
  for (const m of c.matchAll(/[0-9a-f]{16,}/g))
    for (const start of [0, 1]) {
      const run = m[0].slice(start);
      const bytes = Buffer.from(run.slice(0, run.length - (run.length % 2)), "hex");
      const text = canonical(bytes.toString("latin1"));
      if (text.length >= SECRET_PART) out.push(text);
    }
  return out;
}

/** The canonical texts of a URL or query: each percent-decoded form, and its hex runs decoded. */
export function canonicalForms(text: string): string[] {
  const out = new Set<string>();
  for (const f of decodedForms(text)) {
    const c = canonical(f);
    out.add(c);
    for (const d of hexDecoded(c)) out.add(d);
  }
  return [...out];
}

/**
 * The secret `text` (a URL, a search query) carries in a transformed spelling — separated,
 * reversed, ROT-n, hex after stripping, in any case — whole or as an 8-character piece.
 */
export function carriedTransformedSecret(
  text: string,
  secrets: readonly KnownSecret[],
): TransformedSecret | undefined {
  if (!text || secrets.length === 0) return undefined;
  const index = indexOf(secrets);
  if (index.size === 0) return undefined;
  for (const c of canonicalForms(text))
    for (const [length, keys] of index)
      for (let i = 0; i + length <= c.length; i++) {
        const hit = keys.get(rotationKey(c.slice(i, i + length)));
        if (hit) return hit;
      }
  return undefined;
}
