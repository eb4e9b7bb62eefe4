/**
 * A generated dev set shaped like the long-conversation memory benchmark issue 25 measures on (10
 * conversations, ~1,980 questions; LoCoMo-like): two people chatting over months in dated sessions,
 * one fact per turn ("Name: text", created_at = the session's time), a quarter of the turns sharing a
 * photo kept as a caption (`[shares a photo: …]`), and questions in the benchmark's five categories
 * and proportions:
 * - single-hop: one turn, asked with other words (dog for puppy, unwind for relax) — often the turn
 *   that holds the answer is a reply with a pronoun ("She's a beagle mix");
 * - temporal: when something happened — the turn says "yesterday"/"last weekend", resolved against
 *   the session date; some questions name the date itself ("on 7 May 2023", "in June 2023");
 * - multi-hop: the answer needs two or more turns, often sessions (days) apart;
 * - open-domain: the question uses words the speaker's turns don't ("a ceramics workshop" for
 *   pottery); some stores have a turn elsewhere that uses both words, some don't;
 * - adversarial: asks about something the named person never said (the other speaker did it); the
 *   evidence is the turn that was said.
 * No public dialogue corpus with these properties exists as an npm or Debian package (checked: the
 * npm registry list, `apt-cache search`), so this is generated data; `talkSet("dev")` is for tuning,
 * `talkSet("test")` is held out (other seeds: other names, threads, wording and dates).
 */
import { type Fact, factId } from "../lib/memory/facts.ts";
import { formatGoTime } from "../lib/memory/gotime.ts";
import { type Gen, lifeThreads } from "./devset-talk-life.ts";
import {
  CHITCHAT,
  CLOSERS,
  HOBBIES,
  NAMES,
  OPENERS,
  PHOTO_FILLER,
  RELATIVE,
} from "./devset-talk-vocab.ts";

export type Category = "single-hop" | "temporal" | "multi-hop" | "open-domain" | "adversarial";
export interface TalkQuestion {
  q: string;
  category: Category;
  evidence: string[];
}
export interface TalkStore {
  facts: Fact[];
  questions: TalkQuestion[];
  workspace: string;
  nowMs: number;
}

/** The benchmark's question mix per conversation (841/321/282/92/446 of 1,982, over 10). */
const QUOTA: Record<Category, number> = {
  "single-hop": 84,
  temporal: 32,
  "multi-hop": 28,
  "open-domain": 9,
  adversarial: 45,
};

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MONTHS =
  "January February March April May June July August September October November December".split(
    " ",
  );
const DAY = 86_400_000;

export interface Turn {
  speaker: string;
  text: string;
  photo?: string;
  id?: string;
}

/** One conversation: ~20 dated sessions of ~17 turns, ~200 questions. */
export function generateConversation(seed: number): TalkStore {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const shuffle = <T>(xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
    }
    return xs;
  };
  const [A, B] = shuffle([...NAMES]).slice(0, 2) as [string, string];
  const sessionCount = 18 + Math.floor(r() * 8);
  const dates: number[] = [];
  let t = Date.UTC(
    2023,
    Math.floor(r() * 6),
    1 + Math.floor(r() * 25),
    9 + Math.floor(r() * 11),
    Math.floor(r() * 60),
  );
  for (let i = 0; i < sessionCount; i++) {
    dates.push(t);
    t += (2 + Math.floor(r() * 15)) * DAY + Math.floor(r() * 8) * 3600_000;
  }
  const sessions: Turn[][][] = Array.from({ length: sessionCount }, () => []);
  const asked: Array<{ q: string; category: Category; turns: Turn[] }> = [];
  /**
   * A question in its words: the first form shares a content word with the turn (as most of the
   * benchmark's do), the second paraphrases it (35%). A single-hop or temporal question about X also
   * makes an adversarial twin: the same question about the other speaker, who never said it.
   */
  const askAbout =
    (X: string, Y: string) =>
    (category: Category, forms: string | string[], ...turns: Turn[]) => {
      const list = typeof forms === "string" ? [forms] : forms;
      const q = (list.length > 1 && r() < 0.35 ? list[1] : list[0]) as string;
      asked.push({ q, category, turns });
      if (category === "single-hop" || category === "temporal")
        asked.push({ q: q.replaceAll(X, Y), category: "adversarial", turns });
    };
  const sess = (from = 0, to = sessionCount - 1) =>
    Math.min(sessionCount - 1, Math.max(0, from + Math.floor(r() * (to - from + 1))));
  /** An exchange: turns that stay together in one session. */
  /** Statements (an exchange's first turn) by speaker and session: what a person did when. */
  const statements: Array<{ speaker: string; session: number; turn: Turn }> = [];
  const anchors: Array<{ speaker: string; session: number; noun: string }> = [];
  const say = (session: number, ...turns: Turn[]) => {
    sessions[session]?.push(turns);
    if (turns[0]) statements.push({ speaker: turns[0].speaker, session, turn: turns[0] });
    return turns;
  };
  const turn = (speaker: string, text: string, photo?: string): Turn => ({ speaker, text, photo });
  const dayOf = (session: number, back: number) => {
    const d = new Date((dates[session] as number) - back * DAY);
    return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  };
  const monthOf = (session: number) => {
    const d = new Date(dates[session] as number);
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  };
  const hobbyPool = shuffle([...HOBBIES]);
  const petOwner = r() < 0.5 ? A : B;
  const gen: Gen = {
    r,
    pick,
    shuffle,
    sess,
    say,
    turn,
    askAbout,
    dayOf,
    monthOf,
    sessionCount,
    anchors,
  };
  for (const [who, X] of [A, B].entries()) {
    const Y = X === A ? B : A;
    const ask = askAbout(X, Y);
    // Hobbies: two of X's own; the other speaker talks about them too (same words, other person).
    const mine = hobbyPool.slice(who * 3, who * 3 + 3);
    const intros: Turn[] = [];
    for (const h of mine) {
      const s1 = sess(0, sessionCount - 8);
      const thing = pick(h.things);
      const [intro, , how] = say(
        s1,
        turn(
          X,
          pick([
            `I've been ${h.ing} a lot lately, it really helps me unwind.`,
            `${cap(h.ing)} has become my favorite way to switch off after a long week.`,
          ]),
        ),
        turn(Y, pick(["That's awesome! How did you get into it?", "Oh nice, since when?"])),
        turn(X, `A friend dragged me to ${h.place} last spring and I was hooked right away.`),
      ) as Turn[];
      intros.push(intro as Turn);
      const s2 = sess(s1 + 1, s1 + 4);
      const [made] = say(
        s2,
        turn(
          X,
          pick([
            `Finally finished the ${thing} this weekend!`,
            `Look what I made, my first real ${thing}!`,
          ]),
          r() < 0.7 ? h.photo : undefined,
        ),
        turn(Y, pick(["Wow, it looks incredible!", "You're so talented, seriously."])),
      ) as Turn[];
      const s3 = sess(s1 + 2, s1 + 7);
      const [signup] = say(
        s3,
        turn(X, `Signed up for a ${h.noun} with a few friends, the first session is next week.`),
      ) as Turn[];
      const s4 = sess(s1 + 3, sessionCount - 1);
      const rel = pick(RELATIVE);
      const [long] = say(
        s4,
        turn(X, `I ${h.past} for three hours ${rel.words}, I'm exhausted but so happy.`),
      ) as Turn[];
      say(
        sess(),
        turn(
          Y,
          pick([
            `My neighbor is into ${h.ing} too, she keeps asking me to join.`,
            `I tried ${h.ing} once years ago and it was a disaster.`,
          ]),
        ),
      );
      if (r() < 0.5)
        say(
          sess(),
          turn(Y, `My aunt runs ${h.openWords} now, she says ${h.ing} is the best way to start.`),
        );
      ask(
        "single-hop",
        [
          `What has ${X} been ${h.ing.split(" ")[0]} lately to unwind?`,
          `What does ${X} do to relax?`,
        ],
        intro as Turn,
      );
      ask(
        "single-hop",
        [`Who dragged ${X} to ${h.place}?`, `How did ${X} get into ${h.asked}?`],
        how as Turn,
      );
      ask(
        "single-hop",
        [`What did ${X} finally finish?`, `What did ${X} complete recently?`],
        made as Turn,
      );
      if (made?.photo)
        ask(
          "single-hop",
          [`What was in the photo ${X} shared of the ${thing}?`, `What did ${X}'s picture show?`],
          made as Turn,
        );
      ask(
        "single-hop",
        [`What did ${X} sign up for with a few friends?`, `What did ${X} enroll in with friends?`],
        signup as Turn,
      );
      ask(
        "temporal",
        [`When did ${X} sign up for the ${h.noun}?`, `When did ${X} join the ${h.noun}?`],
        signup as Turn,
      );
      ask(
        "temporal",
        [
          `When did ${X} spend three hours ${h.ing}?`,
          `When did ${X} spend three hours on ${h.asked}?`,
        ],
        long as Turn,
      );
      ask(
        "open-domain",
        `Would ${X} be interested in ${h.openWords}?`,
        intro as Turn,
        signup as Turn,
      );
      ask(
        "multi-hop",
        [
          `How did ${X} start ${h.ing}, and what did ${X} make?`,
          `How did ${X} get into ${h.asked}, and what came of it?`,
        ],
        how as Turn,
        made as Turn,
      );
    }
    ask("multi-hop", `What hobbies does ${X} have?`, ...intros);
    lifeThreads(gen, X, Y, X === petOwner);
    ask("multi-hop", `What has ${X} been busy with, besides work?`, ...intros.slice(0, 2));
  }
  // Relative to another event: "What did X do the week after the jazz concert?" — X's statements
  // of the sessions in the 9 days after the session that told of it.
  for (const a of anchors) {
    const from = dates[a.session] as number;
    const next = statements.filter(
      (st) =>
        st.speaker === a.speaker &&
        st.session !== a.session &&
        (dates[st.session] as number) > from &&
        (dates[st.session] as number) <= from + 9 * DAY,
    );
    if (next.length === 0 || next.length > 2) continue;
    const ask = askAbout(a.speaker, a.speaker === A ? B : A);
    ask(
      "temporal",
      [
        `What did ${a.speaker} do the week after ${a.noun}?`,
        `What was ${a.speaker} up to in the days after ${a.noun}?`,
      ],
      ...next.map((st) => st.turn),
    );
  }
  // Chit-chat fills every session to 14–20 turns; some share a photo of nothing in particular.
  const turns: Turn[] = [];
  const sessionOf: number[] = [];
  for (const [i, exchanges] of sessions.entries()) {
    const size = 14 + Math.floor(r() * 7);
    let n = exchanges.reduce((a, e) => a + e.length, 0);
    while (n < size) {
      const who = r() < 0.5 ? A : B;
      const line = `${pick(OPENERS)}${pick(CHITCHAT)}${pick(CLOSERS)}`;
      const text = line.charAt(0).toUpperCase() + line.slice(1);
      exchanges.push([turn(who, text, r() < 0.15 ? pick(PHOTO_FILLER) : undefined)]);
      n++;
    }
    for (const e of shuffle(exchanges))
      for (const t of e) {
        turns.push(t);
        sessionOf.push(i);
      }
  }
  const facts: Fact[] = [];
  const seen = new Set<string>();
  for (const [i, tn] of turns.entries()) {
    let content = `${tn.speaker}: ${tn.text}${tn.photo ? ` [shares a photo: ${tn.photo}]` : ""}`;
    // an exact repeat would be one fact (same id): people rephrase a little
    const again = ["Lol, ", "Hmm, ", "Well, ", "So, ", "Okay, ", "Oh, ", "Ha, "];
    for (let k = 0; seen.has(content.toLowerCase()); k++) {
      const lead = `${again[k % 7]}${tn.text.charAt(0).toLowerCase()}${tn.text.slice(1)}`;
      content = `${tn.speaker}: ${lead}${k >= 7 ? " !".repeat(Math.floor(k / 7)) : ""}${tn.photo ? ` [shares a photo: ${tn.photo}]` : ""}`;
    }
    seen.add(content.toLowerCase());
    const at = formatGoTime((dates[sessionOf[i] as number] as number) + (i % 40) * 45_000);
    tn.id = factId(content);
    facts.push({
      id: tn.id,
      content,
      category: "personal",
      created_at: at,
      last_accessed: at,
      access_count: 1,
      score: 1,
      source_project: "/home/user/chat",
      confidence: 0.6,
      provenance: "extraction",
    });
  }
  const byCategory = new Map<Category, TalkQuestion[]>();
  for (const a of asked) {
    const list = byCategory.get(a.category) ?? [];
    list.push({
      q: a.q,
      category: a.category,
      evidence: [...new Set(a.turns.map((x) => x.id as string))],
    });
    byCategory.set(a.category, list);
  }
  const questions: TalkQuestion[] = [];
  for (const [category, quota] of Object.entries(QUOTA) as Array<[Category, number]>)
    questions.push(...shuffle(byCategory.get(category) ?? []).slice(0, quota));
  return {
    facts,
    questions,
    workspace: "/home/user/chat",
    nowMs: (dates.at(-1) as number) + 30 * DAY,
  };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Ten conversations: `dev` to tune on, `test` held out (other seeds). */
export function talkSet(split: "dev" | "test", count = 10): TalkStore[] {
  const base = split === "dev" ? 2000 : 7000;
  return Array.from({ length: count }, (_, i) => generateConversation(base + i * 31));
}
