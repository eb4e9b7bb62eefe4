import type { Fact } from "./facts.ts";
import { liveScore } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import { type FactTokens, factTokens, reconcile } from "./reconcile.ts";
import { searchTerms, stem, wordRuns } from "./text.ts";

/** One retrieved fact with the numbers that ranked it. */
export interface Hit {
  fact: Fact;
  /** Final rank: relevance × live-score factor × workspace factor. */
  score: number;
  /** BM25 relevance of the query to the fact (0 when there is no query). */
  relevance: number;
  /** The fact's live score (§2.3). */
  live: number;
  /** The fact belongs to another workspace (`(from: …)` annotation). */
  fromOther: boolean;
}

const K1 = 1.2;
const B = 0.75;

/**
 * An inverted index over facts for BM25-style recall (stemmed terms, EN+PT stop words, tag field,
 * prefix matches for terms of ≥4 chars). Build once per loaded store; searches are cheap.
 */
export class FactIndex {
  readonly facts: Fact[];
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly tagPostings = new Map<string, number[]>();
  private readonly lengths: number[] = [];
  private readonly avgLen: number;
  private vocab: string[] | undefined;

  constructor(facts: Iterable<Fact>) {
    this.facts = [...facts];
    let total = 0;
    const memo = new Map<string, string>();
    this.facts.forEach((fact, i) => {
      const terms = searchTerms(fact.content, memo);
      this.lengths.push(terms.length);
      total += terms.length;
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        const list = this.postings.get(t);
        if (list) list.push([i, n]);
        else this.postings.set(t, [[i, n]]);
      }
      for (const tag of new Set((fact.tags ?? []).flatMap((x) => wordRuns(x)).map(stem))) {
        const list = this.tagPostings.get(tag);
        if (list) list.push(i);
        else this.tagPostings.set(tag, [i]);
      }
    });
    this.avgLen = this.facts.length ? total / this.facts.length : 1;
  }

  private expansions(term: string): string[] {
    if (term.length < 4) return [];
    this.vocab ??= [...this.postings.keys()];
    return this.vocab.filter((v) => v !== term && v.startsWith(term));
  }

  /** Ranks facts for a query; an empty query ranks every fact by live score. */
  search(query: string, options: { nowMs: number; workspace?: string; limit?: number }): Hit[] {
    const { nowMs, workspace = "" } = options;
    const limit = options.limit ?? 20;
    const terms = [...new Set(searchTerms(query))];
    const n = this.facts.length;
    const rel = new Map<number, number>();
    const add = (i: number, s: number) => rel.set(i, (rel.get(i) ?? 0) + s);
    for (const term of terms) {
      const variants: Array<[string, number]> = [[term, 1]];
      for (const v of this.expansions(term)) variants.push([v, 0.6]);
      for (const [t, weight] of variants) {
        const list = this.postings.get(t);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const [i, tf] of list) {
          const norm = tf + K1 * (1 - B + (B * (this.lengths[i] ?? 0)) / this.avgLen);
          add(i, (weight * idf * tf * (K1 + 1)) / norm);
        }
      }
      const tagged = this.tagPostings.get(term);
      if (tagged) {
        const idf = Math.log(1 + (n - tagged.length + 0.5) / (tagged.length + 0.5));
        for (const i of tagged) add(i, 0.5 * idf);
      }
    }
    if (terms.length === 0 && query.trim() !== "") return [];
    const candidates: number[] = terms.length ? [...rel.keys()] : this.facts.map((_, i) => i);
    const hits: Hit[] = candidates.map((i) => {
      const fact = this.facts[i] as Fact;
      const live = liveScore(fact, nowMs);
      const relevance = rel.get(i) ?? 0;
      const source = fact.source_project ?? "";
      const fromOther = source !== "" && workspace !== "" && source !== workspace;
      const place = source === "" || workspace === "" ? 1 : fromOther ? 0.8 : 1.3;
      const base = terms.length ? relevance * (1 + 0.35 * Math.log(1 + live)) : live;
      return { fact, score: base * place, relevance, live, fromOther };
    });
    hits.sort((a, b) => b.score - a.score || (a.fact.id < b.fact.id ? -1 : 1));
    return dropSuperseded(hits, limit);
  }
}

/** When two hits state conflicting versions of the same subject, keep only the newer one. */
function dropSuperseded(hits: Hit[], limit: number): Hit[] {
  const out: Hit[] = [];
  const tokens: FactTokens[] = [];
  for (const hit of hits) {
    if (out.length >= limit) break;
    const mine = factTokens(hit.fact.content);
    const clash = out.findIndex(
      (other, k) =>
        (other.fact.category || "general") === (hit.fact.category || "general") &&
        (other.fact.source_project ?? "") === (hit.fact.source_project ?? "") &&
        mine.sig.length > 0 &&
        reconcile(mine, tokens[k] as FactTokens).kind !== "distinct",
    );
    if (clash < 0) {
      out.push(hit);
      tokens.push(mine);
      continue;
    }
    const kept = out[clash] as Hit;
    if (born(hit.fact) > born(kept.fact)) {
      out[clash] = { ...hit, score: Math.max(hit.score, kept.score) };
      tokens[clash] = mine;
    }
  }
  return out;
}

function born(fact: Fact): number {
  return parseGoTime(fact.created_at) ?? 0;
}
