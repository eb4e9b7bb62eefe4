import { firstBornAt } from "./recall-context.ts";
import type { Corpus } from "./recall-corpus.ts";
import { NO_MENTION } from "./recall-mentions.ts";
import type { Scores } from "./recall-scores.ts";

/**
 * Recall by the days facts talk about (recall-mentions.ts reads them from the text): a question
 * naming a day favours the turns about that day, a "when" question the turns that say when.
 */

const DAY = 86_400_000;

/** Whether the fact's mentioned day (or, without a mention, its creation day) is within `tol` of `dayMs`. */
export function aboutDay(
  bornMs: number,
  back: number,
  spread: number,
  dayMs: number,
  tolDays: number,
): boolean {
  if (back === NO_MENTION) return Math.abs(startOfDay(bornMs) - dayMs) <= tolDays * DAY;
  const at = startOfDay(bornMs) - back * DAY;
  return Math.abs(at - dayMs) <= (spread + tolDays) * DAY;
}

const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/**
 * The facts about `dayMs` (a mention that resolves to it, or said that day without one) gain
 * `bonus`: they are found among those said up to five weeks later.
 */
export function dayEvent(c: Corpus, rel: Scores, dayMs: number, bonus: number): void {
  const to = dayMs + 36 * DAY;
  for (let p = firstBornAt(c, dayMs - 2 * DAY); p < c.n; p++) {
    const i = c.byTime[p] as number;
    const born = c.bornMs[i] as number;
    if (born >= to) break;
    const back = c.mentionBack[i] as number;
    if (back === NO_MENTION && born >= dayMs + DAY) continue;
    if (aboutDay(born, back, c.mentionSpread[i] as number, dayMs, 1)) rel.add(i, bonus);
  }
}

/** A "when" question: the facts found that say when (a relative date) weigh × (1 + boost). */
export function saysWhen(c: Corpus, rel: Scores, boost: number): void {
  for (const i of rel.keys())
    if ((c.mentionBack[i] as number) !== NO_MENTION)
      rel.set(i, (rel.get(i) as number) * (1 + boost));
}
