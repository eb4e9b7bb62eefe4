import { terms } from "./recall-corpus.ts";
import { wordRuns } from "./text.ts";

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

export interface ParsedQuery {
  terms: string[];
  /** The query word each term came from (prefix matching uses the unstemmed word). */
  raw: string[];
  speakers: string[];
  month?: number;
  year?: number;
  /**
   * A span the query names: a day ("on 7 May 2023": that day and the week after, when people talk
   * about it — "yesterday", "last weekend"), or one relative to now ("last week"; `found`: it only
   * reorders facts the words found, unless there are no words).
   */
  window?: { from: number; to: number; found: boolean; words?: string };
  /** The day a query names ("on 7 May 2023"), at 00:00 UTC. */
  day?: number;
  /** A "when" question (when, what year/month/day, how long ago): the answer is a date. */
  when?: boolean;
  /** "the day after the concert": the text of the anchor event and the span around its date. */
  anchor?: { text: string; from: number; to: number };
}

const DAY = 86_400_000;
const WHEN =
  /^\W*(?:when\b|(?:what|which)\s+(?:year|month|day|date|time|week)\b|how long ago\b|quando\b|em que (?:ano|m[eê]s|dia)\b)/i;
const MONTH_WORD = "([a-zç]+)";
const ORD = "(\\d{1,2})(?:st|nd|rd|th)?";
const DAY_FORMS: Array<[RegExp, (m: RegExpExecArray) => [number, number, number] | undefined]> = [
  [/\b(\d{4})-(\d{2})-(\d{2})\b/, (m) => [Number(m[1]), Number(m[2]) - 1, Number(m[3])]],
  [
    new RegExp(
      `\\b${ORD}(?:\\s+(?:of|de))?\\s+${MONTH_WORD},?\\s+(?:de\\s+)?((?:19|20)\\d\\d)\\b`,
      "i",
    ),
    (m) => monthDay(m[2], m[1], m[3]),
  ],
  [
    new RegExp(`\\b${MONTH_WORD}\\s+${ORD},?\\s+((?:19|20)\\d\\d)\\b`, "i"),
    (m) => monthDay(m[1], m[2], m[3]),
  ],
];

function monthDay(
  month?: string,
  day?: string,
  year?: string,
): [number, number, number] | undefined {
  const mo = MONTHS[(month ?? "").toLowerCase()];
  const d = Number(day);
  if (mo === undefined || !(d >= 1 && d <= 31)) return undefined;
  return [Number(year), mo, d];
}

/** Spans around an anchor event, by the unit the query names (ms from the anchor's date). */
const AFTER: Record<string, [number, number]> = {
  day: [0.5 * DAY, 2.5 * DAY],
  night: [0.5 * DAY, 2.5 * DAY],
  morning: [0.5 * DAY, 2.5 * DAY],
  weekend: [1 * DAY, 10 * DAY],
  week: [1 * DAY, 10 * DAY],
  month: [1 * DAY, 40 * DAY],
};
const ANCHORED =
  /\b(?:on\s+|in\s+|during\s+)?the\s+(day|night|morning|weekend|week|month)\s+(after|before)\s+(.+?)\s*(?:[?.!]|$)/i;

/** Dates relative to now: [from, to) ms before now; `calendarMonth`: last calendar month. */
function relativeToNow(
  text: string,
  nowMs: number,
): { from: number; to: number; at: RegExpExecArray } | undefined {
  const rules: Array<[RegExp, (m: RegExpExecArray) => [number, number]]> = [
    [/\b(yesterday|ontem)\b/i, () => [nowMs - 2 * DAY, nowMs]],
    [/\b(last|past) week\b|\bsemana passada\b/i, () => [nowMs - 14 * DAY, nowMs]],
    [/\bthis week\b|\besta semana\b/i, () => [nowMs - 8 * DAY, nowMs + DAY]],
    [
      /\b(last|past) month\b|\bm[eê]s passado\b/i,
      () => {
        const d = new Date(nowMs);
        const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
        return [start, Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) + 7 * DAY];
      },
    ],
    [
      /\b(\d+|a|one|two|three|four|five|six)\s+(day|week|month)s?\s+ago\b|\bh[aá]\s+(\d+)\s+(dia|semana|m[eê]s)(?:es|s)?\b/i,
      (m) => {
        const words: Record<string, number> = {
          a: 1,
          one: 1,
          two: 2,
          three: 3,
          four: 4,
          five: 5,
          six: 6,
        };
        const n = Number(m[1] ?? m[3]) || words[(m[1] ?? "").toLowerCase()] || 1;
        const unit = /^(day|dia)/i.test(m[2] ?? m[4] ?? "")
          ? DAY
          : /^(week|semana)/i.test(m[2] ?? m[4] ?? "")
            ? 7 * DAY
            : 30 * DAY;
        const center = nowMs - n * unit;
        const half = Math.max(DAY, unit / 2);
        return [center - half, center + half + 7 * DAY];
      },
    ],
  ];
  for (const [re, span] of rules) {
    const m = re.exec(text);
    if (m) {
      const [from, to] = span(m);
      return { from, to, at: m };
    }
  }
  return undefined;
}

/**
 * Splits a query into search terms, speaker names (known to the index), a month/year, and the
 * dates it names: a day, a span relative to `nowMs`, or a span around an anchor event.
 */
export function parseQuery(
  query: string,
  isSpeaker: (word: string) => boolean,
  nowMs?: number,
): ParsedQuery {
  const out: ParsedQuery = { terms: [], raw: [], speakers: [] };
  if (WHEN.test(query)) out.when = true;
  const memo = new Map<string, string>();
  let text = query;
  for (const [re, read] of DAY_FORMS) {
    const m = re.exec(text);
    const ymd = m ? read(m) : undefined;
    if (!m || !ymd) continue;
    const day = Date.UTC(ymd[0], ymd[1], ymd[2]);
    out.window = { from: day - DAY, to: day + 9 * DAY, found: false };
    out.day = day;
    text = text.replace(m[0], " ");
    break;
  }
  const anchored = ANCHORED.exec(text);
  if (anchored) {
    const span = AFTER[(anchored[1] as string).toLowerCase()] as [number, number];
    const before = (anchored[2] as string).toLowerCase() === "before";
    out.anchor = {
      text: anchored[3] as string,
      from: before ? -span[1] : span[0],
      to: before ? -span[0] : span[1],
    };
    text = text.replace(anchored[0], " ");
  }
  if (!out.window && nowMs !== undefined) {
    const rel = relativeToNow(text, nowMs);
    if (rel) {
      out.window = { from: rel.from, to: rel.to, found: true, words: rel.at[0] };
      text = text.replace(rel.at[0], " ");
    }
  }
  const iso = /\b(\d{4})-(\d{2})\b/.exec(text);
  if (iso) {
    out.year = Number(iso[1]);
    out.month = Number(iso[2]) - 1;
  }
  const words = wordRuns(text);
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
