import { CommanderError } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { ChatcliError, EXIT, formatError, toChatcliError } from "../lib/core/errors.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { newEnvelope } from "../lib/output/fold.ts";
import { Reporter } from "../lib/output/reporter.ts";
import { quotedLine, stripControl } from "../lib/output/terminal.ts";
import type { RunState } from "./_shared.ts";
import { isInteractive } from "./_shared.ts";
import { commandPath, fromCommander, helpRoute } from "./help-route.ts";
import { separateNetworkFlag } from "./network-flag.ts";
import { buildProgram, COMMAND_NAMES } from "./program.ts";
import { mistypedCommand } from "./typos.ts";

/** Commands whose --jsonl is an event stream (the others print one document). */
const STREAMING = new Set(["ask", "agent", "coder", "compact", "rewind"]);
/** Commands that print no envelope, whatever the flags (the REPL speaks no JSON). */
const NO_ENVELOPE = new Set(["chat"]);

/** Bare `chatcli …` is `chat` on an interactive terminal with no arguments, else `ask …`. */
function routeBare(argv: readonly string[], ctx: Ctx): string[] {
  // `chatcli --json memory facts`: output-format flags before a command name belong to that command.
  const lead = formatFlagsAt(argv);
  const command = argv[lead];
  if (lead > 0 && command !== undefined && COMMAND_NAMES.includes(command)) {
    return [command, ...argv.slice(lead + 1), ...argv.slice(0, lead)];
  }
  const first = argv[0];
  if (first === undefined) return isInteractive(ctx) ? ["chat"] : ["ask"];
  if (COMMAND_NAMES.includes(first)) return [...argv];
  if (["-h", "--help", "-V", "--version", "help"].includes(first)) return [...argv];
  return ["ask", ...argv];
}

/** How many leading tokens are output-format flags (`--json`, `--jsonl`, `--output-format[=]X`). */
function formatFlagsAt(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === "--json" || arg === "--jsonl" || arg.startsWith("--output-format=")) i += 1;
    else if (arg === "--output-format" && i + 1 < argv.length) i += 2;
    else break;
  }
  return i;
}

/** Runs the CLI in-process and returns the exit code. Never exits the process. */
export async function runCli(args: readonly string[], ctx: Ctx): Promise<number> {
  let argv = args;
  const state: RunState = { exitCode: EXIT.ok };
  // `help …`, `sessions help list`, `version`: what they ask for, or a usage error (never a prompt)
  const help = helpRoute(argv, COMMAND_NAMES);
  if (help instanceof ChatcliError) {
    ctx.stderr.write(stripControl(formatError(help)));
    return help.exitCode;
  }
  if (help) argv = help;
  // `--allow-network "fix the tests"`: the prompt stays a prompt (commands/network-flag.ts)
  const routed = separateNetworkFlag(routeBare(argv, ctx));
  // A typo must not become a paid request: judged before anything loads (commands/typos.ts).
  const typo = mistypedCommand(argv.slice(formatFlagsAt(argv)), COMMAND_NAMES);
  if (typo) {
    ctx.stderr.write(stripControl(formatError(typo)));
    printErrorEnvelope(routed, ctx, typo);
    return typo.exitCode;
  }
  try {
    const program = await buildProgram(ctx, state, routed);
    await program.parseAsync(routed, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      ) {
        return EXIT.ok;
      }
      // commander's own errors, in chatcli's one style (its printing is switched off: _shared.ts)
      const usage = fromCommander(error, commandPath(routed, COMMAND_NAMES));
      ctx.stderr.write(stripControl(formatError(usage)));
      printErrorEnvelope(routed, ctx, usage);
      return EXIT.usage;
    }
    return reportFailure(routed, ctx, error);
  }
  return state.exitCode;
}

/** A command's failure: one line on stderr, the envelope when JSON was asked for; the exit code. */
export function reportFailure(argv: readonly string[], ctx: Ctx, error: unknown): number {
  const failure = toChatcliError(error);
  ctx.stderr.write(quotedLine(formatError(failure), configuredSecrets(ctx.env)));
  printErrorEnvelope(argv, ctx, failure);
  return failure.exitCode;
}

/** The output format asked for on the command line, judged from raw argv (parsing may have failed). */
function requestedFormat(argv: readonly string[]): "json" | "stream-json" | undefined {
  for (const [i, arg] of argv.entries()) {
    if (arg === "--json" || arg === "--output-format=json") return "json";
    if (arg === "--jsonl" || arg === "--output-format=stream-json") return "stream-json";
    if (arg === "--output-format") {
      const next = argv[i + 1];
      if (next === "json" || next === "stream-json") return next;
    }
  }
  return undefined;
}

/**
 * With --json, even a failure before the command ran prints one envelope on stdout; with
 * stream-json, `session.started`, the `error` event and the result (CONTRACT §2).
 */
function printErrorEnvelope(argv: readonly string[], ctx: Ctx, error: ChatcliError): void {
  const requested = requestedFormat(argv);
  if (!requested) return;
  const first = argv[0] && COMMAND_NAMES.includes(argv[0]) ? argv[0] : "ask";
  if (NO_ENVELOPE.has(first)) return;
  // document commands (memory, sessions, bootstrap) print one document with --jsonl too
  const format = STREAMING.has(first) ? requested : "json";
  const reporter = new Reporter(ctx, {
    format,
    envelope: newEnvelope(first, ctx.version),
    secrets: configuredSecrets(ctx.env),
  });
  reporter.fail(error, undefined, { quiet: true });
  reporter.finish();
}
