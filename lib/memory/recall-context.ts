import type { Corpus } from "./recall-corpus.ts";
import type { Scores } from "./recall-scores.ts";

/**
 * What recall learns from the store itself, beyond the query's words (lib/memory/retrieve.ts):
 * - dialog neighbours: a turn answered or continued by the turns around it in the same session
 *   ("We adopted a puppy, her name is Luna" / "What breed is she?" / "She's a beagle") shares their
 *   relevance, so the turn that holds the answer in a pronoun is found with the one that names it;
 * - co-occurrence: a rare query word lends its weight to the words that appear with it in the same
 *   facts (a "ceramics" turn that also says "pottery" leads to the pottery turns);
 * - dates: a day or a span the query names (or that a relative date resolves to) favours the facts
 *   created in it.
 */

/** Turns this far apart (positions in time order) in one session count as neighbours. */
const WINDOW = 3;
/** Neighbours are turns of the same session: created within this of each other. */
const SESSION_GAP_MS = 45 * 60_000;

/**
 * Adds to every dialog turn near a strong candidate a share of that candidate's score (decaying
 * with the distance in turns). Only dialog turns (`Name: …`) take part: facts extracted from one
 * coding session are not each other's context.
 */
export function neighbourContext(
  c: Corpus,
  rel: Scores,
  share: number,
  top = 40,
  window = WINDOW,
  otherSpeaker = 1,
): void {
  const bonus = new Map<number, number>();
  for (const [i, s] of rel.top(top)) {
    if ((c.speaker[i] as number) < 0) continue;
    const at = c.timeRank[i] as number;
    const born = c.bornMs[i] as number;
    for (const dir of [-1, 1]) {
      for (let d = 1; d <= window; d++) {
        const j = c.byTime[at + dir * d];
        if (j === undefined) break;
        if (Math.abs((c.bornMs[j] as number) - born) > SESSION_GAP_MS) break;
        const sp = c.speaker[j] as number;
        if (sp < 0) continue;
        const add = ((sp === c.speaker[i] ? 1 : otherSpeaker) * s * share) / d;
        if (add > (bonus.get(j) ?? 0)) bonus.set(j, add);
      }
    }
  }
  for (const [j, b] of bonus) rel.add(j, b);
}

/**
 * Question and answer: a strong candidate that asks something (its text has a "?") lends `share`
 * of its score to the next turn by another speaker in the session — its answer ("What breed is
 * she?" / "She's a beagle"); a strong statement followed by a question of the other speaker lends
 * it to the speaker's reply after that question.
 */
export function answerContext(c: Corpus, rel: Scores, share: number, top = 20): void {
  const bonus = new Map<number, number>();
  const at = (p: number) => c.byTime[p];
  const sameSession = (a: number, b: number) =>
    Math.abs((c.bornMs[a] as number) - (c.bornMs[b] as number)) <= SESSION_GAP_MS;
  for (const [i, s] of rel.top(top)) {
    const sp = c.speaker[i] as number;
    if (sp < 0) continue;
    const p = c.timeRank[i] as number;
    const next = at(p + 1);
    if (next === undefined || !sameSession(i, next) || (c.speaker[next] as number) < 0) continue;
    let answer: number | undefined;
    if (c.asks[i] && c.speaker[next] !== sp) answer = next;
    else if (c.asks[next] && c.speaker[next] !== sp) {
      const reply = at(p + 2);
      if (reply !== undefined && sameSession(i, reply) && c.speaker[reply] === sp) answer = reply;
    }
    if (answer === undefined) continue;
    const add = s * share;
    bonus.set(answer, (bonus.get(answer) ?? 0) + add);
  }
  for (const [j, b] of bonus) rel.add(j, b);
}

/**
 * The terms that co-occur with `term` in the store's facts, strongest association first: counted
 * over the facts holding `term`, scored by pointwise mutual information × the count, among terms in
 * at least 2 and at most 5% of the facts (so the association leads somewhere specific).
 */
export function cooccurring(
  c: Corpus,
  term: number,
  skip: ReadonlySet<number>,
  limit: number,
  minCount = 1,
): Array<[number, number]> {
  const df = (t: number) => (c.postStart[t + 1] as number) - (c.postStart[t] as number);
  const from = c.postStart[term] as number;
  const to = c.postStart[term + 1] as number;
  const dft = to - from;
  if (dft === 0 || dft > Math.max(4, c.n * 0.01)) return [];
  const counts = new Map<number, number>();
  for (let k = from; k < to; k++) {
    const i = c.postDoc[k] as number;
    const seen = new Set<number>();
    for (let p = c.seqStart[i] as number; p < (c.seqStart[i + 1] as number); p++) {
      const u = c.seq[p] as number;
      if (u === term || seen.has(u) || skip.has(u)) continue;
      seen.add(u);
      counts.set(u, (counts.get(u) ?? 0) + 1);
    }
  }
  const cap = Math.max(4, c.n * 0.05);
  const scored: Array<[number, number]> = [];
  for (const [u, n] of counts) {
    const dfu = df(u);
    if (n < minCount || dfu < 2 || dfu > cap) continue;
    const pmi = Math.log((n * c.n) / (dft * dfu));
    if (pmi > 0) scored.push([u, pmi * n]);
  }
  return scored.sort((a, b) => b[1] - a[1]).slice(0, limit);
}

/** The position in time order of the first fact created at or after `ms`. */
export function firstBornAt(c: Corpus, ms: number): number {
  let lo = 0;
  let hi = c.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((c.bornMs[c.byTime[mid] as number] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether any fact was created in [fromMs, toMs). */
export function anyBorn(c: Corpus, fromMs: number, toMs: number): boolean {
  const p = firstBornAt(c, fromMs);
  return p < c.n && (c.bornMs[c.byTime[p] as number] as number) < toMs;
}

/**
 * Facts created in [fromMs, toMs) gain `bonus`: all of them (the date may be the whole question),
 * or with `onlyFound` only those the query's words found.
 */
export function dateWindow(
  c: Corpus,
  rel: Scores,
  fromMs: number,
  toMs: number,
  bonus: number,
  onlyFound = false,
  /** Where in the span talk about it is likeliest, and how much the bonus fades at the far end. */
  centerMs = fromMs,
  fade = 0,
): void {
  const reach = Math.max(1, toMs - centerMs, centerMs - fromMs);
  for (let p = firstBornAt(c, fromMs); p < c.n; p++) {
    const i = c.byTime[p] as number;
    if ((c.bornMs[i] as number) >= toMs) break;
    if (onlyFound && !rel.has(i)) continue;
    const away = Math.abs((c.bornMs[i] as number) - centerMs) / reach;
    rel.add(i, bonus * (1 - fade * Math.min(1, away)));
  }
}
