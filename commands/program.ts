import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { configureTree, type RunState } from "./_shared.ts";
import { addExamples, ROOT_EXAMPLES, ROOT_REFERENCE } from "./help-text.ts";
import { BARE_PROMPT_HELP } from "./typos.ts";

type CommandFactory = (ctx: Ctx, state: RunState) => CommandUnknownOpts;

interface CommandEntry {
  description: string;
  load: () => Promise<CommandFactory>;
}

/**
 * Every command, loaded on demand: only the command being run is imported and built, so a
 * `bootstrap show` does not pay for the agent's tools or the REPL (start-up is a budget).
 */
const COMMANDS: Record<string, CommandEntry> = {
  ask: {
    description: "one answer; stdin is context (logs, diffs) or the prompt",
    load: async () => (await import("./ask.ts")).askCommand,
  },
  agent: {
    description: "tool loop (read, search, edit, shell, web, memory) under a permission policy",
    load: async () => (await import("./agent.ts")).agentCommand,
  },
  coder: {
    description: "the agent loop with the file-editing tool set and the coder prompt",
    load: async () => (await import("./coder.ts")).coderCommand,
  },
  chat: {
    description: "interactive REPL (/compact, /rewind, Esc Esc, /memory, /agent, /coder)",
    load: async () => (await import("./chat.ts")).chatCommand,
  },
  memory: {
    description: "the persistent memory: facts, profile, topics, projects, daily notes",
    load: async () => (await import("./memory.ts")).memoryCommand,
  },
  compact: {
    description: "compact a conversation (stdin or --session) — a filter any agent can use",
    load: async () => (await import("./compact.ts")).compactCommand,
  },
  rewind: {
    description: "list or restore checkpoints of a session (conversation and files)",
    load: async () => (await import("./rewind.ts")).rewindCommand,
  },
  bootstrap: {
    description: "the exact system context that would be sent, and where it comes from",
    load: async () => (await import("./bootstrap.ts")).bootstrapCommand,
  },
  sessions: {
    description: "saved conversations: list, show, rm",
    load: async () => (await import("./sessions.ts")).sessionsCommand,
  },
  config: {
    description: "the effective settings and where each came from (secrets as set/unset)",
    load: async () => (await import("./config.ts")).configCommand,
  },
  completion: {
    description: "print a shell completion script: bash, zsh or fish",
    load: async () => (await import("./completion.ts")).completionCommand,
  },
  policy: {
    description: "explain the permission decision for a command: policy check -- CMD",
    load: async () => (await import("./policy.ts")).policyCommand,
  },
  schema: {
    description: "JSON Schema 2020-12 of the result envelope and of every stream-json event",
    load: async () => (await import("./schema.ts")).schemaCommand,
  },
  mcp: {
    description: "MCP servers: list, add, remove, tools; serve chatcli's memory over MCP",
    load: async () => (await import("./mcp.ts")).mcpCommand,
  },
  skills: {
    description: "SKILL.md skills: list (scope and source)",
    load: async () => (await import("./skills.ts")).skillsCommand,
  },
  hooks: {
    description: "hooks.json hooks: list (event, scope and source)",
    load: async () => (await import("./hooks.ts")).hooksCommand,
  },
  models: {
    description:
      "providers (configured or not, by which variable), models, context windows, prices",
    load: async () => (await import("./models.ts")).modelsCommand,
  },
};

export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The command `argv` runs (or asks help for), if any. */
function targetOf(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  if (first === "help" && second && second in COMMANDS) return second;
  return first && first in COMMANDS ? first : undefined;
}

/** The commander tree for this argv. Commander is only an adapter: each command calls a plain function. */
export async function buildProgram(
  ctx: Ctx,
  state: RunState,
  argv: readonly string[],
  options: { loadAll?: boolean } = {},
): Promise<CommandUnknownOpts> {
  const program = new Command()
    .name("chatcli")
    .description("LLMs in the terminal, shell pipelines and CI")
    .version(ctx.version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .addHelpText("after", ROOT_EXAMPLES)
    .addHelpText("after", BARE_PROMPT_HELP)
    .addHelpText("after", ROOT_REFERENCE);
  const target = targetOf(argv);
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === target || options.loadAll) {
      const command = (await entry.load())(ctx, state);
      addExamples(command);
      program.addCommand(command);
    } else program.addCommand(new Command(name).description(entry.description));
  }
  configureTree(program, ctx);
  return program;
}
