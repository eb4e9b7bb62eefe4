import { Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { resolveModel } from "../lib/llm/models.ts";
import { type ColorChoice, shouldColor } from "../lib/output/terminal.ts";
import {
  appendInputHistory,
  inputHistoryPath,
  loadInputHistory,
} from "../lib/repl/history-file.ts";
import { runRepl } from "../lib/repl/repl.ts";
import type { ReplServices } from "../lib/repl/services.ts";
import { INVALID_NAME, isValidSessionName } from "../lib/repl/session-files.ts";
import { createStandaloneServices } from "../lib/repl/standalone-services.ts";
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
  if (opts.session !== undefined && !isValidSessionName(opts.session)) {
    throw new UsageError(`--session: ${INVALID_NAME}`);
  }
  const settings = await loadSettings(ctx);
  const env = settings.env;
  const model = resolveModel(opts.model, env, settings.config.model);
  const services = await createReplServices(ctx, {
    model,
    ...(opts.session ? { session: opts.session } : {}),
  });
  const historyPath = inputHistoryPath(env);
  return runRepl(ctx, services, {
    color: shouldColor(ctx.stdout, env, opts.color ?? "auto"),
    history: await loadInputHistory(historyPath),
    saveHistory: (entries) => appendInputHistory(historyPath, entries, env, ctx.now()),
  });
}

/**
 * THE SEAM: where the REPL gets its behaviour. Today it is the standalone implementation; when
 * lib/history, lib/memory, lib/agent and lib/bootstrap land, build a ReplServices over them here
 * (see lib/repl/services.ts for what each method must do).
 */
function createReplServices(
  ctx: Ctx,
  options: Parameters<typeof createStandaloneServices>[1],
): Promise<ReplServices> {
  return createStandaloneServices(ctx, options);
}
