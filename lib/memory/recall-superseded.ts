import type { Fact } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import { type Corpus, SPEAKER } from "./recall-corpus.ts";
import type { Hit } from "./recall-hit.ts";
import type { Ranked } from "./recall-scores.ts";
import { type FactTokens, factTokens, reconcile } from "./reconcile.ts";

/**
 * The last step of recall (lib/memory/retrieve.ts): of two hits that state versions of one thing,
 * only the newer is kept.
 */

/** When two hits state conflicting versions of the same subject, keep only the newer one. */
export function dropSuperseded(
  c: Corpus,
  ranked: readonly Ranked[],
  limit: number,
  workspace: string,
): Hit[] {
  const out: Hit[] = [];
  const slot: number[] = [];
  // tokens only for the facts a cheap look at their terms cannot tell apart (cold recall: the
  // tokenizer and the pairwise comparison cost more than the rest of the ranking)
  const tokens: Array<FactTokens | undefined> = [];
  for (const r of ranked) {
    if (out.length >= limit) break;
    const fact = c.fact(r.i);
    const source = fact.source_project ?? "";
    const fromOther = source !== "" && workspace !== "" && source !== workspace;
    const hit: Hit = { fact, score: r.score, relevance: r.relevance, live: r.live, fromOther };
    let mine: FactTokens | undefined;
    const clash = slot.findIndex((j, k) => {
      if (c.category[j] !== c.category[r.i] || c.project[j] !== c.project[r.i]) return false;
      if (!mayConflict(c, r.i, j)) return false;
      mine ??= factTokens(fact.content);
      tokens[k] ??= factTokens((out[k] as Hit).fact.content);
      return mine.sig.length > 0 && conflicts(mine, tokens[k], SPEAKER.test(fact.content));
    });
    if (clash < 0) {
      out.push(hit);
      slot.push(r.i);
      tokens.push(mine);
      continue;
    }
    const kept = out[clash] as Hit;
    if (born(hit.fact) > born(kept.fact)) {
      out[clash] = { ...hit, score: Math.max(hit.score, kept.score) };
      slot[clash] = r.i;
      tokens[clash] = mine;
    }
  }
  return out;
}

/**
 * Whether two facts share enough of their terms to be versions of one thing: §2.4 needs half their
 * significant tokens in common, so facts sharing under a quarter of their terms never are. Tiny
 * facts are always compared.
 */
function mayConflict(c: Corpus, i: number, j: number): boolean {
  const a0 = c.seqStart[i] as number;
  const a1 = c.seqStart[i + 1] as number;
  const b0 = c.seqStart[j] as number;
  const b1 = c.seqStart[j + 1] as number;
  const small = Math.min(a1 - a0, b1 - b0);
  if (small < 4) return true;
  let shared = 0;
  for (let p = a0; p < a1; p++) {
    const t = c.seq[p] as number;
    for (let q = b0; q < b1; q++)
      if (c.seq[q] === t) {
        shared++;
        break;
      }
  }
  return shared >= 0.25 * small;
}

/**
 * Two recalled facts state versions of one thing (§2.4's same fact or same-subject update). Dialog
 * turns (`Ana: …`) all share their speaker as a subject ("Ana: I've been painting…" / "Ana: I've
 * been hiking…"): for them only the same fact counts.
 */
function conflicts(a: FactTokens, b: FactTokens, dialog: boolean): boolean {
  const v = reconcile(a, b);
  return v.kind === "same" || (v.kind === "update" && !dialog);
}

function born(fact: Fact): number {
  return parseGoTime(fact.created_at) ?? 0;
}
