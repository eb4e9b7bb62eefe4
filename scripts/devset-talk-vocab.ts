/**
 * Vocabulary of the conversational dev set (scripts/devset-talk.ts): the threads two people talk
 * about over months, each with several ways of saying the same thing (the turns use some words, the
 * questions others), photo captions, and the words an open-domain question uses instead. Generated
 * data, written for this project: no public corpus was available as a package here.
 */

/** A hobby: how a speaker talks about it, what a photo of it shows, and how a question asks. */
export interface Hobby {
  /** Activity forms: -ing, past, noun of the activity. */
  ing: string;
  past: string;
  noun: string;
  /** Things of the hobby the turns mention (a question may name one). */
  things: string[];
  place: string;
  /** A photo caption of it. */
  photo: string;
  /** Words a question uses that no turn of this speaker uses (open-domain). */
  openWords: string;
  /** A question's paraphrase of the activity (single-hop asks with it). */
  asked: string;
}

export const HOBBIES: Hobby[] = [
  {
    ing: "doing pottery",
    past: "made pottery",
    noun: "pottery class",
    things: ["bowl", "mug", "vase"],
    place: "the studio",
    photo: "a set of handmade clay bowls drying on a wooden shelf",
    openWords: "a ceramics workshop",
    asked: "the clay class",
  },
  {
    ing: "painting",
    past: "painted",
    noun: "painting",
    things: ["canvas", "sunset", "portrait"],
    place: "the art store",
    photo: "an unfinished canvas with orange and purple brush strokes on an easel",
    openWords: "an art exhibition",
    asked: "the artwork",
  },
  {
    ing: "running",
    past: "ran",
    noun: "running club",
    things: ["5k", "half marathon", "sneakers"],
    place: "the park loop",
    photo: "a pair of worn running shoes next to a finisher medal",
    openWords: "a jogging group",
    asked: "the races",
  },
  {
    ing: "playing guitar",
    past: "played guitar",
    noun: "guitar lessons",
    things: ["chords", "song", "amp"],
    place: "the music shop",
    photo: "an acoustic guitar leaning against a couch with a songbook open",
    openWords: "music school",
    asked: "the instrument",
  },
  {
    ing: "gardening",
    past: "planted",
    noun: "garden",
    things: ["tomatoes", "seeds", "herbs"],
    place: "the backyard",
    photo: "raised beds full of tomato plants and basil in the morning sun",
    openWords: "a plant nursery",
    asked: "the vegetables",
  },
  {
    ing: "baking",
    past: "baked",
    noun: "baking",
    things: ["sourdough", "croissants", "cake"],
    place: "the kitchen",
    photo: "a golden sourdough loaf cooling on a rack beside a bag of flour",
    openWords: "a pastry course",
    asked: "the bread",
  },
  {
    ing: "hiking",
    past: "hiked",
    noun: "hiking",
    things: ["trail", "summit", "waterfall"],
    place: "the mountains",
    photo: "a narrow trail through pine trees leading up to a rocky summit",
    openWords: "a camping trip outdoors",
    asked: "the walks in nature",
  },
  {
    ing: "taking photos",
    past: "photographed",
    noun: "photography",
    things: ["camera", "lens", "prints"],
    place: "the old harbor",
    photo: "a black and white shot of fishing boats in the harbor at dawn",
    openWords: "a pictures exhibit",
    asked: "the camera hobby",
  },
  {
    ing: "writing poems",
    past: "wrote",
    noun: "poetry",
    things: ["journal", "poem", "notebook"],
    place: "the cafe",
    photo: "a leather notebook open to a handwritten poem next to a coffee",
    openWords: "becoming an author",
    asked: "the writing",
  },
  {
    ing: "volunteering",
    past: "volunteered",
    noun: "volunteer work",
    things: ["shelter", "food drive", "donations"],
    place: "the community center",
    photo: "volunteers in green shirts sorting cans of food into boxes",
    openWords: "a charity",
    asked: "the helping out",
  },
  {
    ing: "knitting",
    past: "knitted",
    noun: "knitting",
    things: ["scarf", "yarn", "sweater"],
    place: "the yarn store",
    photo: "a half-finished striped scarf with two needles and balls of yarn",
    openWords: "a sewing circle",
    asked: "the handmade clothes",
  },
  {
    ing: "rock climbing",
    past: "climbed",
    noun: "climbing",
    things: ["bouldering", "harness", "wall"],
    place: "the climbing gym",
    photo: "a climber halfway up a colorful indoor wall",
    openWords: "an adventure sport",
    asked: "the gym sport",
  },
];

/** Pets: the word the owner uses, the words others use, names, breeds, habits. */
export const PETS: Array<{ kind: string; also: string[]; breeds: string[]; habit: string }> = [
  {
    kind: "puppy",
    also: ["dog", "pup"],
    breeds: ["beagle", "corgi", "lab mix"],
    habit: "chewed up my sneakers",
  },
  {
    kind: "kitten",
    also: ["cat", "kitty"],
    breeds: ["tabby", "siamese", "maine coon"],
    habit: "knocked my mug off the table",
  },
  {
    kind: "parrot",
    also: ["bird", "parakeet"],
    breeds: ["cockatiel", "african grey", "budgie"],
    habit: "learned to whistle the doorbell",
  },
  {
    kind: "bunny",
    also: ["rabbit"],
    breeds: ["lop", "dutch", "lionhead"],
    habit: "dug a hole under the couch",
  },
];
export const PET_NAMES = [
  "Luna",
  "Max",
  "Oliver",
  "Bailey",
  "Pepper",
  "Milo",
  "Coco",
  "Ziggy",
  "Nala",
  "Biscuit",
];
export const NAMES = [
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
  "Jolene",
  "Tim",
  "Rosa",
  "James",
];
export const KIDS = ["Emma", "Leo", "Ava", "Noah", "Mia", "Eli", "Zoe", "Finn", "Ruby", "Owen"];
export const JOBS: Array<{ job: string; place: string; asked: string }> = [
  { job: "nurse", place: "hospital", asked: "work in healthcare" },
  { job: "teacher", place: "school", asked: "work in education" },
  { job: "software engineer", place: "startup", asked: "work in tech" },
  { job: "chef", place: "restaurant", asked: "cook for a living" },
  { job: "counselor", place: "clinic", asked: "do therapy work" },
  { job: "architect", place: "firm", asked: "design buildings" },
  { job: "accountant", place: "office", asked: "handle finances for work" },
  { job: "mechanic", place: "garage", asked: "repair cars for a living" },
];
export const CITIES: Array<{ city: string; sight: string; food: string }> = [
  { city: "Paris", sight: "the Eiffel Tower", food: "croissants" },
  { city: "Tokyo", sight: "a shrine in Asakusa", food: "ramen" },
  { city: "Lisbon", sight: "the old tram up the hill", food: "custard tarts" },
  { city: "Banff", sight: "Lake Louise", food: "elk burgers" },
  { city: "Rome", sight: "the Colosseum", food: "carbonara" },
  { city: "Seattle", sight: "the Space Needle", food: "salmon" },
  { city: "Nashville", sight: "a honky-tonk bar", food: "hot chicken" },
  { city: "Kyoto", sight: "the bamboo forest", food: "matcha desserts" },
];
/** Life events: how the speaker says it, how a question asks it (other words), a photo. */
/** `noun`: how a later question names the event ("the week after the jazz concert"). */
export const EVENTS: Array<{ said: string; asked: string; noun: string; photo?: string }> = [
  {
    said: "went to a support group meeting",
    noun: "the support group meeting",
    asked: "attend the support meeting",
  },
  {
    said: "gave a talk at my old high school",
    noun: "the talk at the high school",
    asked: "speak to students",
    photo: "a small stage with a microphone and rows of chairs",
  },
  {
    said: "moved into a new apartment downtown",
    noun: "the move downtown",
    asked: "relocate to the city center",
    photo: "an empty living room with boxes stacked by the window",
  },
  {
    said: "ran a charity race for cancer research",
    noun: "the charity race",
    asked: "take part in the fundraiser run",
  },
  { said: "started a new job at a bigger company", noun: "the new job", asked: "switch employers" },
  {
    said: "went to my cousin's wedding",
    noun: "the wedding",
    asked: "attend the family wedding",
    photo: "a bride and groom dancing under string lights",
  },
  {
    said: "had a minor car accident",
    noun: "the car accident",
    asked: "get into the fender bender",
  },
  {
    said: "went to a jazz concert",
    noun: "the jazz concert",
    asked: "see the live music show",
    photo: "a saxophone player on a dimly lit stage",
  },
  {
    said: "joined a book club",
    noun: "the first book club night",
    asked: "become a member of the reading group",
  },
  {
    said: "took the kids to the science museum",
    noun: "the museum trip",
    asked: "visit the museum with the children",
    photo: "kids staring up at a dinosaur skeleton",
  },
  { said: "got my driver's license", noun: "the driving test", asked: "pass the driving test" },
  {
    said: "threw a surprise party for my mom",
    noun: "the surprise party",
    asked: "celebrate the mother's birthday",
  },
];
export const RELATIVE = [
  { words: "yesterday", days: 1 },
  { words: "last weekend", days: 6 },
  { words: "last Friday", days: 4 },
  { words: "two days ago", days: 2 },
  { words: "last week", days: 7 },
];
export const CHITCHAT = [
  "Wow, that sounds amazing, I'm really happy for you!",
  "That means a lot, thanks for sharing it with me.",
  "Life gets so busy sometimes, I totally get it.",
  "What made you decide to do that?",
  "Keep going, I'm proud of you!",
  "Tell me more about it next time.",
  "It's been a crazy week here, but I'm doing okay.",
  "Take care of yourself, you deserve a break.",
  "Hearing about your week always makes me smile.",
  "I've been trying to stay positive lately.",
  "Good to hear from you again, what's new?",
  "That must have been hard, I'm glad you're okay.",
  "Sounds like so much fun, wish I'd been there.",
  "I can't believe how fast this year is going.",
  "Haha, that's so you!",
  "Aw, that's sweet. How did it go?",
];
/** Openers and closers around CHITCHAT: small talk varies, it rarely repeats word for word. */
export const OPENERS = [
  "",
  "",
  "Haha, ",
  "Oh wow, ",
  "Honestly, ",
  "Aw, ",
  "Yeah, ",
  "Hey! ",
  "Ugh, ",
  "Omg, ",
  "Same here, ",
  "Right? ",
];
export const CLOSERS = [
  "",
  "",
  "",
  " 😊",
  " Talk soon!",
  " Miss you!",
  " How's everything on your end?",
  " Anyway, enough about me.",
  " Hugs!",
];
export const PHOTO_FILLER = [
  "a cup of coffee on a windowsill on a rainy morning",
  "a sunset over a parking lot with pink clouds",
  "a plate of pancakes with berries",
  "a city street with yellow taxis at night",
  "a cozy reading corner with a lamp and a blanket",
];
