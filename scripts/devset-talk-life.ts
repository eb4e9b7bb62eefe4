/**
 * The life threads of one speaker in the conversational dev set (scripts/devset-talk.ts): a pet, a
 * job and a promotion, a trip, the kids, life events — each told over sessions, with the questions
 * they answer. Generated data.
 */
import type { Category, Turn } from "./devset-talk.ts";
import { CITIES, EVENTS, JOBS, KIDS, PET_NAMES, PETS, RELATIVE } from "./devset-talk-vocab.ts";

/** What a thread generator needs from the conversation being generated. */
export interface Gen {
  r: () => number;
  pick: <T>(xs: readonly T[]) => T;
  shuffle: <T>(xs: T[]) => T[];
  /** A session number in [from, to], clamped. */
  sess: (from?: number, to?: number) => number;
  /** An exchange (turns that stay together) in a session. */
  say: (session: number, ...turns: Turn[]) => Turn[];
  turn: (speaker: string, text: string, photo?: string) => Turn;
  askAbout: (
    X: string,
    Y: string,
  ) => (category: Category, forms: string | string[], ...turns: Turn[]) => void;
  /** "7 May 2023": a session's date minus `back` days; "May 2023": its month. */
  dayOf: (session: number, back: number) => string;
  monthOf: (session: number) => string;
  sessionCount: number;
  anchors: Array<{ speaker: string; session: number; noun: string }>;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** X's pet (if any), job, trip, kids and four life events; Y is the other speaker. */
export function lifeThreads(g: Gen, X: string, Y: string, ownsPet: boolean): void {
  const { r, pick, shuffle, sess, say, turn, dayOf, monthOf, sessionCount, anchors } = g;
  const ask = g.askAbout(X, Y);
  if (ownsPet) {
    const p = pick(PETS);
    const name = pick(PET_NAMES);
    const breed = pick(p.breeds);
    const s1 = sess(0, sessionCount - 6);
    const [adopt, , kind] = say(
      s1,
      turn(
        X,
        `We finally adopted a ${p.kind} from the shelter! Her name is ${name}.`,
        r() < 0.5 ? `a tiny ${breed} ${p.also[0]} asleep on a blanket` : undefined,
      ),
      turn(Y, "No way!! What breed is she?"),
      turn(X, `She's a ${breed}, and so friendly with everyone.`),
    ) as Turn[];
    const [habit] = say(
      sess(s1 + 1, s1 + 5),
      turn(X, `${name} ${p.habit} again, this little ${p.also[0]} never stops.`),
    ) as Turn[];
    const vs = sess(s1 + 2, sessionCount - 1);
    const rel = pick(RELATIVE);
    const [vet] = say(
      vs,
      turn(X, `Took ${name} for her shots ${rel.words}, she was so brave.`),
    ) as Turn[];
    ask(
      "single-hop",
      [
        `What is the name of the ${p.kind} ${X} adopted?`,
        `What is the name of ${X}'s ${pick(p.also)}?`,
      ],
      adopt as Turn,
    );
    ask("single-hop", [`What breed is ${name}?`, `What breed is ${X}'s pet?`], kind as Turn);
    ask(
      "single-hop",
      [`What did ${name} do again?`, `What did ${name} break or ruin?`],
      habit as Turn,
    );
    ask(
      "temporal",
      [`When did ${X} take ${name} for her shots?`, `When did ${X} take ${name} to the vet?`],
      vet as Turn,
    );
    ask(
      "temporal",
      [`When did ${X} adopt ${name}?`, `When did ${X} get a ${pick(p.also)}?`],
      adopt as Turn,
    );
    ask("temporal", `What did ${X} do on ${dayOf(vs, rel.days)}?`, vet as Turn);
    ask(
      "multi-hop",
      `What kind of pet does ${X} have, and what is it like?`,
      adopt as Turn,
      kind as Turn,
      habit as Turn,
    );
  }
  const job = pick(JOBS);
  const js = sess(0, sessionCount - 5);
  const [work] = say(
    js,
    turn(
      X,
      `Work at the ${job.place} has been intense, being a ${job.job} is exhausting but rewarding.`,
    ),
  ) as Turn[];
  const ps = sess(js + 2, sessionCount - 1);
  const prel = pick(RELATIVE);
  const [promo, , boss] = say(
    ps,
    turn(X, `Got promoted ${prel.words}! I'm a senior ${job.job} now.`),
    turn(Y, "Congrats!! Did you celebrate?"),
    turn(X, "My team took me out for dinner, my manager even gave a little speech."),
  ) as Turn[];
  ask(
    "single-hop",
    [`What is ${X}'s job at the ${job.place}?`, `What does ${X} do for a living?`],
    work as Turn,
  );
  ask(
    "single-hop",
    [`Who gave a little speech at ${X}'s dinner?`, `Who gave a speech for ${X}?`],
    boss as Turn,
  );
  ask("temporal", [`When did ${X} get promoted?`, `When did ${X} get a promotion?`], promo as Turn);
  ask("temporal", `What happened to ${X} at work in ${monthOf(ps)}?`, promo as Turn);
  ask("open-domain", `Does ${X} ${job.asked}?`, work as Turn);
  ask(
    "multi-hop",
    `Where does ${X} work, and how did the team celebrate ${X}'s promotion?`,
    work as Turn,
    boss as Turn,
  );
  const c = pick(CITIES);
  const ts = sess(2, sessionCount - 1);
  const [plan] = say(
    sess(Math.max(0, ts - 4), ts - 1),
    turn(X, `I'm planning a trip, thinking about flying to ${c.city} next month.`),
  ) as Turn[];
  const [back, , food] = say(
    ts,
    turn(
      X,
      `Just got back from ${c.city}! We saw ${c.sight}.`,
      r() < 0.5 ? `a view of ${c.sight} under a blue sky` : undefined,
    ),
    turn(Y, "So jealous! What was the best part?"),
    turn(
      X,
      `Honestly the food, I had ${c.food} every single day.`,
      r() < 0.5 ? `a plate of ${c.food} at a small street stall` : undefined,
    ),
  ) as Turn[];
  ask(
    "single-hop",
    [`Where was ${X} planning a trip to?`, `Where did ${X} travel to?`],
    back as Turn,
    plan as Turn,
  );
  ask(
    "single-hop",
    [
      `What food did ${X} have every single day on the trip?`,
      `What did ${X} eat every day on vacation?`,
    ],
    food as Turn,
  );
  ask(
    "single-hop",
    [`What did ${X} see in ${c.city}?`, `Which sight did ${X} visit abroad?`],
    back as Turn,
  );
  ask(
    "temporal",
    [`When did ${X} get back from ${c.city}?`, `When did ${X} visit ${c.city}?`],
    back as Turn,
  );
  ask("multi-hop", `What did ${X} see and eat in ${c.city}?`, back as Turn, food as Turn);
  ask(
    "multi-hop",
    [
      `What did ${X} plan for next month, and how did it go?`,
      `Where did ${X} want to fly, and what was the best part?`,
    ],
    plan as Turn,
    food as Turn,
  );
  const [k1, k2] = shuffle([...KIDS]) as [string, string];
  const kidSession = sess();
  const krel = pick(RELATIVE);
  const [game] = say(
    kidSession,
    turn(
      X,
      `${k1} had her first soccer game ${krel.words}, she scored a goal!`,
      r() < 0.5 ? "a little girl in a red jersey kicking a ball on a grass field" : undefined,
    ),
  ) as Turn[];
  const [tooth] = say(
    sess(),
    turn(X, `${k2} lost a tooth and wrote a note to the tooth fairy, I can't handle the cuteness.`),
  ) as Turn[];
  ask(
    "single-hop",
    [`What game did ${k1} score a goal in?`, `What sport does ${X}'s daughter play?`],
    game as Turn,
  );
  ask(
    "single-hop",
    [`What did ${k2} write to the tooth fairy?`, `What did ${X}'s son leave for the tooth fairy?`],
    tooth as Turn,
  );
  ask(
    "temporal",
    [`When did ${k1} have her first soccer game?`, `When did ${k1} play her first match?`],
    game as Turn,
  );
  ask("multi-hop", `What are the names of ${X}'s children?`, game as Turn, tooth as Turn);
  ask(
    "multi-hop",
    [`What have ${X}'s kids been up to?`, `What milestones did ${X}'s children have?`],
    game as Turn,
    tooth as Turn,
  );
  for (const e of shuffle([...EVENTS]).slice(0, 4)) {
    const es = sess();
    const rel = pick(RELATIVE);
    anchors.push({ speaker: X, session: es, noun: e.noun });
    const [ev, , after] = say(
      es,
      turn(
        X,
        pick([
          `${cap(rel.words)} I ${e.said}, it was a really emotional day for me.`,
          `So ${rel.words} I ${e.said}. Still processing it honestly.`,
        ]),
        e.photo && r() < 0.6 ? e.photo : undefined,
      ),
      turn(Y, `How are you feeling since then? I kept thinking about you.`),
      turn(
        X,
        pick([
          "Much better, honestly it gave me a lot of hope.",
          "Still a bit shaken, but I'm okay.",
        ]),
      ),
    ) as Turn[];
    ask(
      "temporal",
      [
        `When did ${X} say ${X} ${e.said.replace(/\bmy\b/g, "their")}?`.replace(`say ${X} `, ""),
        `When did ${X} ${e.asked}?`,
      ],
      ev as Turn,
    );
    if (r() < 0.5) ask("temporal", `What did ${X} do on ${dayOf(es, rel.days)}?`, ev as Turn);
    ask(
      "single-hop",
      [
        `What did ${X} do ${rel.words} that was so emotional?`,
        `What emotional thing did ${X} go through?`,
      ],
      ev as Turn,
    );
    ask(
      "single-hop",
      [
        `How has ${X} been feeling since the ${e.asked.split(" ").slice(-1)[0]}?`,
        `How is ${X} doing after that day?`,
      ],
      after as Turn,
    );
  }
}
