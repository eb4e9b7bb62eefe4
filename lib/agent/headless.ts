import { asText } from "../core/as-text.ts";
import type { Ctx } from "../core/ctx.ts";
import { ChatcliError, ConfigError, EXIT, UsageError } from "../core/errors.ts";
import { readPromptInput } from "../core/input.ts";
import { configuredSecrets } from "../core/redact.ts";
import { knownSecrets } from "../core/secrets.ts";
import { envInt, loadSettings } from "../core/settings.ts";
import { costOf as priceOf } from "../llm/cost.ts";
import { resolveEffort } from "../llm/effort.ts";
import { modelLabel, resolveModel } from "../llm/models.ts";
import type { Provider, Usage } from "../llm/types.ts";
import { newEnvelope, settle } from "../output/envelope.ts";
import { type OutputFormat, Reporter } from "../output/reporter.ts";
import { stripControl } from "../output/terminal.ts";
import { invalidDenylist } from "../policy/command-safety.ts";
import { outboundInfo } from "../policy/outbound.ts";
import { invalidRules, resolvePermissionMode } from "../policy/permissions.ts";
import { protectedPaths } from "../policy/protected-paths.ts";
import { readStopSignal } from "../run/abort.ts";
import { defaultMemoryAccess, RunMemory } from "../run/memory.ts";
import { answeredBy, buildProviderChain } from "../run/provider.ts";
import type { AskRequest } from "./approval.ts";
import { denialSummary } from "./denials.ts";
import { type Attached, attachExtensions } from "./extensions.ts";
import { runAgent } from "./loop.ts";
import { loadRoles, roleOfTask } from "./roles.ts";
import { openRunSandbox } from "./run-sandbox.ts";
import { addSubagentTotals, roleBlock, subagentTools } from "./subagent.ts";
import { createDelegation, DELEGATE_ALIAS, delegationEnabled } from "./tools/delegate.ts";
import { offeredTools, toolsFor } from "./tools/registry.ts";
import { withoutWebResults } from "./tools/web-search.ts";
import { createTtyAsk } from "./tty-ask.ts";
import type { AgentInput } from "./types.ts";
import * as wiring from "./wiring.ts";

/** The parsed flags of `agent` / `coder` (commands/agent.ts builds them). */
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
  /** `-c/--continue`: the latest session of this workspace. */
  continueLatest?: boolean;
  ephemeral: boolean;
  bare: boolean;
  files: string[];
  memory?: string;
  maxRetries?: number;
  /** `--effort` (else CHATCLI_EFFORT); `--show-reasoning`. */
  effort?: string;
  showReasoning?: boolean;
  /** `--no-auto-compact`. */
  noAutoCompact?: boolean;
  interactive: boolean;
  /** `--sandbox auto|required|off` (else CHATCLI_SANDBOX, else auto). */
  sandbox?: string;
  /** `--pass-env NAME`: variables children get even though they look like secrets. */
  passEnv?: string[];
  /** `--env-policy core|all`: what commands inherit (default core: the documented core set). */
  envPolicy?: string;
  /** `--allow-network`: child processes reach the network in auto mode. */
  allowNetwork?: boolean;
  /** `--allow-network HOST,…`: child processes reach only these hosts, in any mode but bypass. */
  allowNetworkHosts?: string[];
  /** `--allow-git-writes`: commands may write the workspace's `.git` in edit/auto. */
  allowGitWrites?: boolean;
  /** Tests inject a provider (skips model resolution's provider construction). */
  provider?: Provider;
  /** Tests inject a TTY answerer; otherwise it is built from ctx when interactive. */
  ask?: (request: AskRequest) => Promise<boolean>;
  /** `--trust-workspace`: the workspace's .chatcli/config.json and .env count in full. */
  trustWorkspace?: boolean;
  /** `--mcp-config FILE` (repeatable) and `--strict-mcp-config`. */
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
}

/** CHATCLI_AGENT_PLUGIN_MAX_TURNS: unset/invalid/≤0 → 50, >200 → 200. */
export function defaultMaxTurns(env: Ctx["env"]): number {
  const n = envInt(env, "CHATCLI_AGENT_PLUGIN_MAX_TURNS", 50);
  return n <= 0 ? 50 : Math.min(n, 200);
}

/** Runs `chatcli agent|coder` headless or on a TTY: the whole flow from flags to envelope. Returns the exit code. */
export async function runAgentCli(
  ctx: Ctx,
  mode: "agent" | "coder",
  opts: AgentCliOptions,
): Promise<number> {
  const started = performance.now();
  const envelope = newEnvelope(mode, ctx.version);
  let reporter = new Reporter(ctx, {
    format: opts.format,
    envelope,
    secrets: configuredSecrets(ctx.env),
  });
  reporter.holdUntilSessionStarted();
  let disposeSandbox = () => {};
  let extensions: Attached | undefined;
  const finish = async (code: number) => {
    // every MCP server this run started stops before the result is out (SessionEnd hooks first)
    await extensions?.close();
    if (extensions) envelope.mcp_servers = extensions.servers();
    disposeSandbox();
    envelope.duration_ms = Math.round(performance.now() - started);
    reporter.finish();
    return code;
  };
  try {
    const workspaceRoot = wiring.detectWorkspaceRoot(ctx.cwd);
    const ttyAsk = !opts.ask && opts.interactive ? createTtyAsk(ctx) : undefined;
    const settings = await loadSettings(ctx, {
      workspaceRoot,
      trustWorkspace: opts.trustWorkspace,
      askTrust: ttyAsk?.trust,
    });
    const env = settings.env;
    // Keys from .env and config.json are secrets too (ignored ones included): redact them everywhere.
    reporter = new Reporter(ctx, {
      format: opts.format,
      envelope,
      secrets: configuredSecrets(settings.redactEnv),
    });
    reporter.holdUntilSessionStarted();
    for (const w of settings.warnings) reporter.warn(w.code, w.message);
    const resolved = resolvePermissionMode(opts.permissionMode, settings.config.permissions?.mode);
    if ("error" in resolved) {
      if (opts.permissionMode) throw new UsageError(resolved.error);
      throw new ConfigError(`config.json permissions.mode: ${resolved.error}`);
    }
    if (resolved.warning) reporter.warn("config_bypass_ignored", resolved.warning);
    const onAsk = opts.onAsk ?? "deny";
    if (onAsk !== "deny" && onAsk !== "fail") throw new UsageError("--on-ask must be deny or fail");
    const memoryMode = (
      opts.bare ? "off" : (opts.memory ?? defaultMemoryAccess(env, opts.interactive))
    ) as "off" | "read" | "write";
    if (!["off", "read", "write"].includes(memoryMode))
      throw new UsageError("--memory must be off, read or write");
    // SIGINT/SIGTERM and --timeout also end a wait on a producer that never closes stdin
    const stdinStop = readStopSignal(ctx, opts.timeoutMs);
    const { text: rawTask, warnings: stdinWarnings } = await readPromptInput(
      ctx.stdin,
      opts.prompt,
      {
        noStdin: opts.noStdin,
        firstByteTimeoutMs: opts.stdinTimeoutMs,
        maxBytes: opts.maxInputBytes,
        truncate: opts.truncateInput,
        what: "task",
        signal: stdinStop.signal,
      },
    ).finally(() => stdinStop.dispose());
    for (const w of stdinWarnings) reporter.warn(w.code, w.message);
    // `agent @role TASK` runs an AGENTS.md role directly: its instructions, tools, model, read_only
    const roleSet = loadRoles(env, workspaceRoot, opts.bare, {
      trusted: settings.trust.trusted,
      maxTurns: defaultMaxTurns(env),
    });
    for (const w of roleSet.warnings) reporter.warn(w.code, w.message);
    const direct = roleOfTask(rawTask, roleSet.roles);
    if (direct && !direct.task) throw new UsageError(`@${direct.role.name} needs a task after it`);
    const task = direct ? direct.task : rawTask;
    const permissionMode = direct?.role.readOnly ? "read-only" : resolved.mode;
    // MCP servers, skills and hooks (lib/extensions); the run engine will call these itself
    extensions = await attachExtensions({
      ctx,
      env,
      workspaceRoot,
      trusted: settings.trust.trusted,
      task,
      bare: opts.bare,
      mcpConfig: opts.mcpConfig,
      strictMcpConfig: opts.strictMcpConfig,
      effort: opts.effort ?? env["CHATCLI_EFFORT"],
    });
    reporter = extensions.tap(reporter);
    const skillFx = extensions.effects;
    // The process env only: a checkout's .env or config does not choose its own sandbox.
    const sandbox = await openRunSandbox(
      ctx,
      { ...opts, secretEnv: settings.redactEnv },
      permissionMode,
      workspaceRoot,
      reporter,
    );
    disposeSandbox = () => sandbox.dispose();
    envelope.sandbox = sandbox.info;

    const ref = resolveModel(
      opts.model ?? direct?.role.model ?? skillFx.model,
      env,
      settings.config.model,
    );
    const effort = resolveEffort(opts.effort ?? skillFx.effort, env);
    envelope.model = modelLabel(ref);
    // the same chain as ask: retries, CHATCLI_FALLBACK_PROVIDERS, idle timeout, retry events
    const provider = await buildProviderChain(ref, {
      env,
      fetch: ctx.fetch,
      fakeResponsesPath: opts.fakeResponses,
      maxRetries: opts.maxRetries,
      reporter,
      primary: opts.provider,
    });
    const w: wiring.WiringContext = {
      env,
      cwd: ctx.cwd,
      now: ctx.now,
      workspaceRoot,
      mode,
      task,
      extraSystem: opts.system,
      files: opts.files,
      bare: opts.bare,
      memoryMode,
      sessionName: opts.session,
      continueLatest: opts.continueLatest,
      ephemeral: opts.ephemeral,
      ref,
      provider,
      noAutoCompact: opts.noAutoCompact,
      memory:
        memoryMode === "off"
          ? undefined
          : new RunMemory({ ctx, env, workspace: workspaceRoot, access: memoryMode, reporter }),
    };
    const [{ blocks, bootstrapFiles, warnings }, memory, session, ext] = await Promise.all([
      wiring.buildSystemBlocks(w),
      wiring.openMemory(w),
      wiring.loadSessionHistory(w),
      extensions.tools(),
    ]);
    for (const warning of warnings) reporter.warn(warning.code, warning.message);
    for (const w of session.warnings) reporter.warn(w.code, w.message);
    envelope.session_id = session.sessionId;
    envelope.bootstrap_files = bootstrapFiles;
    envelope.memory = {
      mode: w.memory?.mode ?? "off",
      access: w.memory?.access ?? "off",
      facts_loaded: w.memory?.factsLoaded ?? 0,
      facts_written: 0,
    };
    const providerFor = async (model: string) => {
      const r = resolveModel(model, env, undefined);
      const p = await buildProviderChain(r, {
        env,
        fetch: ctx.fetch,
        fakeResponsesPath: opts.fakeResponses,
        maxRetries: opts.maxRetries,
        reporter,
      });
      const price = wiring.costFunction(r) && ((u: Usage) => priceOf(answeredBy(p), u));
      return { provider: p, model: modelLabel(r), costOf: price };
    };
    const delegation = createDelegation(roleSet.roles, providerFor);
    const all = [
      ...toolsFor(mode, { memory: memoryMode !== "off", env }),
      ...(delegationEnabled(env, roleSet.roles) ? delegation.tools : []),
      ...ext.tools,
    ];
    // a role run directly keeps its tools only (read_only: no edit tools); an untrusted skill's
    // allowed-tools only narrow
    const tools = subagentTools(all, { role: direct?.role }).tools.filter(
      (t) => !skillFx.only || skillFx.only.includes(t.name),
    );
    const allow = [
      ...(settings.config.permissions?.allow ?? []),
      ...opts.allowTool,
      ...skillFx.allow,
    ];
    const deferred = new Set(ext.tools.map((t) => t.name).filter((n) => !ext.offered.includes(n)));
    const offered = offeredTools(tools, {
      mode: permissionMode,
      allow,
      deny: [...(settings.config.permissions?.deny ?? []), ...opts.denyTool],
      attended: opts.ask !== undefined || opts.interactive,
    })
      .map((t) => t.name)
      .filter((name) => name !== DELEGATE_ALIAS && !deferred.has(name));
    envelope.outbound = outboundInfo(
      permissionMode,
      allow,
      tools.filter((t) => t.kind === "network").map((t) => t.name),
    );
    const maxTurns = opts.maxTurns ?? direct?.role.maxTurns ?? defaultMaxTurns(env);
    // priced per request by the model that answered it (a fallback's price after a fallback)
    const costOf = wiring.costFunction(ref) && ((u: Usage) => priceOf(answeredBy(provider), u));
    if (!costOf)
      reporter.warn(
        "unpriced_model",
        `no price known for ${envelope.model}; total_cost_usd is null${opts.maxBudgetUsd !== undefined ? " and --max-budget-usd cannot be enforced" : ""}`,
      );
    reporter.event("session.started", {
      schema_version: envelope.schema_version,
      command: mode,
      model: envelope.model,
      cwd: ctx.cwd,
      workspace: workspaceRoot,
      permission_mode: permissionMode,
      workspace_trust: settings.trust,
      ...(direct ? { role: direct.role.name } : {}),
      tools: offered,
      mcp_servers: extensions.servers(),
      bootstrap_files: bootstrapFiles,
      memory: envelope.memory,
      sandbox: sandbox.info,
      outbound: envelope.outbound,
      limits: {
        max_turns: maxTurns,
        max_budget_usd: opts.maxBudgetUsd ?? null,
        timeout_ms: opts.timeoutMs ?? null,
      },
    });
    const rules = settings.config.permissions;
    for (const bad of invalidRules([...(rules?.allow ?? []), ...(rules?.deny ?? [])]))
      reporter.warn("invalid_permission_rule", `ignored .chatcli/config.json rule ${bad}`);
    for (const bad of invalidDenylist(env["CHATCLI_AGENT_DENYLIST"]))
      reporter.warn("invalid_permission_rule", `ignored CHATCLI_AGENT_DENYLIST pattern ${bad}`);
    if (permissionMode === "bypass")
      reporter.warn(
        "bypass_mode",
        "--permission-mode bypass: every tool call is allowed, including dangerous ones",
      );
    const input: AgentInput = {
      provider,
      model: envelope.model,
      mode,
      task,
      history: session.history,
      system: extensions.system(direct ? [...blocks, roleBlock(direct.role, true)] : blocks),
      tools,
      offered,
      policy: {
        mode: permissionMode,
        allow,
        deny: [...(settings.config.permissions?.deny ?? []), ...opts.denyTool],
        onAsk,
        workspaceRoot,
        cwd: ctx.cwd,
        home: env["HOME"],
        denylist: env["CHATCLI_AGENT_DENYLIST"],
        protectedPaths: protectedPaths(env, settings.config),
        // keys from the process env, the user's config and the workspace's files alike
        secrets: knownSecrets({ ...settings.redactEnv, ...ctx.env }),
      },
      limits: { maxTurns, maxBudgetUsd: opts.maxBudgetUsd, timeoutMs: opts.timeoutMs },
      costOf,
      hooks: { ...wiring.agentHooks(w, reporter), ...extensions.hooks() },
      reporter,
      signal: ctx.signal,
      workspaceRoot,
      cwd: ctx.cwd,
      env,
      fetch: ctx.fetch,
      now: ctx.now,
      ask: opts.ask ?? ttyAsk,
      memory,
      memoryMode,
      scratchDir: wiring.scratchDirFor(w),
      sandbox,
      effort,
      showReasoning: opts.showReasoning,
    };
    delegation.bind(input);
    await extensions.start(session.sessionId);
    const result = await runAgent(input);
    if (!opts.ephemeral) await wiring.saveSessionHistory(w, result.messages);
    envelope.result = stripControl(result.finalText) || null;
    envelope.num_turns = result.numTurns;
    if (result.numTurns > 0) envelope.model = answeredBy(provider).label;
    // sub-agents' usage and cost are part of the run's
    const totals = addSubagentTotals(result.usage, result.costUsd, delegation.records);
    envelope.usage = totals.usage;
    envelope.subagents = delegation.records;
    envelope.duration_api_ms = result.durationApiMs;
    envelope.total_cost_usd = totals.cost === null ? null : Math.round(totals.cost * 1e6) / 1e6;
    envelope.tools = result.tools;
    envelope.permission_denials = result.permissionDenials;
    envelope.files_changed = result.filesChanged;
    envelope.memory.facts_written = result.memoryWrites;
    if (w.memory && result.terminalReason !== "cancelled") {
      // Only this run's messages: earlier runs of the session were extracted when they ended.
      const start = result.messages.findLastIndex((m) => m.role === "user" && m.content === task);
      // web results are untrusted: never a source of memory facts
      const thisRun = extensions.withoutUntrusted(
        withoutWebResults(start >= 0 ? result.messages.slice(start) : result.messages),
      );
      envelope.memory.facts_written += await w.memory.extract(thisRun, {
        model: opts.model,
        configModel: settings.config.model,
        feature: mode,
        isMock: ref.protocol === "mock" || opts.provider !== undefined,
      });
      await w.memory.scheduleCompaction();
    }
    if (result.permissionDenials.length) ctx.stderr.write(denialSummary(result.permissionDenials));
    if (result.error) {
      const code = result.terminalReason === "cancelled" ? cancelCode(ctx) : result.error.exitCode;
      // `| head` closing stdout is normal shell use: no message (as ask)
      reporter.fail(result.error, code, { quiet: code === EXIT.sigpipe });
      if (result.finalText && opts.format === "text") reporter.print(result.finalText);
      return finish(code);
    }
    if (envelope.result === null)
      reporter.warn("empty_answer", "the model ended the run with an empty final message");
    settle(envelope, "completed");
    if (opts.format === "text") reporter.print(result.finalText);
    return finish(EXIT.ok);
  } catch (error) {
    const failure =
      error instanceof ChatcliError
        ? error
        : new ChatcliError("internal_error", asText(error) || "unexpected error");
    const code = failure.reason === "cancelled" ? cancelCode(ctx) : failure.exitCode;
    reporter.fail(failure, code, { quiet: code === EXIT.sigpipe });
    return finish(code);
  }
}

function cancelCode(ctx: Ctx): number {
  const name = ctx.signalName();
  return name === "SIGTERM" ? EXIT.sigterm : name === "SIGPIPE" ? EXIT.sigpipe : EXIT.sigint;
}
