import { jaccard, sameSubject, significantTokens } from "./text.ts";

/**
 * What the reconcile step (reference §2.4) compares: Go's significant tokens, the same without the
 * tokens that hold a digit (`words`), and the numbers, versions, ports and identifiers (`nums`).
 */
export interface FactTokens {
  /** §2.4 significant tokens (Unicode letter/digit runs of ≥ 3 runes minus stop words), in order. */
  sig: string[];
  /**
   * The tokens in order with each number masked (`service17` → `service#`, `9017` → `#`), words as in
   * `sig`: the shape of the sentence, to compare facts whose numbers differ.
   */
  masked: string[];
  /** Digit-bearing tokens of any length, dots and dashes kept: `20`, `1.22`, `9017`, `v3.4-rc1`. */
  nums: string[];
  /** Distinct `sig` count (Jaccard's upper bound is the ratio of set sizes). */
  sigSize: number;
}

const NUMERIC = /[\p{L}\p{N}]*\p{N}[\p{L}\p{N}]*(?:[.\-_:/][\p{L}\p{N}]+)*/gu;
const TOKEN = /[\p{L}\p{N}]*\p{N}[\p{L}\p{N}]*(?:[.\-_:/][\p{L}\p{N}]+)*|[\p{L}\p{N}]+/gu;

/** Digit-bearing tokens, lower-cased: numbers carry meaning (`node 20` is not `node 22`). */
export function numericTokens(text: string): string[] {
  return text.toLowerCase().match(NUMERIC) ?? [];
}

export function factTokens(text: string): FactTokens {
  const sig = significantTokens(text);
  const masked: string[] = [];
  for (const t of text.toLowerCase().match(TOKEN) ?? []) {
    if (/\p{N}/u.test(t)) masked.push(t.replace(/[\p{N}.\-_:/]+/gu, "#"));
    else masked.push(...significantTokens(t));
  }
  return {
    sig,
    masked,
    nums: numericTokens(text),
    sigSize: new Set(sig).size,
  };
}

/** How a new fact relates to a stored one of the same category. */
export type Verdict =
  | { kind: "same" } // reinforce the stored fact
  | { kind: "update"; j: number } // same subject, newer value: may supersede
  | { kind: "distinct" };

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

/**
 * §2.4 with numbers taken seriously. Equal numbers (or none): Go's rule — Jaccard of the significant
 * tokens ≥ 0.85 is the same fact, ≥ 0.5 with the same subject an update. Different numbers are never
 * the same fact: when the sentences agree with their numbers masked (≥ 0.85, or ≥ 0.5 with the same
 * subject) it is an update of a
 * value ("node 20" → "node 22", "port 9017" → "port 9018" of service 17) unless two or more of the
 * stored fact's numbers changed — then the identifier changed and its values with it: another subject
 * ("service 17 on port 9017" vs "service 31 on port 9031"). When unsure, both facts stay.
 */
export function reconcile(fresh: FactTokens, stored: FactTokens): Verdict {
  if (sameSet(fresh.nums, stored.nums)) {
    // Jaccard ≤ min/max of the set sizes: skip what cannot reach 0.5 (the measure Go uses, on sets).
    const small = Math.min(fresh.sigSize, stored.sigSize);
    if (small < 0.5 * Math.max(fresh.sigSize, stored.sigSize)) return { kind: "distinct" };
    const j = jaccard(fresh.sig, stored.sig);
    if (j >= 0.85) return { kind: "same" };
    if (j >= 0.5 && sameSubject(fresh.sig, stored.sig)) return { kind: "update", j };
    return { kind: "distinct" };
  }
  const j = jaccard(fresh.masked, stored.masked);
  if (j < 0.85 && !(j >= 0.5 && sameSubject(fresh.masked, stored.masked)))
    return { kind: "distinct" };
  // One value changed is an update; two or more changed means the identifier changed with them.
  const now = new Set(fresh.nums);
  const gone = new Set(stored.nums.filter((n) => !now.has(n))).size;
  if (gone >= 2) return { kind: "distinct" };
  return { kind: "update", j };
}
