/**
 * Threads of the second generated conversational set (scripts/devset-talk2.ts), part 1: a language,
 * an instrument, a sport and an injury, a new house, a baby in the family — each told over sessions,
 * with the questions they answer, worded apart from scripts/devset-talk-vocab.ts. Generated data.
 */
import type { Turn } from "./devset-talk.ts";
import { at, type Thread, WHEN } from "./devset-talk2-vocab.ts";

export const language: Thread = (w, X, Y, v) => {
  const L = at(
    [
      { lang: "Spanish", city: "Oaxaca", country: "Mexico", who: "a taxi driver" },
      { lang: "Italian", city: "Florence", country: "Italy", who: "the lady at the bakery" },
      { lang: "Korean", city: "Seoul", country: "Korea", who: "my coworker's mom" },
      { lang: "German", city: "Munich", country: "Germany", who: "a guy at the train station" },
      { lang: "Portuguese", city: "Porto", country: "Portugal", who: "our neighbor downstairs" },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 6);
  const [enrol, , why] = w.beat(
    s1,
    w.turn(X, `I signed up for evening ${L.lang} classes at the community college, twice a week.`),
    w.turn(Y, `Ooh, what made you pick ${L.lang}?`),
    w.turn(X, "My grandmother grew up speaking it and I always felt bad that I never learned."),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, s1 + 6);
  const when = w.pick(WHEN);
  const [talk] = w.beat(
    s2,
    w.turn(
      X,
      `I had my first real conversation in ${L.lang} ${when.words}! Only with ${L.who}, but still.`,
    ),
    w.turn(Y, "That's such a milestone, seriously."),
  ) as Turn[];
  const [cram] = w.beat(
    w.sess(s1 + 2, w.sessionCount - 1),
    w.turn(
      X,
      `We booked flights to ${L.city} for the spring, so I'm cramming vocabulary every night.`,
    ),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, `My cousin tried to learn ${L.lang} on an app and gave up after a week, haha.`),
  );
  ask(
    "single-hop",
    [`What language is ${X} taking classes in?`, `Which foreign tongue is ${X} picking up?`],
    enrol as Turn,
  );
  ask(
    "single-hop",
    [`Why did ${X} pick ${L.lang}?`, `What family reason is behind ${X}'s new course?`],
    why as Turn,
  );
  ask(
    "single-hop",
    [
      `Who did ${X} have a first conversation in ${L.lang} with?`,
      `Who was ${X}'s first chat partner in the new language?`,
    ],
    talk as Turn,
  );
  ask(
    "temporal",
    [
      `When did ${X} have a first real conversation in ${L.lang}?`,
      `When did ${X} first manage to chat with a native speaker?`,
    ],
    talk as Turn,
  );
  ask("temporal", `What did ${X} do on ${w.dateOf(s2, when)}?`, talk as Turn);
  ask(
    "multi-hop",
    [
      `How is ${X} preparing for the ${L.city} trip, and why that language?`,
      `What is ${X} studying before the spring flights, and why?`,
    ],
    cram as Turn,
    why as Turn,
  );
  ask(
    "open-domain",
    `Would ${X} enjoy a film festival from ${L.country}?`,
    enrol as Turn,
    cram as Turn,
  );
  ask(
    "single-hop",
    [`Where did ${X} book flights to?`, `Where is ${X} travelling in the spring?`],
    cram as Turn,
  );
  return enrol as Turn;
};

export const instrument: Thread = (w, X, Y, v) => {
  const I = at(
    [
      {
        inst: "piano",
        piece: "Clair de Lune",
        photo: "an old upright piano squeezed between two bookshelves",
      },
      {
        inst: "cello",
        piece: "the Bach prelude everyone knows",
        photo: "a cello case propped in the corner of a bedroom",
      },
      {
        inst: "ukulele",
        piece: "Over the Rainbow",
        photo: "a small wooden ukulele on a bed next to a tuner",
      },
      {
        inst: "drum kit",
        piece: "a Foo Fighters song",
        photo: "a drum kit set up in a cramped garage",
      },
      {
        inst: "violin",
        piece: "a little Vivaldi piece",
        photo: "a violin and bow lying on a music stand",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 7);
  const [bought] = w.beat(
    s1,
    w.turn(
      X,
      `I bought a secondhand ${I.inst} off a neighbor, it barely fit through the door.`,
      w.r() < 0.8 ? I.photo : undefined,
    ),
    w.turn(Y, "Haha, where did you even put it?"),
  ) as Turn[];
  const s2 = w.sess(s1 + 2, s1 + 6);
  const [ready, , piece] = w.beat(
    s2,
    w.turn(X, "My teacher thinks I'm ready for the spring recital, which is terrifying."),
    w.turn(Y, "That's huge! What are you going to play?"),
    w.turn(X, `${I.piece}, if my hands stop shaking by then.`),
  ) as Turn[];
  const s3 = w.sess(s2 + 1, w.sessionCount - 1);
  const when = w.pick(WHEN);
  const [recital] = w.beat(
    s3,
    w.turn(
      X,
      `The recital was ${when.words}. I messed up one bar in the middle and I don't think anyone noticed.`,
    ),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(
      Y,
      `My brother played the ${I.inst} in high school, our parents made him practice in the basement.`,
    ),
  );
  ask(
    "single-hop",
    [
      `What did ${X} buy secondhand off a neighbor?`,
      `What did ${X} get from the person next door?`,
    ],
    bought as Turn,
  );
  ask(
    "single-hop",
    [`What piece is ${X} going to play at the recital?`, `What song will ${X} perform?`],
    piece as Turn,
  );
  ask(
    "single-hop",
    [`Who thinks ${X} is ready for the spring recital?`, `Who encouraged ${X} to get up on stage?`],
    ready as Turn,
  );
  ask(
    "temporal",
    [`When was ${X}'s recital?`, `When did ${X} perform in front of an audience?`],
    recital as Turn,
  );
  ask(
    "multi-hop",
    [
      `What is ${X} learning to play, and how did the recital go?`,
      `Which instrument does ${X} practice, and how was the performance?`,
    ],
    bought as Turn,
    recital as Turn,
  );
  ask(
    "open-domain",
    `Would ${X} be able to read sheet music for the recital?`,
    bought as Turn,
    ready as Turn,
  );
  ask(
    "single-hop",
    [`What went wrong at ${X}'s recital?`, `What mistake did ${X} make on stage?`],
    recital as Turn,
  );
  return bought as Turn;
};

export const sport: Thread = (w, X, Y, v) => {
  const S = at(
    [
      {
        sport: "pickup basketball",
        tv: "a basketball game",
        short: "basketball",
        hurt: "sprained my ankle",
        place: "court",
      },
      {
        sport: "doubles tennis",
        tv: "a tennis match",
        short: "tennis",
        hurt: "pulled something in my shoulder",
        place: "court",
      },
      {
        sport: "lap swimming",
        tv: "a swim meet",
        short: "the pool",
        hurt: "tweaked my lower back",
        place: "pool",
      },
      {
        sport: "indoor volleyball",
        tv: "a volleyball match",
        short: "volleyball",
        hurt: "jammed two fingers",
        place: "court",
      },
      {
        sport: "ultimate frisbee",
        tv: "a frisbee final",
        short: "frisbee",
        hurt: "twisted my knee",
        place: "field",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 7);
  const [joined] = w.beat(
    s1,
    w.turn(X, `I joined a Thursday night ${S.sport} group, it's mostly people from my office.`),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, s1 + 5);
  const when = w.pick(WHEN);
  const [hurt, , pt] = w.beat(
    s2,
    w.turn(X, `So I ${S.hurt} ${when.words}, no ${S.short} for a while.`),
    w.turn(Y, "Oh no! Are you seeing someone for it?"),
    w.turn(X, "Yeah, a physical therapist, she gave me a whole list of boring exercises."),
  ) as Turn[];
  const [back] = w.beat(
    w.sess(s2 + 1, w.sessionCount - 1),
    w.turn(X, `Back on the ${S.place} finally! It felt so good to move again.`),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, `I watched ${S.tv} on TV last night and fell asleep halfway through.`),
  );
  ask(
    "single-hop",
    [
      `What group did ${X} join with people from the office?`,
      `How does ${X} stay in shape with coworkers?`,
    ],
    joined as Turn,
  );
  ask("single-hop", [`How did ${X} get hurt?`, `What injury did ${X} suffer?`], hurt as Turn);
  ask(
    "single-hop",
    [`Who gave ${X} exercises for the injury?`, `Who is helping ${X} recover?`],
    pt as Turn,
  );
  ask("temporal", [`When did ${X} get hurt?`, `When did the injury happen to ${X}?`], hurt as Turn);
  ask(
    "multi-hop",
    [
      `What sport does ${X} play, and what kept ${X} away from it?`,
      `Why did ${X} take a break from the weekly games?`,
    ],
    joined as Turn,
    hurt as Turn,
  );
  ask("open-domain", `Is ${X} an active person?`, joined as Turn, back as Turn);
  ask(
    "single-hop",
    [`What night does ${X} play ${S.short}?`, `Which evening is ${X}'s weekly game?`],
    joined as Turn,
  );
  ask(
    "single-hop",
    [
      `How did it feel for ${X} to be back on the ${S.place}?`,
      `How did ${X} feel after returning to the game?`,
    ],
    back as Turn,
  );
  return joined as Turn;
};

export const house: Thread = (w, X, Y, v) => {
  const H = at(
    [
      {
        street: "Maple Street",
        diy: "repainting the kitchen a sage green",
        photo: "a half-painted kitchen wall with green paint rollers",
      },
      {
        street: "Cedar Lane",
        diy: "building shelves in the garage",
        photo: "rough wooden shelves drilled into a garage wall",
      },
      {
        street: "Harbor Road",
        diy: "ripping out the old carpet upstairs",
        photo: "rolled-up carpet on bare floorboards",
      },
      {
        street: "Linden Avenue",
        diy: "planting a lemon tree in the yard",
        photo: "a small lemon tree in freshly turned soil",
      },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 6);
  const [keys] = w.beat(
    s1,
    w.turn(
      X,
      `We got the keys to the house on ${H.street}!! No more tiny apartment.`,
      w.r() < 0.8 ? "a set of keys on a ring shaped like a little house" : undefined,
    ),
    w.turn(Y, "AHH congratulations!! So happy for you two."),
  ) as Turn[];
  const s2 = w.sess(s1 + 1, s1 + 4);
  const [diy] = w.beat(
    s2,
    w.turn(
      X,
      `Spent the entire weekend ${H.diy}. My arms hurt.`,
      w.r() < 0.8 ? H.photo : undefined,
    ),
  ) as Turn[];
  const s3 = w.sess(s1 + 1, w.sessionCount - 1);
  const [party, , bring] = w.beat(
    s3,
    w.turn(X, "We're throwing a housewarming next Saturday, you have to come."),
    w.turn(Y, "Wouldn't miss it! Should I bring anything?"),
    w.turn(X, "Just yourself. Maybe chips. Definitely chips."),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, "Our landlord still hasn't fixed the leaky sink, I'm so done with renting."),
  );
  ask(
    "single-hop",
    [`What street is ${X}'s new house on?`, `Where is ${X}'s new home?`],
    keys as Turn,
  );
  ask(
    "single-hop",
    [
      `What did ${X} spend the entire weekend doing?`,
      `What home improvement project did ${X} tackle?`,
    ],
    diy as Turn,
  );
  ask(
    "single-hop",
    [
      `What should people bring to ${X}'s housewarming?`,
      `What snack did ${X} request for the party?`,
    ],
    bring as Turn,
  );
  ask(
    "temporal",
    [`When did ${X} get the keys to the house?`, `When did ${X} become a homeowner?`],
    keys as Turn,
  );
  ask(
    "temporal",
    [`When was ${X}'s housewarming planned?`, `When did ${X} invite friends to see the new place?`],
    party as Turn,
  );
  ask(
    "multi-hop",
    [`What has ${X} done since getting the house?`, `How has ${X} settled into the new place?`],
    diy as Turn,
    party as Turn,
  );
  ask("open-domain", `Does ${X} pay rent to a landlord?`, keys as Turn);
  ask(
    "single-hop",
    [`Why do ${X}'s arms hurt?`, `Why is ${X} sore after the weekend?`],
    diy as Turn,
  );
  return keys as Turn;
};

export const family: Thread = (w, X, Y, v) => {
  const F = at(
    [
      { who: "sister", baby: "Isla" },
      { who: "brother", baby: "Theo" },
      { who: "sister-in-law", baby: "Maya" },
      { who: "cousin", baby: "Jonah" },
    ],
    v,
  );
  const ask = w.ask(X, Y);
  const s1 = w.sess(0, w.sessionCount - 5);
  const when = w.pick(WHEN);
  const [born, , doing] = w.beat(
    s1,
    w.turn(
      X,
      `My ${F.who} had the baby ${when.words}! Her name is ${F.baby}.`,
      w.r() < 0.8 ? "a newborn wrapped in a striped hospital blanket" : undefined,
    ),
    w.turn(Y, "Oh my gosh, congratulations! How is everyone doing?"),
    w.turn(X, "Exhausted but over the moon. I get about forty pictures a day now."),
  ) as Turn[];
  const [visit] = w.beat(
    w.sess(s1 + 1, w.sessionCount - 1),
    w.turn(
      X,
      `Drove four hours to finally hold ${F.baby}, she grabbed my finger and I just lost it.`,
    ),
  ) as Turn[];
  w.beat(
    w.sess(),
    w.turn(Y, "My mom keeps asking when I'm having kids, I keep changing the subject."),
  );
  ask(
    "single-hop",
    [`What is the name of ${X}'s ${F.who}'s baby?`, `What did ${X}'s ${F.who} call the newborn?`],
    born as Turn,
  );
  ask(
    "single-hop",
    [`How is ${X}'s ${F.who} doing after the birth?`, `How are the new parents holding up?`],
    doing as Turn,
  );
  ask(
    "temporal",
    [`When did ${X}'s ${F.who} have the baby?`, `When was ${F.baby} born?`],
    born as Turn,
  );
  ask("temporal", `What happened in ${X}'s family on ${w.dateOf(s1, when)}?`, born as Turn);
  ask(
    "multi-hop",
    [
      `What news did ${X} get about the family, and did ${X} go see them?`,
      `Did ${X} meet ${F.baby}, and whose child is she?`,
    ],
    born as Turn,
    visit as Turn,
  );
  ask("open-domain", `Is ${X} an aunt or uncle now that the baby came?`, born as Turn);
  ask(
    "single-hop",
    [
      `How many pictures a day does ${X} get of the baby?`,
      `How often does ${X} get photos of ${F.baby}?`,
    ],
    doing as Turn,
  );
  ask(
    "single-hop",
    [`How far did ${X} drive to hold ${F.baby}?`, `What did ${F.baby} do when ${X} first met her?`],
    visit as Turn,
  );
  return born as Turn;
};
