#!/usr/bin/env bun
import type { Fact } from "../lib/memory/facts.ts";
/**
 * Recall quality on the development set (scripts/memory-devset.ts): R@5 and R@10 of `memory recall`'s
 * ranking (FactIndex: BM25 fields + proximity + feedback × live score × workspace), overall and per
 * question kind, on the dev stores and on held-out stores, next to a plain BM25 baseline.
 * `bun scripts/bench-recall.ts` prints JSON.
 */
import { FactIndex } from "../lib/memory/retrieve.ts";
import { STOP_WORDS, wordRuns } from "../lib/memory/text.ts";
import { talkSet } from "./devset-talk.ts";
import { untouchedSet } from "./devset-talk2.ts";
import { devSet } from "./memory-devset.ts";

/** A store and its questions (the old generated set says `kind`, the conversational one `category`). */
export interface EvalStore {
  facts: Fact[];
  questions: Array<{ q: string; evidence: string[]; kind?: string; category?: string }>;
  workspace: string;
  nowMs: number;
}
type Ranker = (store: EvalStore) => (q: string, k: number) => string[];

/** Plain BM25 (k1 1.2, b 0.75): lower-cased words, stop words dropped, no stemming. */
const searchTerms = (text: string) => wordRuns(text).filter((w) => !STOP_WORDS.has(w));
export const bm25: Ranker = (store) => {
  const docs = store.facts.map((f) => searchTerms(f.content));
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length;
  const n = docs.length;
  return (q, k) => {
    const terms = [...new Set(searchTerms(q))];
    const scored = docs.map((d, i) => {
      let s = 0;
      for (const t of terms) {
        const tf = d.filter((x) => x === t).length;
        if (!tf) continue;
        const m = df.get(t) ?? 0;
        const idf = Math.log(1 + (n - m + 0.5) / (m + 0.5));
        s += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
      }
      return { i, s };
    });
    return scored
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map((x) => store.facts[x.i]?.id as string);
  };
};

/** chatcli's recall ranking. */
export const chatcli: Ranker = (store) => {
  const index = new FactIndex(store.facts);
  return (q, k) =>
    index
      .search(q, { nowMs: store.nowMs, workspace: store.workspace, limit: k })
      .map((h) => h.fact.id);
};

export interface Quality {
  questions: number;
  r5: number;
  r10: number;
  by_kind: Record<string, { n: number; r5: number; r10: number }>;
}

/** Mean share of each question's evidence in the top 5 / top 10, in percent. */
export function evaluate(stores: readonly EvalStore[], ranker: Ranker): Quality {
  const kinds: Record<string, { n: number; r5: number; r10: number }> = {};
  let n = 0;
  let r5 = 0;
  let r10 = 0;
  for (const store of stores) {
    const rank = ranker(store);
    for (const q of store.questions) {
      const top = rank(q.q, 10);
      const hit = (k: number) =>
        q.evidence.filter((id) => top.slice(0, k).includes(id)).length / q.evidence.length;
      const name = q.kind ?? q.category ?? "?";
      kinds[name] ??= { n: 0, r5: 0, r10: 0 };
      const kind = kinds[name] as { n: number; r5: number; r10: number };
      kind.n++;
      kind.r5 += hit(5);
      kind.r10 += hit(10);
      n++;
      r5 += hit(5);
      r10 += hit(10);
    }
  }
  const pct = (x: number, d: number) => Math.round((1000 * x) / d) / 10;
  const by_kind: Quality["by_kind"] = {};
  for (const [k, v] of Object.entries(kinds))
    by_kind[k] = { n: v.n, r5: pct(v.r5, v.n), r10: pct(v.r10, v.n) };
  return { questions: n, r5: pct(r5, n), r10: pct(r10, n), by_kind };
}

/** The report `npm run bench` prints: the old generated set and the conversational one. */
export function recallQuality() {
  const dev = devSet("dev");
  const heldout = devSet("heldout");
  return {
    stores: { dev: dev.length, heldout: heldout.length, facts_per_store: dev[0]?.facts.length },
    dev: { chatcli: evaluate(dev, chatcli), bm25: evaluate(dev, bm25) },
    heldout: { chatcli: evaluate(heldout, chatcli), bm25: evaluate(heldout, bm25) },
    talk: talkQuality(),
  };
}

/**
 * The conversational sets: scripts/devset-talk.ts (dev for tuning, test held out) and the untouched
 * set of the second generator, scripts/devset-talk2.ts (never tuned on).
 */
export function talkQuality() {
  const dev = talkSet("dev");
  const test = talkSet("test");
  const untouched = untouchedSet();
  const facts = (xs: EvalStore[]) =>
    Math.round(xs.reduce((a, s) => a + s.facts.length, 0) / xs.length);
  return {
    conversations: {
      dev: dev.length,
      test: test.length,
      untouched: untouched.length,
      facts_per_conversation: facts(test),
      facts_per_untouched: facts(untouched),
    },
    dev: { chatcli: evaluate(dev, chatcli), bm25: evaluate(dev, bm25) },
    test: { chatcli: evaluate(test, chatcli), bm25: evaluate(test, bm25) },
    untouched: { chatcli: evaluate(untouched, chatcli), bm25: evaluate(untouched, bm25) },
  };
}

if (import.meta.main) {
  const which = process.argv[2];
  console.log(JSON.stringify(which === "talk" ? talkQuality() : recallQuality(), null, 2));
}
