/**
 * A SECOND generated conversational set, written independently of scripts/devset-talk.ts to check
 * that what recall learns from that set transfers: it is never tuned on (run it once, at the end).
 * Other angle, other words:
 * - sessions alternate strictly between the two speakers (as the long-conversation benchmark does);
 *   a turn often reacts to the last one before it brings something new ("Aw, lovely. Anyway, …"),
 *   and the other speaker's question is not always answered in the very next turn;
 * - other life threads (a language, an instrument, a sport and an injury, a new house, a baby in the
 *   family, going back to school, a car, a foster animal, a book, a festival), other small talk,
 *   other relative dates ("the other day", "last Tuesday", "a couple of weeks ago", "this morning");
 * - questions worded by "another annotator": a plain form that reuses a word of the turn, and a
 *   reworded form (40%) in words chosen without looking at any synonym list;
 * - the same five categories and proportions, adversarial = the question about the other speaker.
 * Generated data: no public dialogue corpus is available as a package here.
 */
import { type Fact, factId } from "../lib/memory/facts.ts";
import { formatGoTime } from "../lib/memory/gotime.ts";
import type { Category, TalkQuestion, TalkStore, Turn } from "./devset-talk.ts";
import { family, house, instrument, language, sport } from "./devset-talk2-threads.ts";
import { book, car, festival, foster, school } from "./devset-talk2-threads2.ts";
import {
  BRIDGES,
  FILLER_BODIES,
  FILLER_PHOTOS,
  FILLER_TAILS,
  NAMES2,
  REACTIONS,
  type Thread,
  type World,
} from "./devset-talk2-vocab.ts";

const THREADS: Thread[] = [
  language,
  instrument,
  sport,
  house,
  family,
  school,
  car,
  foster,
  book,
  festival,
];

const QUOTA: Record<Category, number> = {
  "single-hop": 84,
  temporal: 32,
  "multi-hop": 28,
  "open-domain": 9,
  adversarial: 45,
};

function rng(seed: number): () => number {
  let a = (seed ^ 0x9e3779b9) >>> 0;
  return () => {
    a ^= a << 13;
    a >>>= 0;
    a ^= a >>> 17;
    a ^= a << 5;
    a >>>= 0;
    return a / 4294967296;
  };
}

const MONTHS =
  "January February March April May June July August September October November December".split(
    " ",
  );
const DAY = 86_400_000;

/** One conversation of the second set. */
export function generateConversation2(seed: number): TalkStore {
  const r = rng(seed);
  for (let k = 0; k < 5; k++) r();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const shuffle = <T>(xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
    }
    return xs;
  };
  const [A, B] = shuffle([...NAMES2]).slice(0, 2) as [string, string];
  const sessionCount = 16 + Math.floor(r() * 10);
  const dates: number[] = [];
  let t = Date.UTC(
    2022,
    2 + Math.floor(r() * 8),
    1 + Math.floor(r() * 27),
    8 + Math.floor(r() * 13),
  );
  for (let i = 0; i < sessionCount; i++) {
    dates.push(t + Math.floor(r() * 50) * 60_000);
    t += (3 + Math.floor(r() * 18)) * DAY;
  }
  /** Beats per session: turns that belong together, by their speakers in alternation. */
  const beats: Turn[][][] = Array.from({ length: sessionCount }, () => []);
  const asked: Array<{ q: string; category: Category; turns: Turn[] }> = [];
  const world: World = {
    r,
    pick,
    shuffle,
    sessionCount,
    sess: (from = 0, to = sessionCount - 1) =>
      Math.min(
        sessionCount - 1,
        Math.max(0, from + Math.floor(r() * (Math.max(0, to - from) + 1))),
      ),
    beat: (session, ...turns) => {
      beats[session]?.push(turns);
      return turns;
    },
    turn: (speaker, text, photo) => ({ speaker, text, photo }),
    ask:
      (X, Y) =>
      (category, forms, ...turns) => {
        const list = typeof forms === "string" ? [forms] : forms;
        const q = (list.length > 1 && r() < 0.4 ? list[1] : list[0]) as string;
        asked.push({ q, category, turns });
        if (category === "single-hop" || category === "temporal")
          asked.push({
            q: q.replace(new RegExp(`\\b${X}\\b`, "g"), Y),
            category: "adversarial",
            turns,
          });
      },
    dateOf: (session, when) => {
      // "last Tuesday" is the Tuesday before the session, whatever day the session is
      const day = new Date(dates[session] as number).getUTCDay();
      const back = when.weekday === undefined ? when.days : (day - when.weekday + 7) % 7 || 7;
      const d = new Date((dates[session] as number) - back * DAY);
      return pick([
        `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`,
        `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`,
      ]);
    },
    monthOf: (session) => {
      const d = new Date(dates[session] as number);
      return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
    },
  };
  // Each speaker lives eight of the ten threads (variants not shared with the other speaker).
  const kinds = shuffle([...THREADS.keys()]);
  const variantsTaken = new Map<number, number>();
  for (const [who, X] of [A, B].entries()) {
    const Y = X === A ? B : A;
    const mine = who === 0 ? kinds.slice(0, 8) : shuffle([...kinds]).slice(0, 8);
    const headline: Turn[] = [];
    for (const k of mine) {
      const taken = variantsTaken.get(k);
      const v = taken === undefined ? Math.floor(r() * 100) : taken + 1 + Math.floor(r() * 3);
      variantsTaken.set(k, v);
      const first = (THREADS[k] as Thread)(world, X, Y, v);
      headline.push(first);
    }
    const ask = world.ask(X, Y);
    const two = shuffle([...headline]).slice(0, 2);
    ask(
      "multi-hop",
      [`What are some big things going on in ${X}'s life?`, `What has kept ${X} busy this year?`],
      ...two,
    );
  }
  // Sessions: beats in a random order, laid out so that the speakers alternate (a short bridge by
  // the speaker whose turn it is where two beats would start with the same person), padded with
  // small talk to 16–24 turns; a turn that starts a beat sometimes reacts to the turn before it.
  const turns: Turn[] = [];
  const sessionOf: number[] = [];
  for (let s = 0; s < sessionCount; s++) {
    const size = 16 + Math.floor(r() * 9);
    const list = shuffle(beats[s] as Turn[][]);
    let next = r() < 0.5 ? A : B;
    const out: Turn[] = [];
    const fill = (speaker: string) => {
      const text = `${pick(FILLER_BODIES)}${pick(FILLER_TAILS)}`;
      out.push({ speaker, text, photo: r() < 0.25 ? pick(FILLER_PHOTOS) : undefined });
    };
    for (const beat of list) {
      const head = beat[0] as Turn;
      if (head.speaker !== next) {
        if (out.length > 0) out.push({ speaker: next, text: pick(BRIDGES) });
        next = head.speaker;
      }
      if (out.length > 0 && r() < 0.4) head.text = `${pick(REACTIONS)} ${head.text}`;
      for (const tn of beat) {
        if (tn.speaker !== next) fill(next);
        out.push(tn);
        next = tn.speaker === A ? B : A;
      }
      // small talk between beats, one or two turns
      const gap = Math.floor(r() * 3);
      for (let k = 0; k < gap; k++) {
        fill(next);
        next = next === A ? B : A;
      }
    }
    while (out.length < size) {
      fill(next);
      next = next === A ? B : A;
    }
    for (const tn of out) {
      turns.push(tn);
      sessionOf.push(s);
    }
  }
  const facts: Fact[] = [];
  const seen = new Set<string>();
  for (const [i, tn] of turns.entries()) {
    const photo = tn.photo ? ` [shares a photo: ${tn.photo}]` : "";
    tn.text = tn.text.charAt(0).toUpperCase() + tn.text.slice(1);
    let content = `${tn.speaker}: ${tn.text}${photo}`;
    const lead = ["Ha, ", "Honestly, ", "Yeah, ", "Mm, ", "Oh, ", "Right, ", "Ok so "];
    for (let k = 0; seen.has(content.toLowerCase()); k++) {
      const body = `${lead[k % lead.length]}${tn.text.charAt(0).toLowerCase()}${tn.text.slice(1)}`;
      content = `${tn.speaker}: ${body}${k >= lead.length ? " …".repeat(Math.floor(k / lead.length)) : ""}${photo}`;
    }
    seen.add(content.toLowerCase());
    const s = sessionOf[i] as number;
    const first = sessionOf.indexOf(s);
    const at = formatGoTime((dates[s] as number) + (i - first) * 52_000);
    tn.id = factId(content);
    facts.push({
      id: tn.id,
      content,
      category: "personal",
      created_at: at,
      last_accessed: at,
      access_count: 1,
      score: 1,
      source_project: "/home/user/talk",
      confidence: 0.6,
      provenance: "extraction",
    });
  }
  const byCategory = new Map<Category, TalkQuestion[]>();
  for (const a of asked) {
    const evidence = [...new Set(a.turns.map((x) => x.id as string))];
    const list = byCategory.get(a.category) ?? [];
    list.push({ q: a.q, category: a.category, evidence });
    byCategory.set(a.category, list);
  }
  // The benchmark's proportions, scaled down to what this conversation can ask in every category.
  const quotas = Object.entries(QUOTA) as Array<[Category, number]>;
  const f = Math.min(1, ...quotas.map(([c, n]) => (byCategory.get(c)?.length ?? 0) / n));
  const questions: TalkQuestion[] = [];
  for (const [category, quota] of quotas)
    questions.push(...shuffle(byCategory.get(category) ?? []).slice(0, Math.round(quota * f)));
  return {
    facts,
    questions,
    workspace: "/home/user/talk",
    nowMs: (dates.at(-1) as number) + 20 * DAY,
  };
}

/** The untouched set: ten conversations of the second generator (never tuned on). */
export function untouchedSet(count = 10): TalkStore[] {
  return Array.from({ length: count }, (_, i) => generateConversation2(11_000 + i * 37));
}
