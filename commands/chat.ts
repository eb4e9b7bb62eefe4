import { Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { validateSessionName } from "../lib/history/session-file.ts";
import { type ColorChoice, shouldColor } from "../lib/output/terminal.ts";
import {
  appendInputHistory,
  inputHistoryPath,
  loadInputHistory,
} from "../lib/repl/history-file.ts";
import { createLiveServices } from "../lib/repl/live-services.ts";
import { runRepl } from "../lib/repl/repl.ts";
import type { RunState } from "./_shared.ts";

export interface ChatOptions {
  session?: string;
  model?: string;
  color?: ColorChoice;
}

/** `chatcli chat [--session NAME] [-m MODEL]` — the interactive REPL (a TTY is required). */
export function chatCommand(ctx: Ctx, state: RunState) {
  return new Command("chat")
    .description("interactive chat: streaming answers, /compact, /rewind, /memory, /agent, /coder")
    .option("--session <name>", "continue (or start) a named session, saved as you go")
    .option("-m, --model <model>", "PROVIDER/MODEL to use")
    .addOption(
      new Option("--color <when>", "colour and markdown styling").choices([
        "auto",
        "always",
        "never",
      ] as const),
    )
    .action(async (opts) => {
      state.exitCode = await runChat(ctx, opts);
    });
}

/** Checks the terminal, builds the services and runs the REPL; returns the exit code. */
export async function runChat(ctx: Ctx, opts: ChatOptions): Promise<number> {
  if (ctx.stdin.kind !== "tty" || !ctx.stdout.isTTY) {
    throw new UsageError(
      "chat needs an interactive terminal (stdin and stdout must be TTYs); use `chatcli ask` in pipes and scripts",
    );
  }
  if (opts.session !== undefined) {
    try {
      validateSessionName(opts.session);
    } catch (error) {
      throw new UsageError(`--session: ${(error as Error).message}`);
    }
  }
  const settings = await loadSettings(ctx);
  const env = settings.env;
  const services = await createLiveServices(ctx, { model: opts.model, session: opts.session });
  const historyPath = inputHistoryPath(env);
  return runRepl(ctx, services, {
    color: shouldColor(ctx.stdout, env, opts.color ?? "auto"),
    history: await loadInputHistory(historyPath),
    saveHistory: (entries) => appendInputHistory(historyPath, entries, env, ctx.now()),
  });
}
