/**
 * Relative dates inside a fact ("yesterday", "last Friday", "two weeks ago", "ontem"), resolved
 * against the fact's creation time: recall learns which day a turn talks about, not only when it
 * was said. A question naming a day then favours the turns about that day, and a "when" question
 * the turns that say when.
 */

/** "No mention" in the corpus' `mentionBack`. */
export const NO_MENTION = -32768;

const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  couple: 2,
  few: 3,
  several: 4,
  um: 1,
  uma: 1,
  dois: 2,
  duas: 2,
  três: 3,
  tres: 3,
};
const WEEKDAYS: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
};
const UNIT: Record<string, number> = {
  day: 1,
  dia: 1,
  week: 7,
  semana: 7,
  month: 30,
  mês: 30,
  mes: 30,
  year: 365,
  ano: 365,
};

const N =
  "(\\d{1,2}|a|an|one|two|three|four|five|six|seven|couple of|few|several|um|uma|dois|duas|tr[eê]s)";
const RULES: Array<[RegExp, (m: RegExpExecArray, weekday: number) => [number, number]]> = [
  [/\b(the day before yesterday|anteontem)\b/, () => [2, 0]],
  [/\b(yesterday|last night|ontem)\b/, () => [1, 0]],
  [
    /\b(today|tonight|this (?:morning|afternoon|evening)|hoje|esta manh[ãa]|hoje [àa] noite)\b/,
    () => [0, 0],
  ],
  [/\b(tomorrow|amanh[ãa])\b/, () => [-1, 0]],
  [
    new RegExp(`\\b${N}\\s+(day|week|month|year)s?\\s+ago\\b`),
    (m) => spanAgo(m[1] as string, m[2] as string),
  ],
  [
    new RegExp(`\\bh[aá]\\s+${N}\\s+(dia|semana|m[eê]s|ano)(?:s|es)?\\b`),
    (m) => spanAgo(m[1] as string, m[2] as string),
  ],
  [/\bthe other day\b/, () => [2, 1]],
  [
    /\b(?:last|this past|on|this)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/,
    (m, weekday) => {
      const back = (weekday - (WEEKDAYS[m[1] as string] as number) + 7) % 7 || 7;
      return [back, 0];
    },
  ],
  [
    /\b(?:last|this past|over the) weekend\b|\bfim de semana passado\b/,
    (_, weekday) => {
      // the Saturday–Sunday before (said on a weekend day: the one before that)
      const toSunday = weekday === 0 ? 7 : weekday;
      return [toSunday, 1];
    },
  ],
  [/\b(last|past) week\b|\bsemana passada\b/, () => [7, 3]],
  [/\b(last|past) month\b|\bm[eê]s passado\b/, () => [30, 12]],
  [/\blast year\b|\bano passado\b/, () => [365, 150]],
  [
    /\bnext\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/,
    (m, weekday) => [-(((WEEKDAYS[m[1] as string] as number) - weekday + 7) % 7 || 7), 0],
  ],
  [/\bnext week\b|\bsemana que vem\b|\bpr[óo]xima semana\b/, () => [-7, 3]],
  [/\bnext month\b|\bm[eê]s que vem\b|\bpr[óo]ximo m[eê]s\b/, () => [-30, 12]],
];

function spanAgo(count: string, unit: string): [number, number] {
  const n = Number(count) || NUMBERS[count.replace(/ of$/, "")] || 1;
  const days = UNIT[unit] ?? 1;
  return [n * days, days === 1 ? (n > 2 ? 1 : 0) : Math.ceil(days / 2)];
}

/**
 * The day a text talks about, relative to when it was written: `[back, spread]` in days (back < 0
 * is the future: "next week"), or undefined when it names none. The first expression found wins.
 */
export function timeMention(text: string, createdMs: number): [number, number] | undefined {
  const lower = text.toLowerCase();
  const weekday = new Date(createdMs).getUTCDay();
  for (const [re, read] of RULES) {
    const m = re.exec(lower);
    if (m) return read(m, weekday);
  }
  return undefined;
}
