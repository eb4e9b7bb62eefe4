import { Command, CommanderError, Option } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx, Sink } from "../lib/core/ctx.ts";
import { formatError, toChatcliError, UsageError } from "../lib/core/errors.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { validateSessionName } from "../lib/history/session-file.ts";
import { resolveEffort } from "../lib/llm/effort.ts";
import { type ColorChoice, shouldColor } from "../lib/output/terminal.ts";
import {
  appendInputHistory,
  goInputHistoryPath,
  inputHistoryPath,
  loadInputHistory,
} from "../lib/repl/history-file.ts";
import { createReplMemory } from "../lib/repl/live-memory.ts";
import { UsageMeter } from "../lib/repl/live-meter.ts";
import { createLiveServices } from "../lib/repl/live-services.ts";
import { runRepl } from "../lib/repl/repl.ts";
import { configureTree, EFFORT_CHOICES, EFFORT_HELP, type RunState } from "./_shared.ts";

export interface ChatOptions {
  session?: string;
  model?: string;
  color?: ColorChoice;
  effort?: string;
  fakeResponses?: string;
}

/** `chatcli chat [--session NAME] [-m MODEL]` — the interactive REPL (a TTY is required). */
export function chatCommand(ctx: Ctx, state: RunState) {
  return new Command("chat")
    .description("interactive chat: streaming answers, /compact, /rewind, /memory, /agent, /coder")
    .option("--session <name>", "continue (or start) a named session, saved as you go")
    .option("-m, --model <model>", "PROVIDER/MODEL to use")
    .addOption(new Option("--effort <level>", EFFORT_HELP).choices(EFFORT_CHOICES))
    .option("--fake-responses <file>", "scripted replies (JSONL) for -m mock:script")
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
  const meter = new UsageMeter();
  const memory =
    env["CHATCLI_MEMORY_ENABLED"] === "false"
      ? undefined
      : createReplMemory({
          ctx,
          env,
          workspace: detectWorkspaceRoot(ctx.cwd),
          model: opts.model,
          configModel: settings.config.model,
          command: (args) => runMemoryLine(ctx, args),
          meter,
        });
  const services = await createLiveServices(ctx, {
    model: opts.model,
    session: opts.session,
    memory,
    meter,
    effort: resolveEffort(opts.effort, env),
    fakeResponses: opts.fakeResponses,
  });
  const historyPath = inputHistoryPath(env);
  return runRepl(ctx, services, {
    color: shouldColor(ctx.stdout, env, opts.color ?? "auto"),
    history: await loadInputHistory(historyPath, goInputHistoryPath(env, ctx.cwd)),
    saveHistory: (entries) => appendInputHistory(historyPath, entries, env, ctx.now()),
  });
}

/** `/memory <args>` in the REPL: the real `chatcli memory` command, run in-process, output captured. */
async function runMemoryLine(ctx: Ctx, args: string): Promise<string> {
  const parts: string[] = [];
  const sink: Sink = {
    isTTY: false,
    write(text: string) {
      parts.push(text);
      return true;
    },
  };
  const sub: Ctx = {
    ...ctx,
    stdout: sink,
    stderr: sink,
    stdin: { kind: "null", chunks: async function* () {} },
  };
  const { memoryCommand } = await import("./memory.ts");
  const command = memoryCommand(sub, { exitCode: 0 });
  configureTree(command, sub);
  try {
    await command.parseAsync(splitWords(args), { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) sink.write(formatError(toChatcliError(error)));
  }
  return parts.join("").trimEnd();
}

/** Splits a line into words, honouring single and double quotes. */
function splitWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3] ?? "");
  return words;
}
