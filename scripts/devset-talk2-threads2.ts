/**
 * Threads of the second generated conversational set (scripts/devset-talk2.ts), part 2: going back
 * to school, a car, a foster animal, a book, a festival. Generated data.
 */
import type { Turn } from "./devset-talk.ts";
import { at, type Thread, WHEN } from "./devset-talk2-vocab.ts";

export const school: Thread = (w, X, Y, v) => {
  const P = at(
    [
      {
        program: "a nursing program",
        project: "sleep in night-shift workers",
        field: "healthcare",
      },
      { program: "a part-time MBA", project: "small coffee roasters", field: "business" },
      {
        program: "a web development bootcamp",
        project: "an app for swapping kids' clothes",
        field: "software",
      },
      {
        program: "a teaching certificate",
        project: "reading habits of fourth graders",
        field: "education",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 6);
  const [accepted, , juggle] = w.beat(
    s1,
    w.turn(X, `I got accepted into ${P.program}!! Classes start in the fall.`),
    w.turn(Y, "I knew you'd get in! How are you going to juggle that with your job?"),
    w.turn(X, "Going down to three days a week. My boss was surprisingly cool about it."),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, s1 + 6);
  const when = w.pick(WHEN);
  const [exam] = w.beat(
    s2,
    w.turn(X, `First exam was ${when.words}. I basically lived in the library all week before it.`),
  ) as Turn[];
  const [project] = w.beat(
    w.sess(s2, w.sessionCount - 1),
    w.turn(X, `I think my final project is going to be about ${P.project}.`),
    w.turn(Y, "Oh that's such a good topic."),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, "I keep dreaming I have an exam I forgot to study for, ten years after graduating."),
  );
  ask(
    "single-hop",
    [`What did ${X} get accepted into?`, `What is ${X} going back to school for?`],
    accepted as Turn,
  );
  ask(
    "single-hop",
    [`How will ${X} juggle classes with the job?`, `What arrangement did ${X} make with the boss?`],
    juggle as Turn,
  );
  ask(
    "single-hop",
    [`What is ${X}'s final project about?`, `What topic will ${X} research?`],
    project as Turn,
  );
  ask(
    "temporal",
    [`When did ${X} take the first exam?`, `When did ${X} sit the first test of the course?`],
    exam as Turn,
  );
  ask(
    "multi-hop",
    [
      `What is ${X} studying and what will the final project be on?`,
      `Which program is ${X} in, and what is ${X} researching there?`,
    ],
    accepted as Turn,
    project as Turn,
  );
  ask(
    "open-domain",
    `Is ${X} likely to look for a job in ${P.field}?`,
    accepted as Turn,
    project as Turn,
  );
  ask(
    "single-hop",
    [`What did ${X}'s boss think of the new schedule?`, `How did ${X}'s manager react?`],
    juggle as Turn,
  );
  ask(
    "single-hop",
    [`Where did ${X} study before the first exam?`, `Where did ${X} prepare for the test?`],
    exam as Turn,
  );
  return accepted as Turn;
};

export const car: Thread = (w, X, Y, v) => {
  const C = at(
    [
      { car: "a used blue Honda Civic", short: "Civic", broke: "the alternator" },
      { car: "an old red pickup truck", short: "truck", broke: "the radiator" },
      { car: "a little silver hatchback", short: "hatchback", broke: "the battery" },
      { car: "a ten-year-old minivan", short: "van", broke: "a belt in the engine" },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 5);
  const [bought] = w.beat(
    s1,
    w.turn(
      X,
      `Bought ${C.car} from a guy online, it runs great so far.`,
      w.r() < 0.8 ? `${C.car.replace(/^an? /, "a ")} parked on a driveway` : undefined,
    ),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, w.sessionCount - 1);
  const when = w.pick(WHEN);
  const [stuck, , fix] = w.beat(
    s2,
    w.turn(X, `The ${C.short} died on the highway ${when.words}, I waited two hours for a tow.`),
    w.turn(Y, "That's the worst. Did they figure out what was wrong?"),
    w.turn(X, `It was ${C.broke}, apparently. Three hundred bucks, ouch.`),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, "I've been biking to work since gas got so expensive, my legs are thanking me."),
  );
  ask(
    "single-hop",
    [`What did ${X} buy from a guy online?`, `What vehicle does ${X} drive now?`],
    bought as Turn,
  );
  ask(
    "single-hop",
    [`What was wrong with ${X}'s ${C.short}?`, `What part needed replacing on ${X}'s car?`],
    fix as Turn,
  );
  ask(
    "temporal",
    [
      `When did ${X}'s ${C.short} die on the highway?`,
      `When was ${X} stranded waiting for a tow truck?`,
    ],
    stuck as Turn,
  );
  ask(
    "multi-hop",
    [
      `What car does ${X} have, and what went wrong with it?`,
      `What happened to the vehicle ${X} bought?`,
    ],
    bought as Turn,
    fix as Turn,
  );
  ask("open-domain", `Does ${X} rely on public transit to get around?`, bought as Turn);
  ask(
    "single-hop",
    [`How long did ${X} wait for a tow?`, `How long was ${X} stuck by the road?`],
    stuck as Turn,
  );
  ask(
    "single-hop",
    [`How much did ${X}'s repair cost?`, `What did fixing the car set ${X} back?`],
    fix as Turn,
  );
  return bought as Turn;
};

export const foster: Thread = (w, X, Y, v) => {
  const A = at(
    [
      { animal: "greyhound", name: "Juniper", photo: "a skinny grey dog curled up on a couch" },
      { animal: "senior cat", name: "Mochi", photo: "an old orange cat squinting in a sunbeam" },
      {
        animal: "pair of guinea pigs",
        name: "Salt and Pepper",
        photo: "two guinea pigs eating lettuce in a pen",
      },
      {
        animal: "three-legged terrier",
        name: "Tripod",
        photo: "a small terrier with three legs on a leash",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 5);
  const [fost, , settle] = w.beat(
    s1,
    w.turn(
      X,
      `We're fostering a ${A.animal} for the rescue until a family takes them, meet ${A.name}!`,
      w.r() < 0.8 ? A.photo : undefined,
    ),
    w.turn(Y, "Stop, that face! How are they settling in?"),
    w.turn(X, "Hiding under the bed most of the day, but comes out for treats."),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, w.sessionCount - 1);
  const when = w.pick(WHEN);
  const [gone] = w.beat(
    s2,
    w.turn(X, `${A.name} got adopted ${when.words}. I'm happy, but the house feels so empty.`),
  ) as Turn[];
  w.beat(w.sess(), w.turn(Y, "Our building doesn't allow pets, which is honestly a crime."));
  ask(
    "single-hop",
    [
      `What animal is ${X} fostering for the rescue?`,
      `What creature is ${X} temporarily caring for?`,
    ],
    fost as Turn,
  );
  ask(
    "single-hop",
    [`How is ${A.name} settling in?`, `How did ${A.name} behave in the first days?`],
    settle as Turn,
  );
  ask(
    "temporal",
    [`When did ${A.name} get adopted?`, `When did ${A.name} find a permanent home?`],
    gone as Turn,
  );
  ask(
    "temporal",
    `What happened with ${X}'s foster animal on ${w.dateOf(s2, when)}?`,
    gone as Turn,
  );
  ask(
    "multi-hop",
    [
      `What happened with the animal ${X} fostered?`,
      `Who was ${A.name} and where did they end up?`,
    ],
    fost as Turn,
    gone as Turn,
  );
  ask(
    "open-domain",
    `Does ${X} like animals, judging by the rescue work?`,
    fost as Turn,
    gone as Turn,
  );
  ask(
    "single-hop",
    [`How does ${X}'s house feel now that ${A.name} is gone?`, `How did ${X} take the goodbye?`],
    gone as Turn,
  );
  return fost as Turn;
};

export const book: Thread = (w, X, Y, v) => {
  const B = at(
    [
      {
        book: "a huge fantasy series about a dragon rider",
        genre: "fantasy",
        author: "my favorite author",
      },
      { book: "a true-crime book about a bank heist", genre: "true crime", author: "a journalist" },
      { book: "a memoir by a retired astronaut", genre: "memoirs", author: "an astronaut" },
      {
        book: "a cozy mystery set in a Scottish village",
        genre: "mysteries",
        author: "a new author",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 4);
  const [reading] = w.beat(
    s1,
    w.turn(
      X,
      `I can't put down ${B.book}, I stayed up until 2am with it.`,
      w.r() < 0.8 ? "a paperback lying open on a nightstand" : undefined,
    ),
    w.turn(Y, "Ooh, send me the title!"),
  ) as Turn[];
  const [club] = w.beat(
    w.sess(s1 + 1, w.sessionCount - 1),
    w.turn(
      X,
      `I started a tiny reading group with two neighbors, we meet at the bakery on Sundays.`,
    ),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, `I haven't finished a whole book since college, I'm more of a podcast person.`),
  );
  ask(
    "single-hop",
    [`What book kept ${X} up until 2am?`, `What has ${X} been reading lately?`],
    reading as Turn,
  );
  ask(
    "single-hop",
    [
      `Where does ${X}'s reading group meet?`,
      `Where do ${X} and the neighbors get together on Sundays?`,
    ],
    club as Turn,
  );
  ask(
    "multi-hop",
    [
      `What is ${X} reading, and who does ${X} discuss books with?`,
      `How does ${X} share the love of books?`,
    ],
    reading as Turn,
    club as Turn,
  );
  ask("open-domain", `Would ${X} enjoy a gift card to a bookstore?`, reading as Turn, club as Turn);
  ask(
    "single-hop",
    [`When does ${X}'s reading group meet?`, `Which day do ${X}'s book friends get together?`],
    club as Turn,
  );
  return reading as Turn;
};

export const festival: Thread = (w, X, Y, v) => {
  const E = at(
    [
      {
        ev: "a three-day music festival in the desert",
        noun: "the festival",
        photo: "a crowd in front of a big stage at sunset",
      },
      {
        ev: "my college roommate's wedding in Vermont",
        noun: "the wedding",
        photo: "a barn decorated with white flowers",
      },
      {
        ev: "a stand-up comedy show downtown",
        noun: "the comedy show",
        photo: "a comedian on a small stage with a brick wall",
      },
      {
        ev: "a camping weekend at the lake with old friends",
        noun: "the camping weekend",
        photo: "two tents by a lake at dawn",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 3);
  const when = w.pick(WHEN);
  const [went, , best] = w.beat(
    s1,
    w.turn(
      X,
      `Went to ${E.ev} ${when.words}, still recovering.`,
      w.r() < 0.8 ? E.photo : undefined,
    ),
    w.turn(Y, "Jealous!! Best moment?"),
    w.turn(X, "Dancing in the rain at midnight with people I'd met that day."),
  ) as Turn[];
  const [after] = w.beat(
    w.sess(s1 + 1, s1 + 1),
    w.turn(X, "Slept for about fourteen hours straight and then deep cleaned the whole apartment."),
  ) as Turn[];
  ask(
    "single-hop",
    [`What was ${X}'s best moment at ${E.noun}?`, `What did ${X} enjoy most about that weekend?`],
    best as Turn,
  );
  ask(
    "temporal",
    [`When did ${X} go to ${E.noun}?`, `When did ${X} attend ${E.noun}?`],
    went as Turn,
  );
  ask(
    "temporal",
    [
      `What did ${X} do the week after ${E.noun}?`,
      `How did ${X} spend the days right after ${E.noun}?`,
    ],
    after as Turn,
  );
  ask(
    "multi-hop",
    [
      `What did ${X} do at ${E.noun} and afterwards?`,
      `How did ${X} spend that trip and the recovery?`,
    ],
    best as Turn,
    after as Turn,
  );
  ask(
    "single-hop",
    [`How did ${X} recover after ${E.noun}?`, `What did ${X} do to get over that weekend?`],
    after as Turn,
  );
  ask("single-hop", `What did ${X} do at midnight at ${E.noun}?`, best as Turn);
  return went as Turn;
};
