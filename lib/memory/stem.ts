/**
 * A light stemmer for English and Portuguese recall: word forms of one stem meet (painting, painted,
 * paints → paint; hiking, hiked, hike → hik; configurações → configuracao; viajando → viaj). Not a
 * linguistic stemmer: it only has to map the forms people use to one key, and never merge two
 * unrelated words often. Digits and short words are kept as they are.
 */
export function stem(token: string): string {
  let t = /^[\x00-\x7f]*$/.test(token) ? token : token.normalize("NFD").replace(/\p{M}/gu, "");
  if (t.length <= 3 || /\d/.test(t)) return t;
  const pt = portuguese(t);
  if (pt !== undefined) return pt;
  // English plurals.
  if (t.endsWith("sses")) t = t.slice(0, -2);
  else if (t.endsWith("ies") && t.length > 4) t = `${t.slice(0, -3)}i`;
  else if (t.endsWith("s") && !/(ss|us|is)$/.test(t) && t.length > 3) t = t.slice(0, -1);
  // -ing / -ed (and -ingly / -edly), then an undoubled consonant: running → run, knitted → knit.
  const m = /^(.{2,}?)(ingly|edly|ing|ed)$/.exec(t);
  if (m && /[aeiouy]/.test(m[1] as string)) {
    t = m[1] as string;
    if (/([bdfgmnprt])\1$/.test(t)) t = t.slice(0, -1);
  }
  for (const suffix of ["ness", "ment", "ful", "ly"]) {
    if (t.endsWith(suffix) && t.length - suffix.length >= 4) {
      t = t.slice(0, -suffix.length);
      break;
    }
  }
  if (t.length > 3 && /[^aeiou]y$/.test(t)) t = `${t.slice(0, -1)}i`;
  if (t.length > 3 && t.endsWith("e")) t = t.slice(0, -1);
  return t;
}

// Portuguese endings that English words (almost) never have: plurals of -ão/-al/-el, gerunds,
// past tenses, -mente adverbs. Matched longest first; the stem keeps ≥ 3 letters.
const PT: ReadonlyArray<[string, string]> = [
  ["coes", "cao"],
  ["oes", "ao"],
  ["aes", "ao"],
  ["mente", ""],
  ["ando", ""],
  ["endo", ""],
  ["indo", ""],
  ["aram", ""],
  ["eram", ""],
  ["iram", ""],
  ["avam", ""],
  ["ava", ""],
  ["ais", "al"],
  ["eis", "el"],
];

function portuguese(t: string): string | undefined {
  for (const [suffix, rep] of PT) {
    if (t.endsWith(suffix) && t.length - suffix.length >= 3)
      return t.slice(0, -suffix.length) + rep;
  }
  return undefined;
}
