import type { Fact } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import {
  answerContext,
  anyBorn,
  cooccurring,
  dateWindow,
  neighbourContext,
} from "./recall-context.ts";
import { buildCorpus, type Corpus, liveAt, prefixRange, termId, terms } from "./recall-corpus.ts";
import { dayEvent, saysWhen } from "./recall-dates.ts";
import type { Hit } from "./recall-hit.ts";
import { type ParsedQuery, parseQuery } from "./recall-query.ts";
import { type Ranked, Scores, topOf } from "./recall-scores.ts";
import { dropSuperseded } from "./recall-superseded.ts";

/** One retrieved fact with the numbers that ranked it. */

export interface SearchOptions {
  nowMs: number;
  workspace?: string;
  limit?: number;
  /** A search made by a search (an anchor event's): no anchors of its own. */
  inner?: boolean;
}

/**
 * The weights of the store-statistics signals (recall-context.ts), tuned on the dev split of
 * scripts/devset-talk.ts only; exported so the bench can show what each one adds.
 */
export const TUNING = {
  /** Share of a strong turn's score lent to its dialog neighbours (÷ distance in turns). */
  neighbours: 0.08,
  neighbourTop: 40,
  neighbourWindow: 3,
  /** Share of a strong turn's score lent to the turn that answers it (recall-context.ts). */
  answers: 0.6,
  answerTop: 20,
  /** …to a neighbour by the other speaker (a reply), as a fraction of that share. */
  neighbourOther: 1,
  /** A co-occurring term counts from this many shared facts. */
  cooccurMin: 2,
  /**
   * Weight of a term co-occurring with a rare query term, relative to the query term's. Off: on the
   * dev splits it gained +0.2 R@10 on conversations and lost 0.5 on the older set (open questions
   * −5); re-measured in round 2, −0.1…−0.3 (docs/dev-notes/memory-recall.md).
   */
  cooccurrence: 0,
  /** 1: relative dates in a question whose span holds no fact are searched as words. */
  quoted: 1,
  /** Query terms standing together are looked for in this many of the best facts. */
  proximityTop: 100,
  /**
   * A question that names a person: that person's most telling turns (the rarest words) gain a
   * little (`salience` × their words' idf, the best `salienceTop`); `informative` when nothing else
   * matched.
   */
  informative: 0.1,
  salience: 0.01,
  salienceTop: 30,
  /** Added to the facts of the day or span a query names; how much it fades away from its center. */
  day: 3,
  dayFade: 0,
  /** Added to the facts about the day a query names (a resolved "yesterday"…). */
  dayEvent: 4,
  /** A "when" question: relevance × (1 + this) for facts that say when. */
  when: 0.5,
  /** Facts by a speaker the query names, and by another speaker. */
  speakerMatch: 1.45,
  speakerOther: 0.8,
  /** Pseudo-relevance feedback: terms taken from the best first-pass hits, and their weight. */
  feedbackDocs: 4,
  feedbackTerms: 8,
  feedbackWeight: 0.2,
  /** BM25's term-frequency saturation and length normalisation. */
  k1: 1.2,
  b: 0.75,
};

const DAY = 86_400_000;
/** A query word expands to at most this many terms it begins. */
const PREFIX_MAX = 64;
const FEEDBACK_MIN_FACTS = 100;
/** A fact from the month (or year) the query names. */
const MONTH_BONUS = 2.5;
const YEAR_BONUS = 0.4;
/** Two query terms next to each other (window 3) in a fact. */
const PROXIMITY = 0.6;

/**
 * Lexical recall over facts: BM25 over stemmed terms (EN+PT), prefix matches for words of ≥ 4
 * letters, tags as a weaker field, speaker names and dates as fields (a dialog turn `Name: …` is
 * Name's; "in May 2023" finds that month's facts), a bonus for query terms that stand together,
 * one round of pseudo-relevance feedback (the best first hits lend their distinctive terms), the
 * day a turn talks about (recall-dates.ts), dialog context (recall-context.ts) and the telling turns
 * of a person the question names — then Go's factors: the live score (recency, access,
 * confidence) and the workspace. Searches scan
 * the corpus' flat arrays, so an index loads without building postings (see recall-cache.ts).
 */
export class FactIndex {
  readonly corpus: Corpus;
  private speakerIds: Map<string, number> | undefined;
  private readonly avgLen: number;

  constructor(facts: Iterable<Fact> | Corpus) {
    this.corpus = isCorpus(facts) ? facts : buildCorpus([...facts]);
    const c = this.corpus;
    this.avgLen = c.n ? c.seq.length / c.n || 1 : 1;
  }

  /** The facts, materialised (tests, embeddings). */
  get facts(): Fact[] {
    return Array.from({ length: this.corpus.n }, (_, i) => this.corpus.fact(i));
  }

  private speakers(): Map<string, number> {
    if (!this.speakerIds) {
      this.speakerIds = new Map();
      const c = this.corpus;
      const [from, to] = prefixRange(c, "@");
      for (let k = from; k < to; k++) {
        const id = c.order[k] as number;
        this.speakerIds.set(c.term(id).slice(1), id);
      }
    }
    return this.speakerIds;
  }

  private idf(df: number): number {
    const n = this.corpus.n;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * BM25 of the weighted terms (term id → weight) into `rel`, over their postings, rarest first. A
   * term in more than half the facts only adds to facts a rarer term found (unless it is all there
   * is): alone it would make every fact a candidate for a score near zero.
   */
  private bm25(want: ReadonlyMap<number, number>, rel: Scores): void {
    const c = this.corpus;
    const list = [...want].filter(([, w]) => w > 0).sort(([a], [b]) => this.df(a) - this.df(b));
    const common = c.n / 2;
    const { k1, b } = TUNING;
    const { postDoc, postTf, seqStart } = c;
    const perLen = b / this.avgLen;
    for (const [t, w] of list) {
      const from = c.postStart[t] as number;
      const to = c.postStart[t + 1] as number;
      const idf = this.idf(to - from);
      const onlyFound = to - from > common && rel.size > 0;
      // a term in (nearly) every fact adds next to nothing to the facts the others found
      if (onlyFound && idf < 0.01) continue;
      const lift = w * idf * (k1 + 1);
      for (let k = from; k < to; k++) {
        const i = postDoc[k] as number;
        if (onlyFound && !rel.has(i)) continue;
        const tf = postTf[k] as number;
        const len = (seqStart[i + 1] as number) - (seqStart[i] as number);
        rel.add(i, (lift * tf) / (tf + k1 * (1 - b + perLen * len)));
      }
    }
  }

  private df(t: number): number {
    return (this.corpus.postStart[t + 1] as number) - (this.corpus.postStart[t] as number);
  }

  /** Ranks facts for a query; an empty query ranks every fact by live score. */
  search(query: string, options: SearchOptions): Hit[] {
    const { nowMs, workspace = "" } = options;
    const limit = options.limit ?? 20;
    const c = this.corpus;
    const speakers = this.speakers();
    const q = parseQuery(query, (w) => speakers.has(w), nowMs);
    const speakerIds = new Set(q.speakers.map((s) => speakers.get(s) as number));
    const quoted = q.window?.found && q.window.words && TUNING.quoted > 0;
    if (quoted && q.window && !anyBorn(c, q.window.from, q.window.to)) {
      // nothing was said in the span "yesterday" names: the words quote the talk ("what did she
      // do yesterday that was so emotional"), they are searched as words
      for (const t of terms(q.window.words ?? ""))
        if (!q.terms.includes(t)) {
          q.terms.push(t);
          q.raw.push(t);
        }
      q.window = undefined;
    }
    // Query terms → term ids (exact weight 1); a query word of ≥ 4 letters is also a prefix of the
    // terms it begins (0.6), as in Go ("kube" finds "kubernetes"; a stem like "servic" does not
    // expand to every "service17").
    const want = new Map<number, number>();
    const exact: Array<number | undefined> = q.terms.map((t) => termId(c, t));
    for (const [k, t] of q.terms.entries()) {
      for (const head of [q.raw[k] ?? t]) {
        if (head.length < 4) continue;
        const [from, to] = prefixRange(c, head);
        // a family of numbered names (service1…service9999) is not a word's other forms
        if (to - from > PREFIX_MAX) continue;
        for (let j = from; j < to; j++) {
          const id = c.order[j] as number;
          if (!want.has(id)) want.set(id, 0.6);
        }
      }
    }
    for (const id of exact) if (id !== undefined) want.set(id, 1);
    this.expand(exact, want);
    const rel = new Scores(c.n);
    this.bm25(want, rel);
    this.tagged(exact, rel);
    this.proximity(exact, rel);
    if (q.month !== undefined || q.year !== undefined) this.dates(q, rel);
    if (q.window) {
      // a span relative to now reorders what the words found; alone (or when they found nothing)
      // it is the question. A named day is most talked about the day after ("yesterday").
      const { from, to, found } = q.window;
      const center = found ? to : from + 2 * DAY;
      dateWindow(c, rel, from, to, TUNING.day, found && rel.size > 0, center, TUNING.dayFade);
    }
    if (q.day !== undefined && TUNING.dayEvent > 0) dayEvent(c, rel, q.day, TUNING.dayEvent);
    if (q.when && TUNING.when > 0) saysWhen(c, rel, TUNING.when);
    if (q.anchor && !options.inner) {
      // "the day after the concert": the concert's date, then the span after it
      const [event] = this.search(q.anchor.text, { nowMs, workspace, limit: 1, inner: true });
      const at = event ? parseGoTime(event.fact.created_at) : undefined;
      if (at !== undefined) {
        const { from, to } = q.anchor;
        const near = from >= 0 ? at + from : at + to;
        dateWindow(c, rel, at + from, at + to, TUNING.day, false, near, TUNING.dayFade);
      }
    }
    const focus = (i: number) => {
      const sp = c.speaker[i] as number;
      if (speakerIds.size === 0 || sp < 0) return 1;
      return speakerIds.has(sp) ? TUNING.speakerMatch : TUNING.speakerOther;
    };
    // Feedback needs a store large enough to tell topic words from common ones.
    if (rel.size > 0 && c.n >= FEEDBACK_MIN_FACTS) this.feedback(rel, want, focus);
    // (dialog stores only: facts of a coding session are not each other's context)
    // question and answer: the reply to a strong turn's question, or to the question it raised
    if (rel.size > 0 && TUNING.answers > 0 && speakers.size > 0)
      answerContext(c, rel, TUNING.answers, TUNING.answerTop);
    if (rel.size > 0 && TUNING.neighbours > 0 && speakers.size > 0)
      neighbourContext(
        c,
        rel,
        TUNING.neighbours,
        TUNING.neighbourTop,
        TUNING.neighbourWindow,
        TUNING.neighbourOther,
      );
    if (q.terms.length === 0 && rel.size === 0 && query.trim() !== "" && speakerIds.size === 0)
      return [];
    if (rel.size === 0 && speakerIds.size > 0 && q.terms.length > 0 && TUNING.informative > 0)
      this.informative(rel, speakerIds, TUNING.informative, c.n);
    else if (speakerIds.size > 0 && TUNING.salience > 0)
      this.informative(rel, speakerIds, TUNING.salience, TUNING.salienceTop);
    const bare = q.terms.length === 0 && rel.size === 0;
    // The final order multiplies relevance by slowly growing factors (live score, workspace): the
    // best few hundred by relevance hold the head, so the rest is never ranked (10k-fact stores).
    const candidates = bare
      ? Array.from({ length: c.n }, (_, i) => i)
      : rel.best(Math.max(300, limit * 10), focus);
    const ranked: Ranked[] = [];
    for (const i of candidates) {
      if (bare && speakerIds.size && focus(i) !== TUNING.speakerMatch) continue;
      const live = liveAt(c, i, nowMs);
      const relevance = (rel.get(i) ?? 0) * focus(i);
      const source = c.projects[c.project[i] as number] as string;
      const fromOther = source !== "" && workspace !== "" && source !== workspace;
      const place = source === "" || workspace === "" ? 1 : fromOther ? 0.8 : 1.3;
      const base = bare ? live : relevance * (1 + 0.35 * Math.log(1 + live));
      ranked.push({ i, score: base * place, relevance, live });
    }
    // Ties: by id without a query (Go's order); by store order otherwise (no fact is decoded).
    const order = bare
      ? (a: Ranked, b: Ranked) => b.score - a.score || cmpId(c.fact(a.i).id, c.fact(b.i).id)
      : (a: Ranked, b: Ranked) => b.score - a.score || a.i - b.i;
    // Only the head is needed (the conflict drop may skip a few): sort it, the rest if it runs out.
    const head = bare ? ranked : topOf(ranked, limit * 4 + 20, order);
    const hits = dropSuperseded(c, head.sort(order), limit, workspace);
    if (hits.length >= limit || head.length === ranked.length) return hits;
    return dropSuperseded(c, ranked.sort(order), limit, workspace);
  }

  /**
   * Co-occurrence expansion: a rare query term lends part of its weight to the terms that appear
   * with it in the store's facts (strongest first, at most 2 per query term).
   */
  private expand(exact: Array<number | undefined>, want: Map<number, number>): void {
    if (TUNING.cooccurrence <= 0) return;
    const skip = new Set(want.keys());
    for (const t of exact) {
      if (t === undefined) continue;
      const list = cooccurring(this.corpus, t, skip, 2, TUNING.cooccurMin);
      const best = list[0]?.[1] ?? 1;
      for (const [u, w] of list) {
        const weight = (TUNING.cooccurrence * w) / best;
        if ((want.get(u) ?? 0) < weight) want.set(u, weight);
      }
    }
  }

  /**
   * The most informative turns of the people a question names (the rarer their words, the more
   * they tell; small talk tells little), `top` of them, each a small score: what a question about
   * a person is likeliest to be about when its words say little (or nothing the store holds).
   */
  private informative(
    rel: Scores,
    speakerIds: ReadonlySet<number>,
    weight: number,
    top: number,
  ): void {
    const c = this.corpus;
    const cap = Math.max(3, c.n * 0.05);
    // in a store large enough to tell, a word said once is noise (a typo, an id)
    const min = c.n >= FEEDBACK_MIN_FACTS ? 2 : 1;
    const best: Array<[number, number]> = [];
    for (let i = 0; i < c.n; i++) {
      if (!speakerIds.has(c.speaker[i] as number)) continue;
      let s = 0;
      for (let p = c.seqStart[i] as number; p < (c.seqStart[i + 1] as number); p++) {
        const df = this.df(c.seq[p] as number);
        if (df >= min && df <= cap) s += this.idf(df);
      }
      if (s > 0) best.push([i, s]);
    }
    if (best.length > top) best.sort((a, b) => b[1] - a[1]).length = top;
    for (const [i, s] of best) rel.add(i, weight * s);
  }

  /** Tags: a weaker field (half an idf per matching query term). */
  private tagged(exact: Array<number | undefined>, rel: Scores): void {
    const c = this.corpus;
    for (const t of new Set(exact)) {
      if (t === undefined) continue;
      const from = c.tagPostStart[t] as number;
      const to = c.tagPostStart[t + 1] as number;
      const idf = this.idf(to - from);
      for (let k = from; k < to; k++) {
        const i = c.tagDoc[k] as number;
        rel.add(i, 0.5 * idf);
      }
    }
  }

  /** Query terms that stand together (within 3 positions) in one of the best facts add to it. */
  private proximity(ids: Array<number | undefined>, rel: Scores): void {
    const c = this.corpus;
    const pairs: Array<[number, number, number]> = [];
    for (let k = 0; k + 1 < ids.length; k++) {
      const a = ids[k];
      const b = ids[k + 1];
      if (a !== undefined && b !== undefined && a !== b)
        pairs.push([a, b, PROXIMITY * Math.min(this.idf(this.df(a)), this.idf(this.df(b)))]);
    }
    if (pairs.length === 0) return;
    const seq = c.seq;
    for (const [i, score] of rel.top(TUNING.proximityTop)) {
      const from = c.seqStart[i] as number;
      const to = c.seqStart[i + 1] as number;
      let bonus = 0;
      for (const [a, b, w] of pairs) {
        found: for (let p = from; p < to; p++) {
          if (seq[p] !== a) continue;
          const end = Math.min(to, p + 4);
          for (let q = Math.max(from, p - 3); q < end; q++)
            if (seq[q] === b) {
              bonus += w;
              break found;
            }
        }
      }
      if (bonus) rel.set(i, score + bonus);
    }
  }

  /** Facts from the month (or year) the query names. */
  private dates(q: ParsedQuery, rel: Scores): void {
    const c = this.corpus;
    for (let i = 0; i < c.n; i++) {
      const m = c.month[i] as number;
      if (m < 0) continue;
      if (q.year !== undefined && Math.floor(m / 12) !== q.year) continue;
      let bonus = 0;
      if (q.month !== undefined && m % 12 === q.month) bonus = MONTH_BONUS;
      else if (q.month === undefined && q.year !== undefined) bonus = YEAR_BONUS;
      if (bonus && (rel.has(i) || q.terms.length === 0 || q.month !== undefined)) rel.add(i, bonus);
    }
  }

  /**
   * Pseudo-relevance feedback: the distinctive terms of the best first-pass hits (after the speaker
   * focus) are searched too, at a fraction of a query term's weight.
   */
  private feedback(
    rel: Scores,
    query: ReadonlyMap<number, number>,
    focus: (i: number) => number,
  ): void {
    const c = this.corpus;
    const top = rel.top(TUNING.feedbackDocs, focus);
    if (top.length === 0) return;
    const first = top[0]?.[1] ?? 1;
    const share = new Map<number, number>();
    for (const [i, s] of top) {
      const seen = new Set<number>();
      for (let p = c.seqStart[i] as number; p < (c.seqStart[i + 1] as number); p++) {
        const t = c.seq[p] as number;
        if (query.has(t) || seen.has(t)) continue;
        seen.add(t);
        share.set(t, (share.get(t) ?? 0) + s / first);
      }
    }
    if (share.size === 0) return;
    const cap = Math.max(3, c.n * 0.02); // unique ids and common words carry no topic
    const chosen = [...share.entries()]
      .filter(([t]) => this.df(t) >= 2 && this.df(t) <= cap)
      .map(([t, w]) => [t, w * this.idf(this.df(t))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, TUNING.feedbackTerms);
    if (chosen.length === 0) return;
    const max = chosen[0]?.[1] ?? 1;
    const weights = new Map<number, number>();
    for (const [t, w] of chosen) weights.set(t, (TUNING.feedbackWeight * w) / max);
    const extra = new Scores(c.n);
    this.bm25(weights, extra);
    // Feedback mostly finds facts the query missed; it only nudges the ones it already found.
    for (const [i, s] of extra) rel.add(i, rel.has(i) ? 0.3 * s : s);
  }
}

const isCorpus = (x: Iterable<Fact> | Corpus): x is Corpus =>
  (x as Corpus).seqStart instanceof Uint32Array;

const cmpId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
