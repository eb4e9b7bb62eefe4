import { dangerReason } from "./danger.ts";
import { stem } from "./stem.ts";
import { STOP_WORDS } from "./text.ts";
import {
  acting,
  actionWord,
  codeShape,
  folded,
  mixedScriptWord,
  negated,
  plain,
} from "./trust-words.ts";

// Whose word a fact is by its `source` (isUserSource, unverifiedSource): lib/memory/source.ts.

/** Categories that are procedures or instructions by what they are for. */
const ACTING_CATEGORIES = new Set(["gotcha", "pattern", "preference"]);

/**
 * Why an unverified fact is held for review instead of injected, or undefined when it reads as a
 * plain description: the threat scan and intent judge, the multilingual danger concepts of
 * lib/memory/danger.ts, the category, a disguised word, a command
 * shape, a word that asks an agent to act (any of them holds it).
 */
export function holdReason(content: string, category: string): string | undefined {
  const danger = dangerReason(content);
  if (danger) return danger;
  if (ACTING_CATEGORIES.has(category)) return `instruction: category ${category}`;
  const mixed = mixedScriptWord(content);
  if (mixed) return `disguised: "${mixed}" mixes scripts`;
  const shape = codeShape(content);
  if (shape) return `instruction: names ${shape}`;
  const word = actionWord(content);
  if (word) return `instruction: asks an agent to act ("${word}")`;
  return undefined;
}

/** A user turn longer than this is pasted material (a page, a file), not the user's own words. */
export const MAX_USER_TURN = 4000;

const TRAIL = /^[("'“‘[{<]+|[)"'”’\]}>.,;:!?]+$/g;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Tokens {
  code: string[];
  words: string[];
}

function tokens(text: string): Tokens {
  const code: string[] = [];
  const words: string[] = [];
  for (const raw of folded(text).split(/\s+/)) {
    const chunk = raw.replace(TRAIL, "");
    if (!chunk) continue;
    if (/[/\\$|`~=<>{}@:;&]|^-|\w\.\w/.test(chunk)) code.push(chunk);
    for (const run of chunk.match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (CJK.test(run)) {
        const cs = [...run];
        if (cs.length === 1) words.push(run);
        for (let i = 0; i + 1 < cs.length; i++) words.push(`${cs[i]}${cs[i + 1]}`);
      } else if (run.length >= 2 && !STOP_WORDS.has(run) && !SUPPORT_STOP.has(run)) {
        words.push(stem(run));
      }
    }
  }
  return { code, words };
}

/** Words a fact restates its subject with: "User prefers…" from "I prefer…". */
const SUPPORT_STOP = new Set(
  "user user's users usuário usuario usuária utilizador usuarios benutzer nutzer utilisateur utente пользователь we're i'm i've let's please pls remember note keep mind lembre lembrar recuerda merke notiere".split(
    " ",
  ),
);

/** Two forms of one word: equal, or the same first 3 letters (words up to 5) / 4 letters (longer). */
function sameHead(a: string, b: string): boolean {
  if (a === b) return true;
  const n = Math.min(a.length, b.length) <= 5 ? 3 : 4;
  return a.length >= 3 && b.length >= 3 && a.slice(0, n) === b.slice(0, n);
}

function covered(word: string, have: ReadonlySet<string>, list: readonly string[]): boolean {
  if (have.has(word)) return true;
  if (word.length < 5) return false;
  const head = word.slice(0, 5);
  return list.some((u) => u.length >= 5 && u.slice(0, 5) === head);
}

/**
 * The words the user typed in a turn: piped stdin given as context (`<stdin bytes="N">…</stdin>`
 * before the instruction, CONTRACT §4.5) is material to work on, not the user's words. The
 * instruction follows the last closing tag, so a closing tag inside the material changes nothing.
 */
function ownWords(turn: string): string {
  if (!turn.startsWith('<stdin bytes="')) return turn;
  const end = turn.lastIndexOf("\n</stdin>\n\n");
  return end < 0 ? "" : turn.slice(end + "\n</stdin>\n\n".length);
}

/**
 * Whether one of the user's turns supports the fact: every command, path, flag or host in it appears
 * verbatim in that turn; at least 60% of its words (stemmed, or sharing a 5-letter head — paraphrase,
 * inflection, another tense) appear there; and none of the words it adds is a word that asks an agent
 * to act. A turn longer than MAX_USER_TURN is pasted material and supports nothing.
 */
export function supportedBy(content: string, userTurns: readonly string[]): boolean {
  const fact = tokens(content);
  if (fact.code.length === 0 && fact.words.length === 0) return false;
  for (const raw of userTurns) {
    const turn = ownWords(raw);
    if (!turn.trim() || turn.length > MAX_USER_TURN) continue;
    const flat = folded(turn);
    if (!fact.code.every((c) => flat.includes(c))) continue;
    const mine = tokens(turn).words;
    const have = new Set(mine);
    const missing = fact.words.filter((w) => !covered(w, have, mine));
    if (fact.words.length > 0 && missing.length / fact.words.length > 0.4) continue;
    // an action word may change form ("rode" → "rodar"), never appear from nowhere
    const said = [...mine, ...(`${flat} ${plain(turn)}`.match(/[\p{L}]+/gu) ?? [])];
    const saidIt = (w: string) => said.some((u) => sameHead(u, w));
    if (missing.some((w) => acting(w) && !saidIt(w))) continue;
    // unstemmed action words the fact adds (stemming may have changed "running" → "run")
    const added = (`${folded(content)} ${plain(content)}`.match(/[\p{L}]+/gu) ?? []).filter(
      (w) => acting(w) && !saidIt(w),
    );
    if (added.length) continue;
    // "never push to main" must not come back as "push to main"
    if (negated(content) !== negated(turn)) continue;
    if (mixedScriptWord(content) && !plain(turn).includes(plain(content))) continue;
    return true;
  }
  return false;
}
