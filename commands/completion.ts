import {
  Argument,
  Command,
  type CommandUnknownOpts,
  Option,
  type Option as OptionT,
} from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { listSessions } from "../lib/history/session-list.ts";
import { CATEGORIES } from "../lib/memory/config.ts";
import { bashCompletion } from "../lib/shell/bash.ts";
import { fishCompletion } from "../lib/shell/fish.ts";
import type { CommandSpec, FlagSpec, ValueKind } from "../lib/shell/spec.ts";
import { zshCompletion } from "../lib/shell/zsh.ts";
import type { RunState } from "./_shared.ts";
import { buildProgram } from "./program.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
const VALUE_LISTS = ["sessions", "categories", "commands"] as const;

/** What a value named `<name>` completes to: sessions, memory categories, files, or nothing. */
function completesTo(name: string, choices: readonly string[] | undefined, inSessions: boolean) {
  if (choices?.length) return { kind: "choices", values: choices } as const;
  if (name === "category" || name === "c") return { kind: "choices", values: CATEGORIES } as const;
  if (name === "session" || (inSessions && name === "name")) return { kind: "sessions" } as const;
  if (/file|path|dir/.test(name)) return { kind: "files" } as const;
  return { kind: "none" } as const;
}

function flagSpec(option: OptionT, inSessions: boolean): FlagSpec {
  const names = [option.short, option.long].filter((n): n is string => !!n);
  const takes = option.required || option.optional;
  const valueName = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? "";
  const long = option.long?.replace(/^--/, "") ?? "";
  const value: ValueKind | undefined = takes
    ? completesTo(
        long === "session" || long === "category" ? long : valueName,
        option.argChoices,
        inSessions,
      )
    : undefined;
  return { names, description: option.description, value };
}

/** The spec of a commander tree (visible commands and flags, as `--help` lists them). */
export function specOf(command: CommandUnknownOpts, inSessions = false): CommandSpec {
  const help = command.createHelp();
  const here = inSessions || command.name() === "sessions";
  const first = command.registeredArguments[0];
  return {
    name: command.name(),
    aliases: command.aliases(),
    description: command.description(),
    flags: help.visibleOptions(command).map((o) => flagSpec(o, here)),
    commands: help
      .visibleCommands(command)
      .filter((c) => c.name() !== "help")
      .map((c) => specOf(c, here)),
    args: first ? completesTo(first.name(), first.argChoices, here) : undefined,
  };
}

/** `chatcli completion bash|zsh|fish` — a completion script generated from the command tree. */
export function completionCommand(ctx: Ctx, _state: RunState) {
  return new Command("completion")
    .description(
      "print a shell completion script (commands, flags, session names, memory categories)",
    )
    .addOption(
      new Option("--values <list>", "print one list, one a line").choices(VALUE_LISTS).hideHelp(),
    )
    .addArgument(new Argument("[shell]", "bash, zsh or fish").choices(SHELLS))
    .addHelpText(
      "after",
      `
Examples:
  source <(chatcli completion bash)                                  # bash, this shell
  chatcli completion zsh > "\${fpath[1]}/_chatcli"                    # zsh, then restart it
  chatcli completion fish > ~/.config/fish/completions/chatcli.fish  # fish
`,
    )
    .action(async (shell, flags) => {
      if (flags.values === "sessions") {
        for (const s of await listSessions(ctx).catch(() => [])) ctx.stdout.write(`${s.name}\n`);
        return;
      }
      if (flags.values === "categories") {
        ctx.stdout.write(`${CATEGORIES.join("\n")}\n`);
        return;
      }
      const root = specOf(await buildProgram(ctx, { exitCode: 0 }, [], { loadAll: true }));
      if (flags.values === "commands") {
        ctx.stdout.write(`${root.commands.map((c) => c.name).join("\n")}\n`);
        return;
      }
      if (!shell) throw new UsageError(`completion needs a shell: ${SHELLS.join(", ")}`);
      const generate = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion }[shell];
      ctx.stdout.write(generate(root, "chatcli"));
    });
}
