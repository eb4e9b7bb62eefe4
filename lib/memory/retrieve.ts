import type { Fact } from "./facts.ts";
import { liveScore } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import { type FactTokens, factTokens, reconcile } from "./reconcile.ts";
import { stem } from "./stem.ts";
import { STOP_WORDS, wordRuns } from "./text.ts";

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

/** What an index is built from, per fact; also what the on-disk recall cache stores. */
export interface IndexedDoc {
  /** Term ids of the body, in order (proximity needs the order). */
  seq: number[];
  /** Term ids of the tags. */
  tags: number[];
  /** Term id of the speaker of a dialog turn (`Name: text`), or -1. */
  speaker: number;
  /** `YYYY*12 + month` of created_at, or -1. */
  month: number;
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

const SPEAKER = /^\s*([\p{Lu}][\p{L}'’.-]{1,30})(?: [\p{Lu}][\p{L}'’.-]{1,30})?\s*:\s+\S/u;

/** Retrieval terms of a text: word runs, EN+PT stop words dropped, stemmed (`memo` caches stems). */
export function terms(text: string, memo?: Map<string, string>): string[] {
  const out: string[] = [];
  for (const w of wordRuns(text)) {
    if (STOP_WORDS.has(w) || (w.length < 2 && !/\d/.test(w))) continue;
    let s = memo?.get(w);
    if (s === undefined) {
      s = stem(w);
      memo?.set(w, s);
    }
    out.push(s);
  }
  return out;
}

/**
 * Lexical recall over facts: BM25 over stemmed terms (EN+PT), prefix matches for terms of ≥ 4
 * letters, tags as a weaker field, speaker names and dates as fields (a dialog turn `Name: …` is
 * Name's; "in May 2023" finds that month's facts), a bonus for query terms that stand together,
 * and one round of pseudo-relevance feedback (the best first hits lend their distinctive terms) —
 * then Go's factors: the live score (recency, access, confidence) and the workspace.
 */
export class FactIndex {
  readonly facts: Fact[];
  readonly docs: IndexedDoc[];
  readonly vocab: string[];
  private readonly ids = new Map<string, number>();
  private readonly postings: number[][] = [];
  private readonly tagPostings: number[][] = [];
  private readonly speakers = new Set<number>();
  private readonly avgLen: number;

  constructor(facts: Iterable<Fact>, built?: { docs: IndexedDoc[]; vocab: string[] }) {
    this.facts = [...facts];
    if (built) {
      this.vocab = built.vocab;
      this.docs = built.docs;
      for (const [i, t] of this.vocab.entries()) this.ids.set(t, i);
    } else {
      this.vocab = [];
      const memo = new Map<string, string>();
      this.docs = this.facts.map((f) => this.analyse(f, memo));
    }
    let total = 0;
    for (let i = 0; i < this.docs.length; i++) {
      const d = this.docs[i] as IndexedDoc;
      total += d.seq.length;
      const tf = new Map<number, number>();
      for (const t of d.seq) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        const list = this.postings[t];
        if (list) list.push(i, n);
        else this.postings[t] = [i, n];
      }
      for (const t of d.tags) {
        const list = this.tagPostings[t];
        if (list) list.push(i);
        else this.tagPostings[t] = [i];
      }
      if (d.speaker >= 0) this.speakers.add(d.speaker);
    }
    this.avgLen = this.docs.length ? total / this.docs.length || 1 : 1;
  }

  private id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.vocab.length;
      this.vocab.push(term);
      this.ids.set(term, id);
    }
    return id;
  }

  private analyse(fact: Fact, memo: Map<string, string>): IndexedDoc {
    const m = SPEAKER.exec(fact.content);
    const speakerWord = m ? (m[1] as string).toLowerCase().replace(/['’.-]/g, "") : "";
    const body = terms(fact.content, memo);
    const seq = body.map((t) => this.id(t));
    const tags = [...new Set((fact.tags ?? []).flatMap((x) => terms(x, memo)))].map((t) =>
      this.id(t),
    );
    const at = parseGoTime(fact.created_at);
    const d = at === undefined ? undefined : new Date(at);
    return {
      seq,
      tags,
      speaker: speakerWord ? this.id(`@${speakerWord}`) : -1,
      month: d ? d.getUTCFullYear() * 12 + d.getUTCMonth() : -1,
    };
  }

  private idf(df: number): number {
    const n = this.docs.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Adds BM25 contributions of term `t` (weight `w`) to `rel`. */
  private bm25(t: number, w: number, rel: Map<number, number>): void {
    const list = this.postings[t];
    if (!list) return;
    const idf = this.idf(list.length / 2);
    for (let k = 0; k < list.length; k += 2) {
      const i = list[k] as number;
      const tf = list[k + 1] as number;
      const len = (this.docs[i] as IndexedDoc).seq.length;
      const norm = tf + K1 * (1 - B + (B * len) / this.avgLen);
      rel.set(i, (rel.get(i) ?? 0) + (w * idf * tf * (K1 + 1)) / norm);
    }
  }

  /** Terms that a query word of ≥ 4 letters (or its stem) begins: "kube" finds "kubernetes". */
  private prefixed(term: string, raw: string): number[] {
    const heads = [term, raw].filter((h) => h.length >= 4);
    if (heads.length === 0) return [];
    const out: number[] = [];
    for (let i = 0; i < this.vocab.length; i++) {
      const v = this.vocab[i] as string;
      if (v !== term && v[0] !== "@" && heads.some((h) => v.startsWith(h))) out.push(i);
    }
    return out;
  }

  /** Ranks facts for a query; an empty query ranks every fact by live score. */
  search(query: string, options: SearchOptions): Hit[] {
    const { nowMs, workspace = "" } = options;
    const limit = options.limit ?? 20;
    const q = parseQuery(query, (w) => this.speakers.has(this.ids.get(`@${w}`) ?? -1));
    const speakerIds = new Set(q.speakers.map((s) => this.ids.get(`@${s}`) as number));
    const queryIds = q.terms.map((t) => this.ids.get(t));
    const rel = new Map<number, number>();
    for (const [k, t] of q.terms.entries()) {
      const id = queryIds[k];
      if (id !== undefined) this.bm25(id, 1, rel);
      for (const v of this.prefixed(t, q.raw[k] ?? t)) this.bm25(v, 0.6, rel);
      const tagged = id === undefined ? undefined : this.tagPostings[id];
      if (tagged) {
        const idf = this.idf(tagged.length);
        for (const i of tagged) rel.set(i, (rel.get(i) ?? 0) + 0.5 * idf);
      }
    }
    this.proximity(queryIds, rel);
    if (q.month !== undefined || q.year !== undefined) this.dates(q, rel);
    const focus = (i: number) => {
      const sp = (this.docs[i] as IndexedDoc).speaker;
      if (speakerIds.size === 0 || sp < 0) return 1;
      return speakerIds.has(sp) ? SPEAKER_MATCH : SPEAKER_OTHER;
    };
    // Feedback needs a store large enough to tell topic words from common ones.
    if (rel.size > 0 && this.docs.length >= FEEDBACK_MIN_FACTS)
      this.feedback(rel, new Set(queryIds), focus);
    if (q.terms.length === 0 && rel.size === 0 && query.trim() !== "") {
      if (speakerIds.size === 0) return [];
    }
    const bare = q.terms.length === 0 && rel.size === 0;
    const candidates = bare ? this.facts.map((_, i) => i) : [...rel.keys()];
    const hits: Hit[] = [];
    for (const i of candidates) {
      if (bare && speakerIds.size && focus(i) !== SPEAKER_MATCH) continue;
      const fact = this.facts[i] as Fact;
      const live = liveScore(fact, nowMs);
      const relevance = (rel.get(i) ?? 0) * focus(i);
      const source = fact.source_project ?? "";
      const fromOther = source !== "" && workspace !== "" && source !== workspace;
      const place = source === "" || workspace === "" ? 1 : fromOther ? 0.8 : 1.3;
      const base = bare ? live : relevance * (1 + 0.35 * Math.log(1 + live));
      hits.push({ fact, score: base * place, relevance, live, fromOther });
    }
    hits.sort((a, b) => b.score - a.score || (a.fact.id < b.fact.id ? -1 : 1));
    return dropSuperseded(hits, limit);
  }

  /** Query terms that stand together (within 3 positions) in a fact add to its relevance. */
  private proximity(ids: Array<number | undefined>, rel: Map<number, number>): void {
    const pairs: Array<[number, number]> = [];
    for (let k = 0; k + 1 < ids.length; k++) {
      const a = ids[k];
      const b = ids[k + 1];
      if (a !== undefined && b !== undefined && a !== b) pairs.push([a, b]);
    }
    if (pairs.length === 0) return;
    for (const [i, score] of rel) {
      if (score <= 0) continue;
      const seq = (this.docs[i] as IndexedDoc).seq;
      let bonus = 0;
      for (const [a, b] of pairs) {
        for (let p = 0; p < seq.length; p++) {
          if (seq[p] !== a) continue;
          const near = seq.slice(Math.max(0, p - 3), p + 4);
          if (near.includes(b)) {
            bonus +=
              PROXIMITY *
              Math.min(
                this.idf((this.postings[a]?.length ?? 0) / 2),
                this.idf((this.postings[b]?.length ?? 0) / 2),
              );
            break;
          }
        }
      }
      if (bonus) rel.set(i, score + bonus);
    }
  }

  /** Facts from the month (or year) the query names. */
  private dates(q: ParsedQuery, rel: Map<number, number>): void {
    for (let i = 0; i < this.docs.length; i++) {
      const m = (this.docs[i] as IndexedDoc).month;
      if (m < 0) continue;
      const year = Math.floor(m / 12);
      if (q.year !== undefined && year !== q.year) continue;
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
  private feedback(
    rel: Map<number, number>,
    query: Set<number | undefined>,
    focus: (i: number) => number,
  ): void {
    const top = [...rel.entries()]
      .map(([i, s]) => [i, s * focus(i)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, FEEDBACK_DOCS);
    if (top.length === 0) return;
    const best = top[0]?.[1] ?? 1;
    const weight = new Map<number, number>();
    const n = this.docs.length;
    for (const [i, s] of top) {
      const seq = (this.docs[i] as IndexedDoc).seq;
      for (const t of new Set(seq)) {
        if (query.has(t)) continue;
        const df = (this.postings[t]?.length ?? 0) / 2;
        if (df < 2 || df > Math.max(3, n * 0.02)) continue; // unique ids and common words carry no topic
        weight.set(t, (weight.get(t) ?? 0) + (s / best) * this.idf(df));
      }
    }
    const chosen = [...weight.entries()].sort((a, b) => b[1] - a[1]).slice(0, FEEDBACK_TERMS);
    if (chosen.length === 0) return;
    const max = chosen[0]?.[1] ?? 1;
    const extra = new Map<number, number>();
    for (const [t, w] of chosen) this.bm25(t, (FEEDBACK_WEIGHT * w) / max, extra);
    for (const [i, s] of extra) rel.set(i, (rel.get(i) ?? 0) + s);
  }
}

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
