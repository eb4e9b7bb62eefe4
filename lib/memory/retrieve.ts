import type { Fact } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import { buildCorpus, type Corpus, liveAt, SPEAKER, terms } from "./recall-corpus.ts";
import { type FactTokens, factTokens, reconcile } from "./reconcile.ts";
import { wordRuns } from "./text.ts";

/** One retrieved fact with the numbers that ranked it. */
export interface Hit {
  fact: Fact;
  /** Final rank: relevance × live-score factor × workspace factor. */
  score: number;
  /** Lexical relevance of the query to the fact (0 when there is no query). */
  relevance: number;
  /** The fact's live score (§2.3). */
  live: number;
  /** The fact belongs to another workspace (`(from: …)` annotation). */
  fromOther: boolean;
}

export interface SearchOptions {
  nowMs: number;
  workspace?: string;
  limit?: number;
}

const K1 = 1.2;
const B = 0.75;
/** Pseudo-relevance feedback: terms taken from the best first-pass hits, and their weight. */
const FEEDBACK_DOCS = 4;
const FEEDBACK_TERMS = 8;
const FEEDBACK_WEIGHT = 0.2;
const FEEDBACK_MIN_FACTS = 100;
/** Facts by a speaker the query names, and by another speaker. */
const SPEAKER_MATCH = 1.6;
const SPEAKER_OTHER = 0.75;
/** A fact from the month (or year) the query names. */
const MONTH_BONUS = 2.5;
const YEAR_BONUS = 0.4;
/** Two query terms next to each other (window 3) in a fact. */
const PROXIMITY = 0.6;

const MONTHS: Record<string, number> = {};
for (const [i, names] of [
  ["january", "jan", "janeiro"],
  ["february", "feb", "fevereiro"],
  ["march", "mar", "março", "marco"],
  ["april", "apr", "abril"],
  ["may", "maio"],
  ["june", "jun", "junho"],
  ["july", "jul", "julho"],
  ["august", "aug", "agosto"],
  ["september", "sep", "sept", "setembro"],
  ["october", "oct", "outubro"],
  ["november", "nov", "novembro"],
  ["december", "dec", "dezembro"],
].entries())
  for (const n of names) MONTHS[n] = i;

/**
 * Lexical recall over facts: BM25 over stemmed terms (EN+PT), prefix matches for words of ≥ 4
 * letters, tags as a weaker field, speaker names and dates as fields (a dialog turn `Name: …` is
 * Name's; "in May 2023" finds that month's facts), a bonus for query terms that stand together,
 * and one round of pseudo-relevance feedback (the best first hits lend their distinctive terms) —
 * then Go's factors: the live score (recency, access, confidence) and the workspace. Searches scan
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
      for (const [i, v] of this.corpus.vocab.entries())
        if (v.startsWith("@")) this.speakerIds.set(v.slice(1), i);
    }
    return this.speakerIds;
  }

  private idf(df: number): number {
    const n = this.corpus.n;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** BM25 of the weighted terms (`want[t] > 0`) into `rel`, over their postings. */
  private bm25(want: Float64Array, rel: Scores): void {
    const c = this.corpus;
    for (let t = 0; t < want.length; t++) {
      const w = want[t] as number;
      if (w <= 0) continue;
      const from = c.postStart[t] as number;
      const to = c.postStart[t + 1] as number;
      const idf = this.idf(to - from);
      for (let k = from; k < to; k++) {
        const i = c.postDoc[k] as number;
        const tf = c.postTf[k] as number;
        const len = (c.seqStart[i + 1] as number) - (c.seqStart[i] as number);
        const norm = tf + K1 * (1 - B + (B * len) / this.avgLen);
        rel.set(i, (rel.get(i) ?? 0) + (w * idf * tf * (K1 + 1)) / norm);
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
    const q = parseQuery(query, (w) => speakers.has(w));
    const speakerIds = new Set(q.speakers.map((s) => speakers.get(s) as number));
    // Query terms → term ids (exact weight 1; ≥ 4-letter words also match as prefixes, 0.6).
    const want = new Float64Array(c.vocab.length);
    const exact: Array<number | undefined> = q.terms.map(() => undefined);
    const heads = q.terms.flatMap((t, k) => [t, q.raw[k] ?? t]).filter((h) => h.length >= 4);
    const exactIds = new Map(q.terms.map((t, k) => [t, k]));
    for (let id = 0; id < c.vocab.length; id++) {
      const v = c.vocab[id] as string;
      const k = exactIds.get(v);
      if (k !== undefined) {
        exact[k] = id;
        want[id] = 1;
        continue;
      }
      if (v.charCodeAt(0) === 64) continue; // "@speaker"
      for (let h = 0; h < heads.length; h++) {
        if (v.startsWith(heads[h] as string)) {
          want[id] = 0.6;
          break;
        }
      }
    }
    const rel = new Scores(c.n);
    this.bm25(want, rel);
    this.tagged(exact, rel);
    this.proximity(exact, rel);
    if (q.month !== undefined || q.year !== undefined) this.dates(q, rel);
    const focus = (i: number) => {
      const sp = c.speaker[i] as number;
      if (speakerIds.size === 0 || sp < 0) return 1;
      return speakerIds.has(sp) ? SPEAKER_MATCH : SPEAKER_OTHER;
    };
    // Feedback needs a store large enough to tell topic words from common ones.
    if (rel.size > 0 && c.n >= FEEDBACK_MIN_FACTS) this.feedback(rel, want, focus);
    if (q.terms.length === 0 && rel.size === 0 && query.trim() !== "" && speakerIds.size === 0)
      return [];
    const bare = q.terms.length === 0 && rel.size === 0;
    const candidates = bare ? Array.from({ length: c.n }, (_, i) => i) : [...rel.keys()];
    const ranked: Array<{ i: number; score: number; relevance: number; live: number }> = [];
    for (const i of candidates) {
      if (bare && speakerIds.size && focus(i) !== SPEAKER_MATCH) continue;
      const live = liveAt(c, i, nowMs);
      const relevance = (rel.get(i) ?? 0) * focus(i);
      const source = c.projects[c.project[i] as number] as string;
      const fromOther = source !== "" && workspace !== "" && source !== workspace;
      const place = source === "" || workspace === "" ? 1 : fromOther ? 0.8 : 1.3;
      const base = bare ? live : relevance * (1 + 0.35 * Math.log(1 + live));
      ranked.push({ i, score: base * place, relevance, live });
    }
    // Ties: by id without a query (Go's order); by store order otherwise (no fact is decoded).
    ranked.sort((a, b) =>
      bare
        ? b.score - a.score || cmpId(c.fact(a.i).id, c.fact(b.i).id)
        : b.score - a.score || a.i - b.i,
    );
    return dropSuperseded(this, ranked, limit, workspace);
  }

  /** Tags: a weaker field (half an idf per matching query term). */
  private tagged(exact: Array<number | undefined>, rel: Scores): void {
    const c = this.corpus;
    const wanted = new Set(exact.filter((x) => x !== undefined));
    if (wanted.size === 0 || c.tags.length === 0) return;
    const hits: number[] = [];
    const df = new Map<number, number>();
    for (let i = 0; i < c.n; i++) {
      for (let p = c.tagStart[i] as number; p < (c.tagStart[i + 1] as number); p++) {
        const t = c.tags[p] as number;
        if (!wanted.has(t)) continue;
        hits.push(i, t);
        df.set(t, (df.get(t) ?? 0) + 1);
      }
    }
    for (let k = 0; k < hits.length; k += 2) {
      const i = hits[k] as number;
      const idf = this.idf(df.get(hits[k + 1] as number) ?? 1);
      rel.set(i, (rel.get(i) ?? 0) + 0.5 * idf);
    }
  }

  /** Query terms that stand together (within 3 positions) in one of the best 200 facts add to it. */
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
    for (const [i, score] of best(rel.entries(), 200)) {
      const start = c.seqStart[i] as number;
      const seq = c.seq.subarray(start, c.seqStart[i + 1] as number);
      let bonus = 0;
      for (const [a, b, w] of pairs) {
        for (let p = 0; p < seq.length; p++) {
          if (seq[p] !== a) continue;
          if (seq.subarray(Math.max(0, p - 3), p + 4).includes(b)) {
            bonus += w;
            break;
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
      if (bonus && (rel.has(i) || q.terms.length === 0 || q.month !== undefined))
        rel.set(i, (rel.get(i) ?? 0) + bonus);
    }
  }

  /**
   * Pseudo-relevance feedback: the distinctive terms of the best first-pass hits (after the speaker
   * focus) are searched too, at a fraction of a query term's weight.
   */
  private feedback(rel: Scores, query: Float64Array, focus: (i: number) => number): void {
    const c = this.corpus;
    const top = best(
      rel.entries().map(([i, s]) => [i, s * focus(i)] as const),
      FEEDBACK_DOCS,
    );
    if (top.length === 0) return;
    const first = top[0]?.[1] ?? 1;
    const share = new Map<number, number>();
    for (const [i, s] of top) {
      const seen = new Set<number>();
      for (let p = c.seqStart[i] as number; p < (c.seqStart[i + 1] as number); p++) {
        const t = c.seq[p] as number;
        if ((query[t] as number) > 0 || seen.has(t)) continue;
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
      .slice(0, FEEDBACK_TERMS);
    if (chosen.length === 0) return;
    const max = chosen[0]?.[1] ?? 1;
    const weights = new Float64Array(c.vocab.length);
    for (const [t, w] of chosen) weights[t] = (FEEDBACK_WEIGHT * w) / max;
    const extra = new Scores(c.n);
    this.bm25(weights, extra);
    // Feedback mostly finds facts the query missed; it only nudges the ones it already found.
    for (const [i, s] of extra) rel.set(i, (rel.get(i) ?? 0) + (rel.has(i) ? 0.3 * s : s));
  }
}

/** Scores per fact: a Map's interface over a dense array (searches touch thousands of facts). */
class Scores {
  private readonly s: Float64Array;
  private readonly seen: Uint8Array;
  private readonly list: number[] = [];
  constructor(n: number) {
    this.s = new Float64Array(n);
    this.seen = new Uint8Array(n);
  }
  get size(): number {
    return this.list.length;
  }
  has(i: number): boolean {
    return this.seen[i] === 1;
  }
  get(i: number): number | undefined {
    return this.seen[i] ? this.s[i] : undefined;
  }
  set(i: number, v: number): this {
    if (!this.seen[i]) {
      this.seen[i] = 1;
      this.list.push(i);
    }
    this.s[i] = v;
    return this;
  }
  keys(): number[] {
    return this.list;
  }
  entries(): Array<[number, number]> {
    return this.list.map((i) => [i, this.s[i] as number]);
  }
  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries()[Symbol.iterator]();
  }
}

/** The k best entries by score (a partial sort). */
function best(
  entries: Array<readonly [number, number]>,
  k: number,
): Array<readonly [number, number]> {
  if (entries.length <= k) return [...entries].sort((a, b) => b[1] - a[1]);
  const top: Array<readonly [number, number]> = [];
  for (const e of entries) {
    if (top.length < k) {
      top.push(e);
      if (top.length === k) top.sort((a, b) => b[1] - a[1]);
    } else if (e[1] > (top[k - 1] as readonly [number, number])[1]) {
      let j = k - 1;
      while (j > 0 && (top[j - 1] as readonly [number, number])[1] < e[1]) j--;
      top.splice(j, 0, e);
      top.pop();
    }
  }
  return top;
}

const isCorpus = (x: Iterable<Fact> | Corpus): x is Corpus =>
  (x as Corpus).seqStart instanceof Uint32Array;

const cmpId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface ParsedQuery {
  terms: string[];
  /** The query word each term came from (prefix matching uses the unstemmed word). */
  raw: string[];
  speakers: string[];
  month?: number;
  year?: number;
}

/** Splits a query into search terms, speaker names (known to the index) and a month/year. */
function parseQuery(query: string, isSpeaker: (word: string) => boolean): ParsedQuery {
  const out: ParsedQuery = { terms: [], raw: [], speakers: [] };
  const memo = new Map<string, string>();
  const iso = /\b(\d{4})-(\d{2})\b/.exec(query);
  if (iso) {
    out.year = Number(iso[1]);
    out.month = Number(iso[2]) - 1;
  }
  const words = wordRuns(query);
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    if (isSpeaker(w)) {
      if (!out.speakers.includes(w)) out.speakers.push(w);
      continue;
    }
    const month = MONTHS[w];
    const year = /^(19|20)\d\d$/.test(w) ? Number(w) : undefined;
    const dated = month !== undefined && (w.length > 3 || /^(19|20)\d\d$/.test(words[k + 1] ?? ""));
    if (dated && w !== "may") out.month = month;
    else if (w === "may" && /^(19|20)\d\d$/.test(words[k + 1] ?? "")) out.month = 4;
    if (year !== undefined) out.year = year;
    if (dated || year !== undefined) continue;
    for (const t of terms(w, memo)) {
      if (out.terms.includes(t)) continue;
      out.terms.push(t);
      out.raw.push(w);
    }
  }
  return out;
}

/** When two hits state conflicting versions of the same subject, keep only the newer one. */
function dropSuperseded(
  index: FactIndex,
  ranked: ReadonlyArray<{ i: number; score: number; relevance: number; live: number }>,
  limit: number,
  workspace: string,
): Hit[] {
  const out: Hit[] = [];
  const tokens: FactTokens[] = [];
  for (const r of ranked) {
    if (out.length >= limit) break;
    const fact = index.corpus.fact(r.i);
    const source = fact.source_project ?? "";
    const fromOther = source !== "" && workspace !== "" && source !== workspace;
    const hit: Hit = { fact, score: r.score, relevance: r.relevance, live: r.live, fromOther };
    const mine = factTokens(hit.fact.content);
    const clash = out.findIndex(
      (other, k) =>
        (other.fact.category || "general") === (hit.fact.category || "general") &&
        (other.fact.source_project ?? "") === (hit.fact.source_project ?? "") &&
        mine.sig.length > 0 &&
        conflicts(mine, tokens[k] as FactTokens, SPEAKER.test(hit.fact.content)),
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
