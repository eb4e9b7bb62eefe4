import { FORMS, RELATED } from "./recall-lexicon-data.ts";

/**
 * The general English word knowledge recall uses (generated from WordNet 3.0 by
 * scripts/recall-lexicon.ts; see recall-lexicon-data.ts for its notice): the related words of a
 * stem (synonyms of its common senses, words derived from it), and the lemma of an irregular form
 * ("ran" → "run"). Both tables are sorted lines searched in place — nothing is parsed or built at
 * start-up, a look-up costs a dozen string compares.
 */

/** The rest of the line of `table` whose first word is `key`, or undefined. */
function lineOf(table: string, key: string): string | undefined {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = mid === 0 ? 0 : table.lastIndexOf("\n", mid - 1) + 1;
    let end = table.indexOf("\n", start);
    if (end < 0) end = table.length;
    const gap = table.indexOf(" ", start);
    const word = table.slice(start, gap);
    if (word === key) return table.slice(gap + 1, end);
    if (word < key) lo = end + 1;
    else hi = start;
  }
  return undefined;
}

const ASCII_WORD = /^[a-z]{3,}$/;

/** Stems related to a stem (synonyms, derivations), or none. */
export function relatedStems(stem: string): string[] {
  if (!ASCII_WORD.test(stem)) return [];
  return lineOf(RELATED, stem)?.split(" ") ?? [];
}

/** Switches for measuring what each table adds (scripts/bench-recall.ts); both on in use. */
export const LEXICON_USE = { forms: true };

/** The lemma of an irregular word form ("went" → "go", "children" → "child"), or undefined. */
export function lemmaOf(word: string): string | undefined {
  return LEXICON_USE.forms && ASCII_WORD.test(word) ? lineOf(FORMS, word) : undefined;
}
