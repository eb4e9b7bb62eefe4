import { Command, Option } from "@commander-js/extra-typings";
import type { AskRequest } from "../lib/agent/approval.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import type { Provider } from "../lib/llm/types.ts";
import { type OutputFormat, RunOutput } from "../lib/output/sinks.ts";
import { parseRule } from "../lib/policy/permissions.ts";
import type { RunSpec } from "../lib/run/spec.ts";
import type { RunState } from "./_shared.ts";
import {
  EFFORT_CHOICES,
  EFFORT_HELP,
  isInteractive,
  outputFormatOf,
  parseDuration,
  parsePositiveInt,
  promptFromArgs,
  runHelpFooter,
  SHOW_REASONING_HELP,
} from "./_shared.ts";
import { withColoredStderr } from "./color.ts";
import { collectHosts, networkFlags } from "./network-flag.ts";

const collect = (value: string, previous: string[]) => [...previous, value];

/** Collects a --allow-tool/--deny-tool pattern; a malformed one is a usage error, never ignored. */
const collectRule = (flag: string) => (value: string, previous: string[]) => {
  if (!parseRule(value))
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not a rule: use TOOL or TOOL(PATTERN), e.g. 'run_command(npm test*)'`,
    );
  return [...previous, value];
};

function parseUsd(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError("--max-budget-usd must be a positive number");
  return n;
}

/** The shared flag set and action of `agent` and `coder` (CONTRACT §1, §5, §6). */
export function buildAgentLikeCommand(
  name: "agent" | "coder",
  description: string,
  ctx: Ctx,
  state: RunState,
) {
  return new Command(name)
    .description(description)
    .argument("[task...]", "the task (or `-`/nothing to read it from stdin)")
    .option(
      "-m, --model <provider/model>",
      "model, e.g. anthropic/claude-sonnet-4-6 or mock:script",
    )
    .addOption(
      new Option("--output-format <format>", "text, json or stream-json (default text)").choices([
        "text",
        "json",
        "stream-json",
      ]),
    )
    .option("--json", "same as --output-format json")
    .option("--jsonl", "same as --output-format stream-json")
    .addOption(
      new Option(
        "--permission-mode <mode>",
        'read-only (reads and read-only shell), edit (+ file edits in the workspace), auto (+ other shell), bypass (everything) (default read-only, or "permissions"."mode" of config.json)',
      ).choices(["read-only", "edit", "auto", "bypass"]),
    )
    .option(
      "--allow-tool <pattern>",
      "allow a tool call, e.g. 'run_command(npm test*)', 'write_file(src/**)' (repeatable; adds to \"permissions\" in .chatcli/config.json)",
      collectRule("--allow-tool"),
      [] as string[],
    )
    .option(
      "--deny-tool <pattern>",
      "deny a tool call pattern; deny beats allow beats --permission-mode (repeatable)",
      collectRule("--deny-tool"),
      [] as string[],
    )
    .addOption(
      new Option(
        "--on-ask <action>",
        "without a TTY, what an approval request does: deny it (the model is told) or fail the run (exit 6) (default deny)",
      ).choices(["deny", "fail"]),
    )
    .option(
      "--max-turns <n>",
      "stop after N model turns (exit 4) (default 50, or CHATCLI_AGENT_PLUGIN_MAX_TURNS)",
      parsePositiveInt("--max-turns"),
    )
    .option(
      "--max-budget-usd <usd>",
      "stop when the run has cost this much (exit 5) (default: no limit)",
      parseUsd,
    )
    .option(
      "--timeout <duration>",
      "stop after this long (exit 124), e.g. 30s, 5m (default: none)",
      parseDuration("--timeout"),
    )
    .option("--fake-responses <file>", "scripted turns for mock:script (JSONL)")
    .option("-s, --system <text>", "extra system instructions")
    .option("--no-stdin", "never read stdin")
    .option(
      "--stdin-timeout <duration>",
      "wait this long for the first byte of a piped stdin when a task is given (default 3s)",
      parseDuration("--stdin-timeout"),
    )
    .option(
      "--max-input-bytes <n>",
      "cap on stdin bytes (default 8 MiB)",
      parsePositiveInt("--max-input-bytes"),
    )
    .option("--truncate-input", "cut stdin at --max-input-bytes instead of failing")
    .option("--session <name>", "continue and save this session")
    .option("-c, --continue", "continue the latest session of this workspace")
    .option("--ephemeral", "do not save the session")
    .option(
      "--trust-workspace",
      "honour this workspace's .chatcli/config.json and .env in full (else only what tightens applies)",
    )
    .option(
      "--bare",
      "no bootstrap files, no memory, no skills, hooks or MCP servers (but --mcp-config's)",
    )
    .option(
      "--mcp-config <file>",
      "also start the MCP servers of this file (Claude Code's .mcp.json format; repeatable)",
      collect,
      [] as string[],
    )
    .option("--strict-mcp-config", "only the MCP servers of --mcp-config")
    .option("--no-bootstrap", "same as --bare")
    .option("--no-auto-compact", "never compact the conversation automatically")
    .addOption(
      new Option(
        "--color <when>",
        "colour the diagnostics on stderr: auto (a terminal), always, never; the answer is never coloured",
      ).choices(["auto", "always", "never"] as const),
    )
    .option(
      "-f, --file <path>",
      "attach a file or glob to the cached system context (repeatable)",
      collect,
      [] as string[],
    )
    .addOption(
      new Option(
        "--memory <mode>",
        "off, read or write (default: write on a TTY, read in CI and pipes)",
      ).choices(["off", "read", "write"]),
    )
    .addOption(
      new Option(
        "--sandbox <mode>",
        "OS sandbox for every command the agent runs: auto (use it; without one, shell tools are refused), required (exit 3 without one), off (unconfined) (default auto, or CHATCLI_SANDBOX)",
      ).choices(["auto", "required", "off"]),
    )
    .option(
      "--pass-env <name>",
      "pass this variable to commands (they get only a core set: PATH, HOME, locale, CI and toolchain variables) (repeatable)",
      collect,
      [] as string[],
    )
    .addOption(
      new Option(
        "--env-policy <policy>",
        "what commands inherit: core (the documented core set + --pass-env) or all (everything but what looks like a credential) (default core, or sandbox.env_policy)",
      ).choices(["core", "all"]),
    )
    .option(
      "--allow-network [hosts]",
      "let commands reach only these hosts (HOST[,HOST…], *.example.com for subdomains, HOST:PORT), in any mode but bypass, through chatcli's proxy; bare: the whole network, in --permission-mode auto only (default: no network; also sandbox.allow_network in ~/.chatcli/config.json)",
      collectHosts,
    )
    .option(
      "--allow-read <path>",
      "let commands and file tools read this path in your home directory, which they otherwise see empty but for the workspace and the toolchain set (repeatable; also sandbox.allow_read in ~/.chatcli/config.json)",
      collect,
      [] as string[],
    )
    .option(
      "--allow-git-writes",
      "let commands write the workspace's .git in edit/auto (git commit, tag, fetch); default read-only, or sandbox.allow_git_writes in ~/.chatcli/config.json",
    )
    .addOption(new Option("--effort <level>", EFFORT_HELP).choices(EFFORT_CHOICES))
    .option("--show-reasoning", SHOW_REASONING_HELP)
    .option(
      "--max-retries <n>",
      "retries per provider on 429/5xx/network errors (default 10 within the 30 s budget, or CHATCLI_MAX_RETRIES)",
      parsePositiveInt("--max-retries"),
    )
    .addHelpText("after", runHelpFooter(name))
    .action(async (words, opts) => {
      if (opts.maxTurns === 0) throw new UsageError("--max-turns must be at least 1");
      state.exitCode = await runAgentCli(withColoredStderr(ctx, opts.color), name, {
        prompt: promptFromArgs(words),
        format: outputFormatOf(opts),
        model: opts.model,
        permissionMode: opts.permissionMode,
        allowTool: opts.allowTool,
        denyTool: opts.denyTool,
        onAsk: opts.onAsk,
        maxTurns: opts.maxTurns,
        maxBudgetUsd: opts.maxBudgetUsd,
        timeoutMs: opts.timeout,
        fakeResponses: opts.fakeResponses,
        system: opts.system,
        noStdin: opts.stdin === false,
        stdinTimeoutMs: opts.stdinTimeout ?? 3000,
        maxInputBytes: opts.maxInputBytes ?? 8 * 1024 * 1024,
        truncateInput: opts.truncateInput === true,
        session: opts.session,
        continueLatest: opts.continue === true,
        ephemeral: opts.ephemeral === true,
        bare: opts.bare === true || opts.bootstrap === false,
        noAutoCompact: opts.autoCompact === false,
        files: opts.file,
        memory: opts.memory,
        maxRetries: opts.maxRetries,
        sandbox: opts.sandbox,
        passEnv: opts.passEnv,
        envPolicy: opts.envPolicy,
        ...networkFlags(opts.allowNetwork),
        allowGitWrites: opts.allowGitWrites === true,
        allowRead: opts.allowRead,
        effort: opts.effort,
        showReasoning: opts.showReasoning === true,
        interactive: isInteractive(ctx),
        trustWorkspace: opts.trustWorkspace === true,
        mcpConfig: opts.mcpConfig,
        strictMcpConfig: opts.strictMcpConfig === true,
      });
    });
}

/** The parsed flags of `agent` / `coder`. */
export interface AgentCliOptions {
  prompt?: string;
  format: OutputFormat;
  model?: string;
  permissionMode?: string;
  allowTool: string[];
  denyTool: string[];
  onAsk?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  timeoutMs?: number;
  fakeResponses?: string;
  system?: string;
  noStdin: boolean;
  stdinTimeoutMs: number;
  maxInputBytes: number;
  truncateInput: boolean;
  session?: string;
  continueLatest?: boolean;
  ephemeral: boolean;
  bare: boolean;
  files: string[];
  memory?: string;
  maxRetries?: number;
  effort?: string;
  showReasoning?: boolean;
  noAutoCompact?: boolean;
  interactive: boolean;
  sandbox?: string;
  passEnv?: string[];
  envPolicy?: string;
  allowNetwork?: boolean;
  /** `--allow-network HOST,…`: child processes reach only these hosts, in any mode but bypass. */
  allowNetworkHosts?: string[];
  allowGitWrites?: boolean;
  /** `--allow-read PATH` (repeatable). */
  allowRead?: string[];
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
  /** Tests inject a provider and a TTY answerer. */
  provider?: Provider;
  ask?: (request: AskRequest) => Promise<boolean>;
  trustWorkspace?: boolean;
}

/** agent/coder flags as a run spec. */
export function agentSpec(mode: "agent" | "coder", opts: AgentCliOptions): RunSpec {
  return {
    command: mode,
    mode,
    input: {
      prompt: opts.prompt,
      noStdin: opts.noStdin,
      firstByteTimeoutMs: opts.stdinTimeoutMs,
      maxBytes: opts.maxInputBytes,
      truncate: opts.truncateInput,
      what: "task",
    },
    model: opts.model,
    permissionMode: opts.permissionMode,
    allowTool: opts.allowTool,
    denyTool: opts.denyTool,
    onAsk: opts.onAsk,
    maxTurns: opts.maxTurns,
    maxBudgetUsd: opts.maxBudgetUsd,
    timeoutMs: opts.timeoutMs,
    fakeResponses: opts.fakeResponses,
    system: opts.system,
    session: { name: opts.session, continueLatest: opts.continueLatest, ephemeral: opts.ephemeral },
    bare: opts.bare,
    files: opts.files,
    memory: opts.memory,
    maxRetries: opts.maxRetries,
    effort: opts.effort,
    showReasoning: opts.showReasoning,
    noAutoCompact: opts.noAutoCompact,
    interactive: opts.interactive,
    sandbox: opts.sandbox,
    passEnv: opts.passEnv,
    envPolicy: opts.envPolicy,
    allowNetwork: opts.allowNetwork,
    allowNetworkHosts: opts.allowNetworkHosts,
    allowGitWrites: opts.allowGitWrites,
    allowRead: opts.allowRead,
    mcpConfig: opts.mcpConfig,
    strictMcpConfig: opts.strictMcpConfig,
    trustWorkspace: opts.trustWorkspace,
    // only stream-json shows the deltas; text prints the final message, json the envelope
    liveDeltas: opts.format === "stream-json",
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.ask ? { ask: opts.ask } : {}),
  };
}

/** Runs `chatcli agent|coder` from its flags; returns the exit code. */
export async function runAgentCli(
  ctx: Ctx,
  mode: "agent" | "coder",
  opts: AgentCliOptions,
): Promise<number> {
  const output = new RunOutput(ctx, {
    format: opts.format,
    command: mode,
    streamText: false,
    secrets: configuredSecrets(ctx.env),
  });
  const { runHeadless } = await import("../lib/run/headless.ts");
  return runHeadless(ctx, agentSpec(mode, opts), output);
}

/** `chatcli agent [TASK…]` — the tool loop with every tool. */
export function agentCommand(ctx: Ctx, state: RunState) {
  return buildAgentLikeCommand(
    "agent",
    "run a task with tools (read, search, edit, shell, web fetch, memory) under a permission policy",
    ctx,
    state,
  );
}
