/**
 * openRun: resolves everything a run needs, once, in one order, for every front end — settings with
 * one workspace-root rule, the input under the stdin rules, the model and the one provider chain,
 * effort, the session, memory, the policy, the sandbox, the extensions, the tools and the system
 * prompt — and says so in `session.started`.
 */
import type { AskRequest } from "../agent/approval.ts";
import { roleBlock } from "../agent/subagent.ts";
import { createTtyAsk } from "../agent/tty-ask.ts";
import { detectWorkspaceRoot } from "../bootstrap/workspace.ts";
import type { Ctx } from "../core/ctx.ts";
import { UsageError } from "../core/errors.ts";
import { readPromptInput } from "../core/input.ts";
import { configuredSecrets } from "../core/redact.ts";
import { knownSecrets } from "../core/secrets.ts";
import { envInt, loadSettings } from "../core/settings.ts";
import { costOf as priceOf } from "../llm/cost.ts";
import { resolveEffort } from "../llm/effort.ts";
import { modelLabel, resolveModel } from "../llm/models.ts";
import type { Usage } from "../llm/types.ts";
import { type Emit, ev } from "../output/events.ts";
import { SCHEMA_VERSION } from "../output/fold.ts";
import { outboundInfo } from "../policy/outbound.ts";
import type { PermissionPolicy } from "../policy/permissions.ts";
import { userSandboxConfig } from "../sandbox/detect.ts";
import { allowReadPaths } from "../sandbox/home.ts";
import { readStopSignal } from "./abort.ts";
import { buildSystemBlocks, costFunction, keepsSession, openRunSession } from "./context.ts";
import { drainWarnings, openRunExtensions } from "./extensions.ts";
import { defaultMemoryAccess, type MemoryAccess, RunMemory } from "./memory.ts";
import { buildPolicy } from "./policy.ts";
import { answeredBy, buildProviderChain } from "./provider.ts";
import { Run, type RunParts } from "./run.ts";
import { checkAllowRead, openRunSandbox } from "./sandbox.ts";
import type { RunSpec, SharedRun } from "./spec.ts";
import { buildToolSet, runRoles } from "./tools.ts";

/** CHATCLI_AGENT_PLUGIN_MAX_TURNS: unset/invalid/≤0 → 50, >200 → 200. */
export function defaultMaxTurns(env: Ctx["env"]): number {
  const n = envInt(env, "CHATCLI_AGENT_PLUGIN_MAX_TURNS", 50);
  return n <= 0 ? 50 : Math.min(n, 200);
}

export interface OpenOptions {
  /** Secret values the run learned (keys from .env and config): redact them from JSON. */
  onSecrets?(values: string[]): void;
  /** The REPL's session and provider chain, reused by every operation it opens. */
  shared?: SharedRun;
  /** The input of a run whose caller already has it (the REPL's line). */
  input?: string;
}

/** Opens a run; its events (warnings, session.started) go to `emit`. Throws ChatcliError. */
export async function openRun(
  ctx: Ctx,
  spec: RunSpec,
  emit: Emit,
  options: OpenOptions = {},
): Promise<Run> {
  const warn = (w: { code: string; message: string }) => emit(ev("warning", w));
  const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
  const ttyAsk = !spec.ask && spec.interactive ? createTtyAsk(ctx) : undefined;
  const settings = await loadSettings(ctx, {
    workspaceRoot,
    trustWorkspace: spec.trustWorkspace,
    // on a terminal, an untrusted workspace with settings to ignore is asked about once
    askTrust: ttyAsk?.trust,
  });
  const env = settings.env;
  options.onSecrets?.(configuredSecrets(settings.redactEnv));
  for (const w of settings.warnings) warn(w);
  const tools = spec.mode !== "ask";
  // the paths the user opened in HOME (never a workspace's): the policy's protected paths lift them too
  const allowRead = tools
    ? allowReadPaths(
        [...checkAllowRead(spec.allowRead ?? []), ...(await userSandboxConfig(ctx.env)).allowRead],
        ctx.env,
      )
    : [];
  const base = tools
    ? buildPolicy({
        env,
        config: settings.config,
        workspaceRoot,
        cwd: ctx.cwd,
        flag: spec.permissionMode,
        allowTool: spec.allowTool,
        denyTool: spec.denyTool,
        onAsk: spec.onAsk,
        allowRead,
        // keys from the process env, the user's config and the workspace's files alike
        secrets: knownSecrets({ ...settings.redactEnv, ...ctx.env }),
      })
    : undefined;
  const access = (
    spec.bare ? "off" : (spec.memory ?? defaultMemoryAccess(env, spec.interactive))
  ) as MemoryAccess;
  if (!["off", "read", "write"].includes(access))
    throw new UsageError("--memory must be off, read or write");
  // `-m` wins over a role's and a skill's model: a bad one is exit 3 before stdin is waited for
  const flagRef =
    spec.model !== undefined && !options.shared
      ? resolveModel(spec.model, env, settings.config.model)
      : undefined;
  const input = options.input ?? (await readInput(ctx, spec, warn));
  // `agent @role TASK` runs an AGENTS.md role directly: its instructions, tools, model, read_only
  const roles = tools
    ? runRoles(env, workspaceRoot, input, {
        bare: spec.bare === true,
        trusted: settings.trust.trusted,
        maxTurns: defaultMaxTurns(env),
      })
    : undefined;
  for (const w of roles?.warnings ?? []) warn(w);
  const direct = roles?.direct;
  if (direct && !direct.task) throw new UsageError(`@${direct.role.name} needs a task after it`);
  const task = direct ? direct.task : input;
  const extensions =
    spec.extensions ??
    (await openRunExtensions({
      ctx,
      env,
      workspaceRoot,
      trusted: settings.trust.trusted,
      bare: spec.bare === true,
      mcpConfig: spec.mcpConfig,
      strictMcpConfig: spec.strictMcpConfig,
      enabled: tools && !options.shared,
    }));
  // the skills the task activates: their bodies for the prompt; their allowed-tools, model, effort
  const skillBlocks = extensions.contextFor(task, spec.files ?? []);
  const skills = extensions.skillEffects({ effort: spec.effort ?? env["CHATCLI_EFFORT"] });
  drainWarnings(extensions, emit);
  // the servers start now, while the rest is resolved
  const extensionTools = tools ? extensions.tools() : Promise.resolve([]);
  const memory =
    access === "off"
      ? undefined
      : new RunMemory({
          ctx,
          env,
          redactEnv: settings.redactEnv,
          workspace: workspaceRoot,
          access,
          emit,
        });
  const policyFor = (d: typeof direct) =>
    base && d?.role.readOnly ? { ...base.policy, mode: "read-only" as const } : base?.policy;
  if (base)
    for (const w of base.warnings.filter((w) => w.code === "config_bypass_ignored")) warn(w);
  // The process env only: a checkout's .env or config does not choose its own sandbox.
  const mode = policyFor(direct)?.mode;
  // the proxy also refuses the secrets of the user's config and the workspace's files
  const sandboxFlags = { ...spec, secretEnv: settings.redactEnv };
  const sandbox = mode
    ? await openRunSandbox(ctx, sandboxFlags, mode, workspaceRoot, emit)
    : undefined;
  const ref =
    flagRef ??
    (options.shared && !direct?.role.model
      ? options.shared.ref
      : resolveModel(direct?.role.model ?? skills.model, env, settings.config.model));
  const effort = resolveEffort(spec.effort ?? skills.effort, env);
  function chainOptions() {
    return {
      env,
      fetch: ctx.fetch,
      fakeResponsesPath: spec.fakeResponses,
      maxRetries: spec.maxRetries,
      // a context that brings its own sleep (a virtual clock) brings the now it advances
      ...(ctx.sleep ? { sleep: ctx.sleep, now: () => ctx.now().getTime() } : {}),
      emit: (e: Parameters<Emit>[0]) => (run ? run.emit(e) : emit(e)),
    };
  }
  let run: Run | undefined;
  const provider =
    options.shared?.provider ??
    (await buildProviderChain(ref, { ...chainOptions(), primary: spec.provider }));
  let policy: PermissionPolicy | undefined;
  let toolSet: ReturnType<typeof buildToolSet> | undefined;
  if (roles && base) {
    toolSet = buildToolSet(
      {
        env,
        mode: spec.mode === "coder" ? "coder" : "agent",
        roles,
        memory: access !== "off",
        extensionTools: await extensionTools,
        skills,
        attended: spec.ask !== undefined || spec.interactive,
        providerFor: async (model) => {
          const r = resolveModel(model, env, undefined);
          const p = await buildProviderChain(r, chainOptions());
          const price = costFunction(r) && ((u: Usage) => priceOf(answeredBy(p), u));
          return { provider: p, model: modelLabel(r), costOf: price };
        },
      },
      (d) => policyFor(d) ?? base.policy,
    );
    drainWarnings(extensions, emit);
    policy = toolSet.policy;
  }
  const sessionSpec = spec.session ?? {};
  const session =
    options.shared?.session ??
    (await openRunSession(
      { ...ctx, env, redactEnv: settings.redactEnv },
      workspaceRoot,
      sessionSpec,
    ));
  for (const w of session.warnings) warn(w);
  const keep = options.shared ? true : keepsSession(env, sessionSpec);
  const system = await buildSystemBlocks({
    env,
    cwd: ctx.cwd,
    now: ctx.now,
    mode: spec.mode,
    input: task,
    extraSystem: spec.system,
    files: spec.files ?? [],
    bare: spec.bare === true,
    ref,
    ...(memory ? { memory } : {}),
    // after tools(): whether MCP tools are deferred (and so listed by server) is known only then
    extensionBlocks: extensions.systemBlocks(),
    extensionContext: skillBlocks,
  });
  for (const w of system.warnings) warn(w);
  const label = modelLabel(ref);
  // priced per request by the model that answered it (a fallback's price after a fallback)
  const costOf = costFunction(ref) && ((u: Usage) => priceOf(answeredBy(provider), u));
  if (!costOf)
    warn({
      code: "unpriced_model",
      message: `no price known for ${label}; total_cost_usd is null${spec.maxBudgetUsd !== undefined ? " and --max-budget-usd cannot be enforced" : ""}`,
    });
  const maxTurns = tools ? (spec.maxTurns ?? direct?.role.maxTurns ?? defaultMaxTurns(env)) : 1;
  const memoryInfo = {
    mode: access === "off" ? "off" : (memory?.mode ?? "off"),
    access,
    facts_loaded: memory?.factsLoaded ?? 0,
    facts_written: 0,
  };
  emit(
    ev("session.started", {
      schema_version: SCHEMA_VERSION,
      chatcli_version: ctx.version,
      command: spec.command,
      session_id: keep || tools ? session.name : null,
      model: label,
      cwd: ctx.cwd,
      workspace: workspaceRoot,
      permission_mode: policy?.mode ?? null,
      workspace_trust: tools ? settings.trust : null,
      role: direct?.role.name ?? null,
      tools: toolSet?.offered ?? [],
      bootstrap_files: system.bootstrapFiles,
      memory: memoryInfo,
      sandbox: sandbox?.info ?? null,
      outbound:
        toolSet && policy
          ? outboundInfo(
              policy.mode,
              policy.allow,
              toolSet.tools.filter((t) => t.kind === "network").map((t) => t.name),
            )
          : null,
      mcp_servers: extensions.servers().map((m) => ({ ...m, error: m.error ?? null })),
      limits: {
        max_turns: tools ? maxTurns : null,
        max_budget_usd: spec.maxBudgetUsd ?? null,
        timeout_ms: spec.timeoutMs ?? null,
        max_tokens: spec.maxTokens ?? null,
      },
    }),
  );
  if (base)
    for (const w of base.warnings.filter((w) => w.code !== "config_bypass_ignored")) warn(w);
  if (policy?.mode === "bypass")
    warn({
      code: "bypass_mode",
      message: "--permission-mode bypass: every tool call is allowed, including dangerous ones",
    });
  const parts: RunParts = {
    ctx,
    spec,
    env,
    config: settings.config,
    workspaceRoot,
    ref,
    label,
    provider,
    effort,
    session,
    keep,
    memory,
    access,
    extensions,
    input: task,
    system: direct ? [...system.blocks, roleBlock(direct.role, true)] : system.blocks,
    ...(toolSet && policy ? { toolSet, policy } : {}),
    ...(sandbox ? { sandbox } : {}),
    maxTurns,
    ...(costOf ? { costOf } : {}),
    ...(spec.ask || ttyAsk
      ? { ask: spec.ask ?? (ttyAsk as (r: AskRequest) => Promise<boolean>) }
      : {}),
  };
  run = new Run(parts, emit);
  return run;
}

async function readInput(
  ctx: Ctx,
  spec: RunSpec,
  warn: (w: { code: string; message: string }) => void,
): Promise<string> {
  const input = spec.input;
  if (!input) return "";
  // SIGINT/SIGTERM and --timeout also end a wait on a producer that never closes stdin
  const stop = readStopSignal(ctx, spec.timeoutMs);
  const { text, warnings } = await readPromptInput(ctx.stdin, input.prompt, {
    noStdin: input.noStdin,
    firstByteTimeoutMs: input.firstByteTimeoutMs,
    maxBytes: input.maxBytes,
    truncate: input.truncate,
    what: input.what ?? "prompt",
    signal: stop.signal,
  }).finally(() => stop.dispose());
  for (const w of warnings) warn(w);
  return text;
}
