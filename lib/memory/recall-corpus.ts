import type { Fact } from "./facts.ts";
import { parseGoTime } from "./gotime.ts";
import { NO_MENTION, timeMention } from "./recall-mentions.ts";
import { stem } from "./stem.ts";
import { STOP_WORDS, wordRuns } from "./text.ts";

/**
 * The analysed facts recall searches, in flat typed arrays (cheap to persist and to load): each
 * fact's body terms in order, its tags, its speaker (a dialog turn `Name: text` is Name's), the
 * month it was created, and the numbers of its live score. Facts themselves are materialised only
 * for the hits (`fact(i)`).
 */
export interface Corpus {
  n: number;
  /** Term strings; speakers are stored as `@name`. */
  vocab: string[];
  /** One term's string (a loaded index decodes only the terms a search looks at). */
  term(id: number): string;
  /** Body term ids of fact i: seq[seqStart[i] .. seqStart[i+1]). */
  seqStart: Uint32Array;
  seq: Uint32Array;
  tagStart: Uint32Array;
  tags: Uint32Array;
  /** Postings of term t: facts postDoc[postStart[t] .. postStart[t+1]) (ascending), with postTf. */
  postStart: Uint32Array;
  postDoc: Uint32Array;
  postTf: Uint32Array;
  /** Facts whose tags hold term t: tagDoc[tagPostStart[t] .. tagPostStart[t+1]). */
  tagPostStart: Uint32Array;
  tagDoc: Uint32Array;
  /** Term ids in the byte order of their strings: exact and prefix look-ups by binary search. */
  order: Uint32Array;
  /** Term id of the speaker, or -1. */
  speaker: Int32Array;
  /** 1 when a dialog turn asks something (its text has a "?"): the turn after it answers. */
  asks: Uint8Array;
  /**
   * The day a fact talks about, in days before its creation ("yesterday" = 1, "next week" = -7;
   * NO_MENTION when it names none), and how many days either side that may be ("last week": 3).
   */
  mentionBack: Int16Array;
  mentionSpread: Uint8Array;
  /** `year*12 + month` (UTC) of created_at, or -1. */
  month: Int32Array;
  /** Epoch ms of last access (else creation; NaN = unknown), of creation, access count, confidence. */
  lastMs: Float64Array;
  bornMs: Float64Array;
  access: Float64Array;
  confidence: Float64Array;
  /** Facts in order of creation (ties: store order), and each fact's place in it (dialog neighbours). */
  byTime: Uint32Array;
  timeRank: Uint32Array;
  /** Index into `projects` ("" = none) and `categories`. */
  project: Uint32Array;
  projects: string[];
  category: Uint32Array;
  categories: string[];
  /** The fact, built on demand. */
  fact(i: number): Fact;
}

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

export const SPEAKER = /^\s*([\p{Lu}][\p{L}'’.-]{1,30})(?: [\p{Lu}][\p{L}'’.-]{1,30})?\s*:\s+\S/u;

/** A table of strings → index. */
function table(): { list: string[]; at(s: string): number } {
  const list: string[] = [];
  const ids = new Map<string, number>();
  return {
    list,
    at(s) {
      let id = ids.get(s);
      if (id === undefined) {
        id = list.length;
        list.push(s);
        ids.set(s, id);
      }
      return id;
    },
  };
}

/** Analyses facts into a corpus. */
export function buildCorpus(facts: readonly Fact[]): Corpus {
  const n = facts.length;
  const vocab = table();
  const projects = table();
  const categories = table();
  projects.at("");
  const memo = new Map<string, string>();
  const seq: number[] = [];
  const tagIds: number[] = [];
  const c = emptyArrays(n);
  for (let i = 0; i < n; i++) {
    const f = facts[i] as Fact;
    c.seqStart[i] = seq.length;
    for (const t of terms(f.content, memo)) seq.push(vocab.at(t));
    c.tagStart[i] = tagIds.length;
    const tagTerms = new Set((f.tags ?? []).flatMap((x) => terms(x, memo)));
    for (const t of tagTerms) tagIds.push(vocab.at(t));
    const m = SPEAKER.exec(f.content);
    c.speaker[i] = m ? vocab.at(`@${(m[1] as string).toLowerCase().replace(/['’.-]/g, "")}`) : -1;
    c.asks[i] = m && f.content.includes("?") ? 1 : 0;
    const born = parseGoTime(f.created_at);
    const d = born === undefined ? undefined : new Date(born);
    c.month[i] = d ? d.getUTCFullYear() * 12 + d.getUTCMonth() : -1;
    c.bornMs[i] = born ?? 0;
    const mention = born === undefined ? undefined : timeMention(f.content, born);
    c.mentionBack[i] = mention ? mention[0] : NO_MENTION;
    c.mentionSpread[i] = mention ? mention[1] : 0;
    c.lastMs[i] = parseGoTime(f.last_accessed) ?? born ?? Number.NaN;
    c.access[i] = Math.max(0, f.access_count || 0);
    c.confidence[i] = f.confidence && f.confidence > 0 ? f.confidence : 0.6;
    c.project[i] = projects.at(f.source_project ?? "");
    c.category[i] = categories.at(f.category || "general");
  }
  c.seqStart[n] = seq.length;
  c.tagStart[n] = tagIds.length;
  const flat = Uint32Array.from(seq);
  const tagFlat = Uint32Array.from(tagIds);
  const tagged = postings(vocab.list.length, c.tagStart, tagFlat);
  const { byTime, timeRank } = timeOrder(c.bornMs);
  const words = vocab.list;
  const order = Uint32Array.from(words.keys()).sort((a, b) =>
    (words[a] as string) < (words[b] as string) ? -1 : 1,
  );
  return {
    n,
    vocab: vocab.list,
    term: (id) => words[id] as string,
    ...c,
    ...postings(vocab.list.length, c.seqStart, flat),
    tagPostStart: tagged.postStart,
    tagDoc: tagged.postDoc,
    order,
    byTime,
    timeRank,
    seq: flat,
    tags: Uint32Array.from(tagIds),
    projects: projects.list,
    categories: categories.list,
    fact: (i) => facts[i] as Fact,
  };
}

/** Facts sorted by creation time (stable), and the inverse permutation. */
function timeOrder(bornMs: Float64Array): { byTime: Uint32Array; timeRank: Uint32Array } {
  const n = bornMs.length;
  const byTime = Uint32Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => (bornMs[a] as number) - (bornMs[b] as number) || a - b,
  );
  const timeRank = new Uint32Array(n);
  for (let p = 0; p < n; p++) timeRank[byTime[p] as number] = p;
  return { byTime, timeRank };
}

/** The term ids whose strings start with `head` (all of them for an exact match's range). */
export function prefixRange(c: Corpus, head: string): [number, number] {
  // every string that starts with `head` sorts before head + U+FFFF: two binary searches, and only
  // the terms they probe are decoded
  return [lowerBound(c, head), lowerBound(c, `${head}\uffff`)];
}

/** The first position in `order` whose term is ≥ `s`. */
function lowerBound(c: Corpus, s: string): number {
  let lo = 0;
  let hi = c.order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c.term(c.order[mid] as number) < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The id of an exact term, or undefined. */
export function termId(c: Corpus, term: string): number | undefined {
  const id = c.order[lowerBound(c, term)];
  return id !== undefined && c.term(id) === term ? id : undefined;
}

/** Inverts the term sequences (a counting sort by term; facts stay in ascending order). */
function postings(v: number, start: Uint32Array, seq: Uint32Array) {
  const n = start.length - 1;
  const postStart = new Uint32Array(v + 1);
  const last = new Int32Array(v).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let p = start[i] as number; p < (start[i + 1] as number); p++) {
      const t = seq[p] as number;
      if (last[t] !== i) {
        last[t] = i;
        postStart[t + 1] = (postStart[t + 1] as number) + 1;
      }
    }
  }
  for (let t = 0; t < v; t++)
    postStart[t + 1] = (postStart[t + 1] as number) + (postStart[t] as number);
  const m = postStart[v] as number;
  const postDoc = new Uint32Array(m);
  const postTf = new Uint32Array(m);
  const next = postStart.slice(0, v);
  const slot = new Uint32Array(v);
  last.fill(-1);
  for (let i = 0; i < n; i++) {
    for (let p = start[i] as number; p < (start[i + 1] as number); p++) {
      const t = seq[p] as number;
      if (last[t] !== i) {
        last[t] = i;
        const k = next[t] as number;
        next[t] = k + 1;
        slot[t] = k;
        postDoc[k] = i;
        postTf[k] = 1;
      } else postTf[slot[t] as number] = (postTf[slot[t] as number] as number) + 1;
    }
  }
  return { postStart, postDoc, postTf };
}

export function emptyArrays(n: number) {
  return {
    seqStart: new Uint32Array(n + 1),
    tagStart: new Uint32Array(n + 1),
    speaker: new Int32Array(n),
    asks: new Uint8Array(n),
    mentionBack: new Int16Array(n),
    mentionSpread: new Uint8Array(n),
    month: new Int32Array(n),
    lastMs: new Float64Array(n),
    bornMs: new Float64Array(n),
    access: new Float64Array(n),
    confidence: new Float64Array(n),
    project: new Uint32Array(n),
    category: new Uint32Array(n),
  };
}

const HALF_LIFE_DAYS = 30;

/** §2.3 live score from the corpus' numbers (the same formula as facts.ts liveScore). */
export function liveAt(c: Corpus, i: number, nowMs: number): number {
  const last = c.lastMs[i] as number;
  const days = Number.isNaN(last) ? 0 : Math.max(0, nowMs - last) / 86400_000;
  return (
    (1 + Math.log(1 + (c.access[i] as number))) *
    Math.exp((-days * Math.LN2) / HALF_LIFE_DAYS) *
    (0.5 + (c.confidence[i] as number))
  );
}
