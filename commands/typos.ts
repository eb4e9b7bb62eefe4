import { UsageError } from "../lib/core/errors.ts";

/**
 * A mistyped command must never become a paid request (CONTRACT §1): bare `chatcli WORDS…` is a
 * prompt for `ask`, except when the words look like a command typed wrong. The rule (README
 * "Bare prompts"), judged on the first word W and what follows it:
 *
 * 1. W is a command's exact name: that command runs, and a subcommand it does not have is an error
 *    (`sessions lst`, `bootstrap shw`, `memory leaks in node` → exit 2; `chatcli ask …` asks).
 * 2. W is read as a mistyped command C only when all of these hold:
 *    - W is written in lowercase letters only (a capital, digit or punctuation: a prompt);
 *    - W is one edit (a wrong, missing, extra or swapped letter) from C, or two when C has 6 letters
 *      or more; `ask` is never guessed (its typos are prompts for ask anyway);
 *    - W is not an ordinary word (ORDINARY: the dictionary and jargon words that close to a name),
 *      except a command's singular followed by one of its subcommands (`session list`);
 *    - what follows looks like C's arguments: nothing; a flag (`-…`); a subcommand of C, or one
 *      edit from one (`sesions list`, `memroy facts`); for `agent`/`coder`, whose argument is a
 *      task, any words (`agnet fix the tests`).
 * Everything else is a prompt: `chatcli what does this error mean`, `chatcli order these lines`,
 * `chatcli compare these files`, `chatcli lessons learned from the outage`.
 */

/** The root `--help` footer: the rule in brief (README "Bare prompts and mistyped commands"). */
export const BARE_PROMPT_HELP = `
Bare prompts: \`chatcli WORDS…\` is \`chatcli ask WORDS…\`, except that words that look like a
mistyped command exit 2 with "did you mean …" and send nothing: a command's exact name runs it (an
unknown subcommand is an error: \`sessions lst\`, \`memory leaks\`); a lowercase first word one edit
from a command name (two for 6+ letters) that is not an ordinary word, followed by nothing, a flag or a
subcommand of that command (\`sesions list\`, \`memroy facts\`; any words after \`agnet\`, \`codr\`).
\`chatcli what does this error mean\` is a prompt; \`chatcli ask …\` or \`chatcli -- …\` always is.
`;

/**
 * Subcommands of the commands that have them, with their aliases (`memory lt`): every name a user
 * may type (a unit test checks these against the real trees, aliases included).
 */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  memory: [
    "today",
    "yesterday",
    "week",
    "longterm",
    "lt",
    "list",
    "facts",
    "recall",
    "remember",
    "forget",
    "profile",
    "topics",
    "projects",
    "stats",
    "compact",
    "export",
    "import",
    "review",
    "path",
  ],
  sessions: ["list", "show", "rm"],
  bootstrap: ["show", "path"],
};

/** Names no prompt may start with although no command of this build implements them yet. */
export const RESERVED_COMMANDS: readonly string[] = [];

/** Flags of `ask` that take a value (bare `chatcli -m X sesions list` is judged from `sesions`). */
const VALUE_FLAGS = new Set([
  "-m",
  "--model",
  "-s",
  "--system",
  "--max-tokens",
  "--timeout",
  "--stdin-timeout",
  "--max-input-bytes",
  "-f",
  "--file",
  "--session",
  "--memory",
  "--color",
  "--fake-responses",
  "--max-retries",
  "--output-format",
]);

/** Where the words start after leading flags (and their values); argv.length when there are none. */
function wordsStart(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === "--") return i + 1;
    if (!arg.startsWith("-") || arg === "-") return i;
    i += VALUE_FLAGS.has(arg) ? 2 : 1;
  }
  return i;
}

/** Commands whose arguments are free words (a task): any words after a typo of their name count. */
const TASK_COMMANDS = new Set(["agent", "coder"]);

/**
 * Real words within the distance above of a command name (from a US English word list, plus
 * developer jargon). A prompt may start with any of them.
 */
const ORDINARY = new Set(
  [
    "agents gent",
    "cider code coded codes codex codec codecs codger colder comer cover cower coyer",
    "cat chad chant chap chapt char chart chats cheat chit coat hat shat that what",
    "armory emery femora lemony melody memo memoir memoirs memos merry memcpy memset",
    "combat compacted compacter compactly compactor compacts company compare compass comport",
    "compost contact impact compat",
    "behind brewing crewing hewing mewing rebind rebinds redid refine refined refund rein reined",
    "reins relied remand remind reminds rend rescind resend resin resins retina reward rewinds",
    "rewire rewired reword rewound rind rowing sewing unwind wind",
    "bootstraps",
    "cession cessions lesions lessons missions obsessions passions pensions seasons sections",
    "session tensions versions",
    "bodes bowels codes dowels hotels hovels lodes medals modal modals mode model modeled modem",
    "modems modern moderns modes modest mods module modules modulo modulus moguls molders moles",
    "molls mopeds mopes morals mores morsels moseys motel motels motes movers moves mowers nodes",
    "noels novels odes oodles remodels rodeos rowels towels vowels yodel yodels yokels",
  ]
    .join(" ")
    .split(" "),
);

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function typoDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const up = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** The candidate `word` is a near miss of (nearest first), under the limits above. */
function nearest(word: string, candidates: readonly string[], limitFor: (c: string) => number) {
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = typoDistance(word, name);
    if (d > 0 && d <= limitFor(name) && d < word.length && (!best || d < best.d))
      best = { name, d };
  }
  return best?.name;
}

const commandLimit = (name: string) => (name.length >= 6 ? 2 : 1);

/** A subcommand `word` is one edit from (two for names of 6+ letters, as commands). */
export function nearSubcommand(command: string, word: string): string | undefined {
  return nearest(word, SUBCOMMANDS[command] ?? [], commandLimit);
}

/** `chatcli ask [FLAGS] 'WORDS'`: how to send the words as a prompt after all. */
function askHint(flags: readonly string[], words: readonly string[]): string {
  const text = words.join(" ");
  return `chatcli ask ${[...flags, `'${text.replace(/'/g, "'\\''")}'`].join(" ")}`;
}

/**
 * The usage error for argv (after output-format flags were moved behind the command) when its words
 * look like a mistyped command or subcommand; undefined when they run as they are.
 */
export function mistypedCommand(
  argv: readonly string[],
  commands: readonly string[],
  flags: readonly string[] = [],
): UsageError | undefined {
  const start = wordsStart(argv);
  if (start > 0) {
    // `chatcli -m X sessions list`: a command after ask's flags would be asked as a prompt
    const word = argv[start];
    if (argv[start - 1] === "--" || word === undefined) return undefined;
    if ((commands.includes(word) && word !== "ask") || RESERVED_COMMANDS.includes(word)) {
      return new UsageError(`${JSON.stringify(word)} is a command: put it first`, {
        hint: `run: chatcli ${word} …   (to send it to the model as a prompt: ${askHint(argv.slice(0, start), argv.slice(start))})`,
      });
    }
    return mistypedCommand(argv.slice(start), commands, argv.slice(0, start));
  }
  const [first, second] = argv;
  if (first === undefined || first === "-") return undefined;
  if (commands.includes(first)) return unknownSubcommand(first, argv.slice(1));
  if (RESERVED_COMMANDS.includes(first)) {
    return new UsageError(`chatcli ${first} is not available in this build`, {
      hint: `to ask the model instead: ${askHint(flags, argv)}`,
    });
  }
  const guessable = [...commands, ...RESERVED_COMMANDS].filter((c) => c !== "ask");
  // `session list`, `session show x`: the singular of a command, then one of its subcommands
  const singular = guessable.find((c) => c.endsWith("s") && first === c.slice(0, -1));
  if (singular && second !== undefined && SUBCOMMANDS[singular]?.includes(second)) {
    return new UsageError(
      `unknown command ${JSON.stringify(first)}; did you mean: chatcli ${singular}?`,
      {
        hint: `run: chatcli ${[singular, ...argv.slice(1)].join(" ")}   (to send it to the model as a prompt: ${askHint(flags, argv)})`,
      },
    );
  }
  if (!/^[a-z]+$/.test(first) || ORDINARY.has(first)) return undefined;
  const command = nearest(first, guessable, commandLimit);
  if (!command) return undefined;
  const subs = SUBCOMMANDS[command] ?? [];
  const looksLikeArgs =
    second === undefined ||
    second.startsWith("-") ||
    TASK_COMMANDS.has(command) ||
    subs.includes(second) ||
    nearSubcommand(command, second) !== undefined;
  if (!looksLikeArgs) return undefined;
  const sub = second && !subs.includes(second) ? nearSubcommand(command, second) : undefined;
  const fixed = [command, sub ?? second, ...argv.slice(2)].filter((w) => w !== undefined);
  return new UsageError(
    `unknown command ${JSON.stringify(first)}; did you mean: chatcli ${command}?`,
    {
      hint: `run: chatcli ${fixed.join(" ")}   (to send it to the model as a prompt: ${askHint(flags, argv)})`,
    },
  );
}

/** `sessions lst`, `bootstrap shw`, `memory leaks in node`: a subcommand the command lacks. */
function unknownSubcommand(command: string, rest: readonly string[]): UsageError | undefined {
  const subs = SUBCOMMANDS[command];
  const word = rest[0];
  if (!subs || word === undefined || word.startsWith("-") || subs.includes(word)) return undefined;
  // memory's own form: a date (today, 2026-12-01, 20261201, 01/12/2026) shows that day's note
  if (command === "memory" && /\d/.test(word)) return undefined;
  const near = nearSubcommand(command, word);
  // bootstrap's default subcommand (show) takes a prompt: only a near miss of a subcommand is wrong
  if (command === "bootstrap" && !near) return undefined;
  return new UsageError(
    `unknown ${command} subcommand ${JSON.stringify(word)}${near ? `; did you mean: chatcli ${command} ${near}?` : ""}`,
    {
      hint: near
        ? `run: chatcli ${command} ${near} ${rest.slice(1).join(" ")}`.trimEnd()
        : `${command} has: ${subs.join(", ")}   (to send it to the model as a prompt: ${askHint([], [command, ...rest])})`,
    },
  );
}
