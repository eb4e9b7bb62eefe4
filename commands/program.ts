import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import type { RunState } from "./_shared.ts";
import { agentCommand } from "./agent.ts";
import { askCommand } from "./ask.ts";
import { bootstrapCommand } from "./bootstrap.ts";
import { chatCommand } from "./chat.ts";
import { coderCommand } from "./coder.ts";
import { compactCommand } from "./compact.ts";
import { memoryCommand } from "./memory.ts";
import { rewindCommand } from "./rewind.ts";
import { sessionsCommand } from "./sessions.ts";

export const COMMAND_NAMES = [
  "ask",
  "agent",
  "coder",
  "chat",
  "memory",
  "compact",
  "rewind",
  "bootstrap",
  "sessions",
];

/** The commander tree. Commander is only an adapter: each command calls a plain function. */
export function buildProgram(ctx: Ctx, state: RunState): CommandUnknownOpts {
  const program = new Command()
    .name("chatcli")
    .description("LLMs in the terminal, shell pipelines and CI")
    .version(ctx.version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true);
  const commands = [
    askCommand(ctx, state),
    agentCommand(ctx, state),
    coderCommand(ctx, state),
    chatCommand(ctx, state),
    memoryCommand(ctx, state),
    compactCommand(ctx, state),
    rewindCommand(ctx, state),
    bootstrapCommand(ctx, state),
    sessionsCommand(ctx, state),
  ];
  for (const command of commands) program.addCommand(command);
  configureTree(program, ctx);
  return program;
}

/** Applies the in-process settings to every command (addCommand does not inherit them). */
function configureTree(command: CommandUnknownOpts, ctx: Ctx): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => {
        ctx.stdout.write(text);
      },
      writeErr: (text) => {
        ctx.stderr.write(text);
      },
    });
  for (const sub of command.commands) configureTree(sub, ctx);
}
