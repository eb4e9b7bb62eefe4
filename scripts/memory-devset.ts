/**
 * A deterministic development set shaped like a long-term conversational memory benchmark: two
 * people chatting over months, every dialog turn stored as a fact ("Name: text", created_at = the
 * session's date), ~600 facts per store and ~200 questions per store of four kinds — single-hop,
 * multi-hop (several evidence turns), temporal (when / in which month) and open-domain (inference
 * from a stated interest, asked with related words). Each question lists the ids of its evidence
 * turns; recall@k is the share of a question's evidence found in the top k, averaged.
 *
 * The lexical gaps are the ones real conversations have: questions use other word forms (painted →
 * paint, viajei → viagem), related words the speakers also use elsewhere (pottery ~ ceramics), the
 * other speaker talks about the same topics (a distractor with the same words), chit-chat turns share
 * the common words, and dates are only in the metadata. `seed` picks names, topics and wording, so a
 * retriever tuned on one seed is checked on others.
 */
import { type Fact, factId } from "../lib/memory/facts.ts";
import { formatGoTime } from "../lib/memory/gotime.ts";

export interface Question {
  q: string;
  kind: "single" | "multi" | "temporal" | "open";
  evidence: string[];
}
export interface DevStore {
  facts: Fact[];
  questions: Question[];
  workspace: string;
  /** The clock for recall: a month after the last session. */
  nowMs: number;
}

/** mulberry32: a small deterministic PRNG. */
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

interface Hobby {
  /** Word forms: -ing, past, base (a question uses another form than the turn). */
  v: [string, string, string];
  noun: string;
  /** A related word some turns use and open-domain questions ask with. */
  rel: string;
  cat: string;
  open: string;
}

const HOBBIES: Hobby[] = [
  {
    v: ["painting", "painted", "paint"],
    noun: "canvas",
    rel: "watercolors",
    cat: "art",
    open: "a watercolors workshop",
  },
  {
    v: ["sculpting", "sculpted", "sculpt"],
    noun: "vase",
    rel: "clay",
    cat: "craft",
    open: "a clay studio open day",
  },
  {
    v: ["hiking", "hiked", "hike"],
    noun: "trail",
    rel: "mountains",
    cat: "outdoors",
    open: "a weekend in the mountains",
  },
  {
    v: ["running", "ran", "run"],
    noun: "marathon",
    rel: "sneakers",
    cat: "fitness",
    open: "a sneakers sale for runners",
  },
  {
    v: ["baking", "baked", "bake"],
    noun: "sourdough",
    rel: "oven",
    cat: "cooking",
    open: "a bread oven demo",
  },
  {
    v: ["drumming", "drummed", "drum"],
    noun: "rhythm",
    rel: "percussion",
    cat: "music",
    open: "a percussion concert",
  },
  {
    v: ["gardening", "gardened", "garden"],
    noun: "tomatoes",
    rel: "seeds",
    cat: "plants",
    open: "a seeds swap at the market",
  },
  {
    v: ["reading", "read", "read"],
    noun: "novel",
    rel: "library",
    cat: "literature",
    open: "a library book sale",
  },
  {
    v: ["swimming", "swam", "swim"],
    noun: "pool",
    rel: "goggles",
    cat: "sports",
    open: "an open water swim with goggles",
  },
  {
    v: ["photographing", "photographed", "photograph"],
    noun: "sunsets",
    rel: "lens",
    cat: "photos",
    open: "a lens rental deal",
  },
  {
    v: ["camping", "camped", "camp"],
    noun: "campfire",
    rel: "tent",
    cat: "outdoors",
    open: "a tent giveaway",
  },
  {
    v: ["knitting", "knitted", "knit"],
    noun: "scarf",
    rel: "wool",
    cat: "craft",
    open: "a wool fair",
  },
  {
    v: ["volunteering", "volunteered", "volunteer"],
    noun: "shelter",
    rel: "donations",
    cat: "service",
    open: "a donations drive",
  },
  {
    v: ["cycling", "cycled", "cycle"],
    noun: "helmet",
    rel: "route",
    cat: "fitness",
    open: "a scenic route ride",
  },
  {
    v: ["dancing", "danced", "dance"],
    noun: "salsa",
    rel: "rhythm",
    cat: "music",
    open: "a salsa night",
  },
  {
    v: ["fishing", "fished", "fish"],
    noun: "lake",
    rel: "boat",
    cat: "outdoors",
    open: "a boat rental",
  },
];
const NAMES = [
  "Caroline",
  "Melanie",
  "Jon",
  "Gina",
  "Priya",
  "Tomas",
  "Audrey",
  "Andrew",
  "Nate",
  "Joanna",
  "Evan",
  "Sam",
  "Maria",
  "Deborah",
  "Calvin",
  "Dave",
];
const PETS: Array<[string, string]> = [
  ["dog", "puppy"],
  ["cat", "kitten"],
  ["parrot", "bird"],
  ["rabbit", "bunny"],
  ["turtle", "shell"],
];
const PET_NAMES = ["Luna", "Max", "Oliver", "Bailey", "Pepper", "Milo", "Coco", "Ziggy"];
const KID_NAMES = ["Emma", "Leo", "Ava", "Noah", "Mia", "Eli", "Zoe", "Finn"];
const JOBS: Array<[string, string]> = [
  ["nurse", "hospital"],
  ["teacher", "school"],
  ["software engineer", "startup"],
  ["chef", "restaurant"],
  ["counselor", "clinic"],
  ["architect", "firm"],
  ["accountant", "office"],
  ["mechanic", "garage"],
];
const PLACES = [
  "Paris",
  "Tokyo",
  "Lisbon",
  "Banff",
  "Cancun",
  "Iceland",
  "Rome",
  "Seattle",
  "Nashville",
  "Kyoto",
];
// What happened (the turn's words), the question (other words, as people ask), a noun others use too.
const EVENTS: Array<[string, string, string]> = [
  ["went to a support group meeting", "When did {A} attend a support meeting?", "support group"],
  ["signed up for a pottery class", "When did {A} enroll in pottery?", "class"],
  ["gave a talk at a school assembly", "When did {A} speak to students?", "school"],
  [
    "adopted a second pet from the rescue",
    "When did {A} get another animal from the rescue?",
    "rescue",
  ],
  ["moved into a new apartment downtown", "When did {A} relocate downtown?", "apartment"],
  [
    "ran a charity race for cancer research",
    "When did {A} take part in the cancer fundraiser race?",
    "race",
  ],
  [
    "started a new job at a bigger company",
    "When did {A} begin working at the bigger company?",
    "job",
  ],
  ["attended my cousin's wedding", "When was {A}'s cousin's wedding?", "wedding"],
  ["had a minor car accident", "When was {A} in a car crash?", "car"],
  ["went to a jazz concert", "When did {A} see live jazz?", "concert"],
  ["joined a poetry club", "When did {A} become a member of the poetry club?", "club"],
  [
    "took the kids to the science museum",
    "When did {A}'s kids visit the science museum?",
    "museum",
  ],
];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const OPENERS = [
  "Haha,",
  "Wow,",
  "Honestly,",
  "Aw,",
  "Oh,",
  "Yeah,",
  "Hey!",
  "Ugh,",
  "Thanks,",
  "Same,",
];
const MIDDLES = [
  "that sounds amazing, I'm really happy for you.",
  "it means a lot that you shared that with me.",
  "life gets so busy sometimes, I totally get it.",
  "what made you decide to do that?",
  "keep going, I'm proud of you!",
  "tell me more about it next time we talk.",
  "it's been a crazy week here, but I'm doing okay.",
  "take care of yourself, you deserve a break.",
  "hearing about your week always makes me smile.",
  "I've been trying to stay positive lately.",
  "good to hear from you again, what's new?",
  "that must have been hard, I'm glad you're okay now.",
  "sounds like a lot of fun, wish I'd been there.",
  "I can't believe how fast this year is going.",
];
const DISHES = ["lasagna", "tacos", "curry", "ramen", "pancakes", "risotto", "chili", "dumplings"];
const SHOWS = [
  "a baking competition",
  "an old sitcom",
  "a nature documentary",
  "a crime drama",
  "a cartoon marathon",
  "a space movie",
];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
function shuffle<T>(r: () => number, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}
const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

type Slot = { session: number; text: string; speaker: string; id?: string };

/** One conversation: 600 turns over ~8 months and ~200 questions about it. */
export function generateStore(seed: number): DevStore {
  const r = rng(seed);
  const [A, B] = shuffle(r, [...NAMES]).slice(0, 2) as [string, string];
  const start = Date.UTC(2023, Math.floor(r() * 6), 1 + Math.floor(r() * 20), 15);
  const sessions = 28;
  const dates: number[] = [];
  for (let i = 0, t = start; i < sessions; i++, t += (6 + Math.floor(r() * 6)) * 86400_000)
    dates.push(t);
  const slots: Slot[] = [];
  const asked: Array<{ q: string; kind: Question["kind"]; slots: Slot[] }> = [];
  const say = (session: number, speaker: string, text: string): Slot => {
    const s = { session: Math.max(0, Math.min(sessions - 1, session)), speaker, text };
    slots.push(s);
    return s;
  };
  const ask = (kind: Question["kind"], q: string, ...ev: Slot[]) =>
    asked.push({ q, kind, slots: ev });
  const sess = () => Math.floor(r() * sessions);
  const hobbyPool = shuffle(r, [...HOBBIES]);
  for (const [who, me] of [A, B].entries()) {
    const other = me === A ? B : A;
    // Each speaker has 8 hobbies; 2 of them are shared with the other speaker (same words, other person).
    const hobbies = [...hobbyPool.slice(who * 6, who * 6 + 6), ...hobbyPool.slice(12, 14)];
    const intros: Slot[] = [];
    for (const h of hobbies) {
      const s1 = sess();
      const intro = say(
        s1,
        me,
        pick(r, [
          `I've been ${h.v[0]} a lot lately, my ${h.noun} is coming along.`,
          `${cap(h.v[0])} has become my weekend thing, the ${h.noun} took me hours.`,
          `Started ${h.v[0]} this month and I already love it, you should see the ${h.noun}.`,
        ]),
      );
      const later = say(
        s1 + 3,
        me,
        pick(r, [
          `Guess what, I ${h.v[1]} again this week and my ${h.cat} teacher says I'm improving.`,
          `I ${h.v[1]} with a group on Sunday, first time doing ${h.cat} with other people.`,
        ]),
      );
      const rel = say(
        s1 + 6,
        me,
        `I bought new ${h.rel} since ${h.v[0]} is my favorite hobby now.`,
      );
      const proud = say(
        s1 + 9,
        me,
        `Finishing that ${h.noun} made me so proud, ${h.cat} keeps me calm after work.`,
      );
      say(
        sess(),
        other,
        pick(r, [
          `I tried ${h.v[0]} once years ago, but my ${h.noun} was a mess.`,
          `My neighbor is into ${h.v[0]} too, she has ${h.rel} everywhere.`,
        ]),
      );
      const praise = say(
        s1 + 1,
        other,
        `Your ${h.noun} sounds beautiful! Are you going to keep at it?`,
      );
      intros.push(intro);
      ask("single", `What does ${me}'s ${h.cat} teacher think?`, later);
      ask("single", `What did ${other} say about ${me}'s ${h.noun}?`, praise);
      ask("single", `What ${h.cat} activity does ${me} enjoy?`, intro, later);
      ask("open", `Would ${me} be interested in ${h.open}?`, rel, intro);
      ask("single", `What did ${me} buy for ${h.v[2]}ing?`.replace(`${h.v[2]}ing`, h.v[0]), rel);
      const relax = `What helps ${me} relax after the job?`.replace(
        "the job",
        pick(r, ["the job", "a shift", "work"]),
      );
      ask("single", `${relax} (${h.cat})`, proud);
      ask("temporal", `When did ${me} start ${h.v[0]}?`, intro);
    }
    ask("multi", `What hobbies does ${me} have?`, ...intros);
    const [pet, petWord] = pick(r, PETS);
    const petName = pick(r, PET_NAMES);
    const s2 = sess();
    const petIntro = say(
      s2,
      me,
      `We finally got a ${pet}! Her name is ${petName} and she's so playful.`,
    );
    const petLater = say(
      s2 + 4,
      me,
      `${petName} chewed my shoes again, this ${petWord} has endless energy.`,
    );
    ask("single", `What is the name of ${me}'s ${pet}?`, petIntro);
    ask("multi", `What kind of pet does ${me} have and how does it behave?`, petIntro, petLater);
    const [job, workplace] = pick(r, JOBS);
    const s3 = sess();
    const jobTurn = say(
      s3,
      me,
      `Work at the ${workplace} has been intense, being a ${job} is tiring but rewarding.`,
    );
    const jobLater = say(s3 + 5, me, `My shift at the ${workplace} ran late again yesterday.`);
    ask("single", `What is ${me}'s profession?`, jobTurn);
    ask("multi", `Where does ${me} work and how are the shifts?`, jobTurn, jobLater);
    const [place, place2] = shuffle(r, [...PLACES]) as [string, string];
    const s4 = sess();
    const trip = say(
      s4,
      me,
      `Just got back from ${place}! The food and the views were unforgettable.`,
    );
    const plan = say(
      s4 - 2,
      me,
      `I'm planning a vacation, thinking about flying to ${place} next month.`,
    );
    const trip2 = say(
      sess(),
      me,
      `Visiting ${place2} with my family was the best trip, the kids loved the old streets.`,
    );
    ask("single", `Where did ${me} fly for vacation?`, trip, plan);
    ask("temporal", `When did ${me} go to ${place}?`, trip);
    ask("multi", `Which places has ${me} visited?`, trip, trip2);
    ask("single", `Who went with ${me} to ${place2}?`, trip2);
    const [k1, k2] = shuffle(r, [...KID_NAMES]) as [string, string];
    const s7 = sess();
    const kidA = say(
      s7,
      me,
      `${k1} started swimming lessons and ${k2} lost a tooth, busy week at home!`,
    );
    const kidB = say(s7 + 2, me, `${k2} drew a picture of our family for school, I almost cried.`);
    ask("multi", `What are the names of ${me}'s children?`, kidA, kidB);
    ask("single", `What did ${k2} draw for school?`, kidB);
    for (const [i, [did, when, noun]] of shuffle(r, [...EVENTS]).entries()) {
      say(
        sess(),
        other,
        pick(r, [
          `I haven't been to a ${noun} thing in ages, we should plan something.`,
          `My sister keeps talking about the ${noun} near her place.`,
        ]),
      );
      const s5 = sess();
      const ev = say(
        s5,
        me,
        pick(r, [
          `Yesterday I ${did}, it was a really emotional day for me.`,
          `So last weekend I ${did}. Still processing it honestly.`,
          `Big news: I ${did} on Friday!`,
        ]),
      );
      const follow = say(
        s5 + 1,
        other,
        `How are you feeling since you ${did}? I kept thinking about you.`,
      );
      ask("temporal", when.replace("{A}", me), ev);
      if (i % 3 === 0) {
        const d = new Date(dates[ev.session] as number);
        ask(
          "temporal",
          `What did ${me} do in ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}?`,
          ev,
        );
      }
      if (i % 3 === 1) ask("multi", `How did ${other} react after ${me} ${did}?`, ev, follow);
    }
  }
  // Everyday turns (content words no question asks about) and chit-chat, up to 600 turns.
  while (slots.length < 600) {
    const speaker = r() < 0.5 ? A : B;
    say(
      sess(),
      speaker,
      r() < 0.4
        ? `I cooked ${pick(r, DISHES)} for dinner and we watched ${pick(r, SHOWS)}.`
        : `${pick(r, OPENERS)} ${pick(r, MIDDLES)}`,
    );
  }
  slots.sort((a, b) => a.session - b.session);
  const facts: Fact[] = [];
  const seen = new Set<string>();
  for (const [i, s] of slots.entries()) {
    let content = `${s.speaker}: ${s.text}`;
    if (seen.has(content.toLowerCase())) content = `${s.speaker}: ${pick(r, OPENERS)} ${s.text}`;
    if (seen.has(content.toLowerCase())) content = `${content} :) ${i % 97}`;
    seen.add(content.toLowerCase());
    const at = formatGoTime((dates[s.session] as number) + i * 60_000);
    s.id = factId(content);
    facts.push({
      id: s.id,
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
  const questions = asked.map((a) => ({
    q: a.q,
    kind: a.kind,
    evidence: [...new Set(a.slots.map((s) => s.id as string))],
  }));
  return {
    facts,
    questions,
    workspace: "/home/user/chat",
    nowMs: (dates.at(-1) as number) + 30 * 86400_000,
  };
}

/** The development stores (tune on these) and held-out stores (report only). */
export function devSet(split: "dev" | "heldout" = "dev", count = 5): DevStore[] {
  const base = split === "dev" ? 1000 : 9000;
  return Array.from({ length: count }, (_, i) => generateStore(base + i * 17));
}
