/** The REPL's slash commands: the table, parsing, tab completion and `/help`. */

export interface SlashCommand {
  name: string;
  args: string;
  help: string;
  /** First-word completions of the arguments. */
  subcommands?: readonly string[];
  aliases?: readonly string[];
}

export const MEMORY_SUBCOMMANDS = [
  "today",
  "yesterday",
  "week",
  "longterm",
  "list",
  "load",
  "profile",
  "remember",
  "forget",
  "facts",
  "topics",
  "projects",
  "stats",
  "timeline",
  "compact",
] as const;

export const SESSION_SUBCOMMANDS = ["save", "load", "list", "new", "rm"] as const;

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "help", args: "", help: "show this help", aliases: ["?"] },
  {
    name: "compact",
    args: "[instruction]",
    help: "shrink the conversation (Esc cancels)",
  },
  {
    name: "rewind",
    args: "",
    help: "restore an earlier checkpoint (or Esc Esc)",
  },
  {
    name: "memory",
    args: "<sub>",
    help: "memory: remember, facts, forget, today, profile, …",
    subcommands: MEMORY_SUBCOMMANDS,
  },
  { name: "agent", args: "TASK", help: "run the agent (tools, with approvals)" },
  { name: "coder", args: "TASK", help: "run the coder (file edits, with approvals)" },
  {
    name: "session",
    args: "save|load|list|new|rm",
    help: "saved conversations",
    subcommands: SESSION_SUBCOMMANDS,
  },
  { name: "cost", args: "", help: "tokens, cache reads and cost of this session" },
  {
    name: "context",
    args: "[attach PATH|detach NAME|list]",
    help: "what the next request carries; attach files to it",
    subcommands: ["attach", "detach", "list"],
  },
  { name: "model", args: "[PROVIDER/MODEL]", help: "show or switch the model" },
  { name: "clear", args: "", help: "clear the screen (keeps the conversation)" },
  { name: "exit", args: "", help: "save the session and leave (or Ctrl+D)", aliases: ["quit"] },
];

export interface SlashInput {
  /** Canonical command name, or the typed name when unknown. */
  name: string;
  args: string;
  known: boolean;
}

/** Parses `/name args…`; undefined when the line is not a slash command. */
export function parseSlash(line: string): SlashInput | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return undefined;
  const m = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed);
  if (!m) return undefined;
  const typed = m[1]!.toLowerCase();
  // ChatCLI's /newsession is /session new.
  if (typed === "newsession") return { name: "session", args: "new", known: true };
  const command = findSlash(typed);
  return { name: command?.name ?? typed, args: m[2]!.trim(), known: command !== undefined };
}

/**
 * Whether the word after `/` is a path rather than a command name: it holds a `/`, `.` or `:`
 * (`/var/log/app.log:12`, `/etc/hosts`, `/src/app.ts`). Command names are plain words.
 */
export function looksLikePath(name: string): boolean {
  return /[/.:~\\]/.test(name);
}

/** Looks a command up by name or alias. */
export function findSlash(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

export interface Completion {
  /** The new input text (unchanged when there is nothing to add). */
  text: string;
  /** Candidates to show when the completion is ambiguous. */
  candidates: string[];
  /** Each candidate as the whole input it would make (what repeated Tabs cycle through). */
  full?: string[];
}

/** Tab completion of a command name, then of its first argument word. */
export function completeSlash(text: string): Completion {
  const none = { text, candidates: [] };
  if (!text.startsWith("/") || text.includes("\n")) return none;
  const space = text.indexOf(" ");
  if (space < 0) {
    const prefix = text.slice(1).toLowerCase();
    const names = SLASH_COMMANDS.map((c) => c.name).filter((n) => n.startsWith(prefix));
    return complete(text, "/", prefix, names);
  }
  const command = findSlash(text.slice(1, space).toLowerCase());
  const rest = text.slice(space + 1);
  if (!command?.subcommands || /\s/.test(rest)) return none;
  const subs = command.subcommands.filter((s) => s.startsWith(rest));
  return complete(text, text.slice(0, space + 1), rest, subs);
}

function complete(text: string, lead: string, prefix: string, options: string[]): Completion {
  if (options.length === 0) return { text, candidates: [] };
  if (options.length === 1) return { text: `${lead}${options[0]} `, candidates: [] };
  const common = commonPrefix(options);
  if (common.length > prefix.length) return { text: lead + common, candidates: [] };
  return {
    text,
    candidates: options.map((o) => (lead === "/" ? `/${o}` : o)),
    full: options.map((o) => `${lead}${o} `),
  };
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? "";
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** The `/help` text. */
export function slashHelp(): string {
  const rows = SLASH_COMMANDS.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.help]);
  const width = Math.max(...rows.map(([a]) => a!.length));
  const lines = rows.map(([a, h]) => `  ${a!.padEnd(width)}  ${h}`);
  return [
    "Commands:",
    ...lines,
    "",
    "Keys: Enter send · Alt+Enter or a trailing \\ new line · ↑/↓ history · Tab complete",
    "      Esc or Ctrl+C cancel a request · Esc Esc rewind · Ctrl+C twice or Ctrl+D exit",
  ].join("\n");
}
