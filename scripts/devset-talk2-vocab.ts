/**
 * Vocabulary of the second generated conversational set (scripts/devset-talk2.ts): names, relative
 * dates, small talk (built from parts, so it rarely repeats word for word), photo captions of
 * nothing in particular, and the World a thread writes into. Generated data.
 */
import type { Category, Turn } from "./devset-talk.ts";
export interface World {
  r: () => number;
  pick: <T>(xs: readonly T[]) => T;
  shuffle: <T>(xs: T[]) => T[];
  sessionCount: number;
  sess: (from?: number, to?: number) => number;
  beat: (session: number, ...turns: Turn[]) => Turn[];
  turn: (speaker: string, text: string, photo?: string) => Turn;
  ask: (
    X: string,
    Y: string,
  ) => (category: Category, forms: string | string[], ...turns: Turn[]) => void;
  /** A session's date minus `back` days, written as a person would ("12 March 2022"). */
  dateOf: (session: number, when: When) => string;
  monthOf: (session: number) => string;
}

export const NAMES2 = [
  "Hannah",
  "Marcus",
  "Leila",
  "Grant",
  "Ines",
  "Victor",
  "Naomi",
  "Felix",
  "Tessa",
  "Omar",
  "Bianca",
  "Rafael",
  "Yuki",
  "Dmitri",
  "Claire",
  "Kofi",
];

/** Relative dates a turn uses; a weekday one is resolved against the session's weekday. */
export interface When {
  words: string;
  days: number;
  weekday?: number;
}
export const WHEN: When[] = [
  { words: "the other day", days: 2 },
  { words: "last Tuesday", days: 5, weekday: 2 },
  { words: "a couple of weeks ago", days: 14 },
  { words: "this morning", days: 0 },
  { words: "over the weekend", days: 2, weekday: 6 },
  { words: "on Saturday", days: 3, weekday: 6 },
];

export const REACTIONS = [
  "Ha, love that.",
  "Aw, that's lovely.",
  "Oh man, I feel that.",
  "No way, good for you!",
  "Totally agree.",
  "Sounds about right, lol.",
  "That's wild.",
];

/** What the speaker whose turn it is says to hand the talk over. */
export const BRIDGES = [
  "Anyway, what's new with you?",
  "Okay your turn, any news?",
  "Enough about me, how have you been?",
  "Hey, how was your week?",
  "So what else is going on?",
];

/** Small talk: a body, sometimes with a tail; some turns share a photo of nothing in particular. */
export const FILLER_BODIES = [
  "I need a vacation so badly, this month has been nonstop.",
  "Work has been a lot this week but I'm hanging in there.",
  "The weather has been gorgeous, we spent the whole day outside.",
  "Haha yes, exactly what I was thinking.",
  "That's so thoughtful of you.",
  "I'm so glad we keep in touch like this.",
  "Ugh, Mondays, am I right?",
  "I made way too much soup last night, I'll be eating it all week.",
  "Honestly I just want to sleep for a whole weekend.",
  "Fingers crossed for you!",
  "You always know how to cheer me up.",
  "We should catch up in person soon, it's been forever.",
  "My phone died right in the middle of the afternoon, of course.",
  "I can't believe it's already almost summer.",
  "Oh I know that feeling too well.",
  "Sending good vibes your way.",
  "That reminds me, I still owe you a coffee.",
  "I've been so bad at answering messages lately, sorry!",
  "It's pouring here, perfect excuse to stay in.",
  "I reorganized my closet and found a jacket I forgot I owned.",
  "Not much new on my side, just the usual chaos.",
  "Proud of you, for real.",
  "We tried a new taco place and it was so good.",
  "I finally watched that show everyone keeps talking about.",
  "Can't complain, things are pretty calm for once.",
  "My neighbor's rooster woke me up at five again.",
  "That made me laugh way harder than it should have.",
  "I've been drinking way too much coffee this week.",
];
export const FILLER_TAILS = [
  "",
  "",
  "",
  " Anyway!",
  " lol",
  " 🙂",
  " How about you?",
  " Talk later!",
  " Hope you're well.",
];
export const FILLER_PHOTOS = [
  "a sunny park with people on picnic blankets",
  "a big pot of vegetable soup on a stove",
  "rooftops under a pink evening sky",
  "a latte with a leaf drawn in the foam",
  "a rainy window with blurry city lights",
  "a messy desk with a laptop and sticky notes",
  "tacos on a paper plate at a food truck",
  "a cat-shaped mug on a kitchen counter",
  "a stack of library books on a table",
  "a beach at low tide with footprints in the sand",
];

/** A thread of one speaker's life; returns its first turn (what a "big things" question names). */
export type Thread = (w: World, X: string, Y: string, v: number) => Turn;

export const at = <T>(xs: readonly T[], v: number): T => xs[v % xs.length] as T;
