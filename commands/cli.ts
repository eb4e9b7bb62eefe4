import { CommanderError } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { EXIT, formatError, toChatcliError } from "../lib/core/errors.ts";
import type { RunState } from "./_shared.ts";
import { isInteractive } from "./_shared.ts";
import { buildProgram, COMMAND_NAMES } from "./program.ts";

/** Bare `chatcli …` is `chat` on an interactive terminal with no arguments, else `ask …`. */
function routeBare(argv: readonly string[], ctx: Ctx): string[] {
  const first = argv[0];
  if (first === undefined) return isInteractive(ctx) ? ["chat"] : ["ask"];
  if (COMMAND_NAMES.includes(first)) return [...argv];
  if (["-h", "--help", "-V", "--version", "help"].includes(first)) return [...argv];
  return ["ask", ...argv];
}

/** Runs the CLI in-process and returns the exit code. Never calls process.exit. */
export async function runCli(argv: readonly string[], ctx: Ctx): Promise<number> {
  const state: RunState = { exitCode: EXIT.ok };
  const program = buildProgram(ctx, state);
  try {
    await program.parseAsync(routeBare(argv, ctx), { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      ) {
        return EXIT.ok;
      }
      return EXIT.usage;
    }
    const failure = toChatcliError(error);
    ctx.stderr.write(formatError(failure));
    return failure.exitCode;
  }
  return state.exitCode;
}
