/**
 * Words that ask for help or the version, and commander's own errors in chatcli's one style
 * (`chatcli: …` / `hint: …`). Pure: argv in, argv or an error out.
 */
import type { CommanderError } from "@commander-js/extra-typings";
import { type ChatcliError, UsageError } from "../lib/core/errors.ts";
import { nearSubcommand, SUBCOMMANDS } from "./typos.ts";

/** Aliases commander knows that SUBCOMMANDS (canonical names only) does not list. */
const ALIASES: Readonly<Record<string, Record<string, string>>> = { memory: { lt: "longterm" } };

function quoted(words: readonly string[]): string {
  return `'${words.join(" ").replace(/'/g, "'\\''")}'`;
}

/**
 * `help`, `help COMMAND [SUB…]` and `COMMAND help [SUB…]` as the `--help` they ask for, `version` as
 * `--version`; undefined when argv asks for neither. A name that is not a command (or subcommand)
 * is exit 2, never the top help with exit 0.
 */
export function helpRoute(
  argv: readonly string[],
  commands: readonly string[],
): string[] | UsageError | undefined {
  const [first, ...rest] = argv;
  if (first === "version") {
    if (rest.length === 0 || (rest.length === 1 && rest[0] === "--json")) return ["--version"];
    return new UsageError('"version" takes no arguments (only --json)', {
      hint: `run: chatcli version   (to send it to the model as a prompt: chatcli ask ${quoted(argv)})`,
    });
  }
  let path: string[];
  if (first === "help") path = rest;
  else if (first !== undefined && SUBCOMMANDS[first] && rest[0] === "help")
    path = [first, ...rest.slice(1)];
  else return undefined;
  const words = path.filter((w) => !w.startsWith("-"));
  const [command, sub, ...more] = words;
  if (command === undefined) return ["--help"];
  if (!commands.includes(command)) {
    return new UsageError(`unknown command ${JSON.stringify(command)}`, {
      hint: `the commands are ${commands.join(", ")} (chatcli --help)`,
    });
  }
  if (sub === undefined) return [command, "--help"];
  const subs = SUBCOMMANDS[command];
  if (!subs) {
    return new UsageError(`chatcli ${command} has no subcommands`, {
      hint: `chatcli ${command} --help`,
    });
  }
  if (!subs.includes(sub) && !ALIASES[command]?.[sub]) {
    const near = nearSubcommand(command, sub);
    return new UsageError(
      `unknown ${command} subcommand ${JSON.stringify(sub)}${near ? `; did you mean: chatcli ${command} ${near}?` : ""}`,
      { hint: `${command} has: ${subs.join(", ")}` },
    );
  }
  return [command, sub, ...more, "--help"];
}

/** The command path an argv runs (`sessions rm`, `ask`), for "see chatcli … --help". */
export function commandPath(argv: readonly string[], commands: readonly string[]): string {
  const [first, second] = argv;
  if (first === undefined || !commands.includes(first)) return "";
  const subs = SUBCOMMANDS[first];
  return second !== undefined && (subs?.includes(second) || ALIASES[first]?.[second])
    ? `${first} ${second}`
    : first;
}

/** Output-format flags chat does not have (it is the REPL: no JSON). */
const FORMAT_FLAG = /'(--json|--jsonl|--output-format)'/;

/** A commander parse error as a UsageError in chatcli's style, with the hint that fixes it. */
export function fromCommander(error: CommanderError, path: string): ChatcliError {
  const [head = "", ...tail] = error.message.replace(/^error: /, "").split("\n");
  const help = `chatcli ${path ? `${path} ` : ""}--help`;
  if (path === "chat" && error.code === "commander.unknownOption" && FORMAT_FLAG.test(head)) {
    return new UsageError(`chat is interactive: it has no ${FORMAT_FLAG.exec(head)?.[1]} output`, {
      hint: 'for one answer as JSON: chatcli ask --json "…"; for a task: chatcli agent --json "…"',
    });
  }
  const suggestion = /\(Did you mean (.+)\?\)/.exec(tail.join(" "))?.[1];
  if (suggestion) {
    return new UsageError(head, { hint: `did you mean ${suggestion}? (${help} lists them)` });
  }
  return new UsageError(head.replace(/\.$/, ""), { hint: `${help} shows the usage` });
}
