import { defaultMaxTurns } from "../agent/headless.ts";
import { runAgent } from "../agent/loop.ts";
import { loadRoles, roleOfTask } from "../agent/roles.ts";
import { openRunSandbox } from "../agent/run-sandbox.ts";
import { addSubagentTotals, roleBlock, subagentTools } from "../agent/subagent.ts";
import { createDelegation, DELEGATE_ALIAS, delegationEnabled } from "../agent/tools/delegate.ts";
import { toolsFor } from "../agent/tools/registry.ts";
import type { AgentInput, MemoryBackend } from "../agent/types.ts";
import * as wiring from "../agent/wiring.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import { knownSecrets } from "../core/secrets.ts";
import type { Session } from "../history/session.ts";
import { costOf } from "../llm/cost.ts";
import { type ModelRef, modelLabel } from "../llm/models.ts";
import type { ChatMessage, Effort, Provider } from "../llm/types.ts";
import { stripControl } from "../output/terminal.ts";
import { type PermissionMode, resolvePermissionMode } from "../policy/permissions.ts";
import { protectedPaths } from "../policy/protected-paths.ts";
import { alwaysScope, approvalDetail, commandOutputPreview } from "./approval-preview.ts";
import type { SessionBinding } from "./live-binding.ts";
import { replReporter } from "./live-sink.ts";
import type { AgentCallbacks, TurnResult } from "./services.ts";

export interface LiveAgentInput {
  ctx: Ctx;
  env: Env;
  config: { permissions?: { allow?: string[]; deny?: string[]; mode?: string } };
  workspaceRoot: string;
  binding: SessionBinding;
  ref: ModelRef;
  provider: Provider;
  memory?: MemoryBackend;
  memoryMode: "off" | "read" | "write";
  effort?: Effort;
  /** Whether the workspace is trusted: an untrusted AGENTS.md's roles only narrow. */
  trusted?: boolean;
}

/**
 * `/agent` and `/coder` in the REPL: the one agent loop, on the session's unified history, with a
 * checkpoint per request, file snapshots, compaction, and the policy's asks sent to the human.
 * The conversation gets the run's messages when it ends; a run that is cancelled or fails leaves
 * it as it was (the loop's per-request hooks write into the session as it goes).
 */
export async function runReplAgent(
  input: LiveAgentInput,
  mode: "agent" | "coder",
  task: string,
  callbacks: AgentCallbacks,
  signal: AbortSignal,
): Promise<TurnResult> {
  const { binding } = input;
  const before = [...binding.session.messages];
  // One checkpoint per user turn, named by what was typed: the loop's per-request checkpoints are
  // off here, and files the run changes are snapshotted into this one.
  const checkpoint = await binding.checkpoint(`/${mode} ${task}`);
  try {
    const result = await runLoop(input, binding.session, mode, task, callbacks, signal);
    binding.session.replaceTurns(result.messages);
    await binding.persist();
    await binding.refresh();
    return result;
  } catch (error) {
    binding.session.replaceMessages(before);
    // A run that changed no file leaves no checkpoint; one that did keeps it, to rewind the code.
    await binding.session.dropCheckpointIfUnused(checkpoint).catch(() => {});
    await binding.refresh();
    throw error;
  }
}

async function runLoop(
  input: LiveAgentInput,
  session: Session,
  mode: "agent" | "coder",
  task: string,
  callbacks: AgentCallbacks,
  signal: AbortSignal,
): Promise<TurnResult & { messages: ChatMessage[] }> {
  const { ctx, env } = input;
  const reporter = replReporter(ctx, mode, callbacks.onActivity, (type, data) => {
    const shell = data["name"] === "run_command" || data["name"] === "run_tests";
    if (!shell || !callbacks.onCommand) return;
    if (type === "tool.started") {
      const input = data["input"] as Record<string, unknown> | undefined;
      const cmd = typeof input?.["cmd"] === "string" ? input["cmd"] : String(data["name"]);
      callbacks.onCommand(stripControl(cmd));
    } else if (type === "tool.completed") {
      callbacks.onCommand(undefined);
      // what the command printed (its last lines), not only "→ exit 0"
      if (data["status"] !== "denied")
        for (const line of commandOutputPreview(String(data["output"] ?? "")))
          callbacks.onActivity(line);
    }
  });
  const w: wiring.WiringContext = {
    env,
    cwd: ctx.cwd,
    now: ctx.now,
    workspaceRoot: input.workspaceRoot,
    mode,
    task,
    files: [],
    bare: false,
    memoryMode: input.memoryMode,
    sessionName: session.name ?? undefined,
    ephemeral: session.ephemeral,
    session,
    ref: input.ref,
    provider: input.provider,
    checkpointPerRequest: false,
  };
  const { blocks } = await wiring.buildSystemBlocks(w);
  // the same rule as `chatcli agent`: a config file's bypass becomes auto, an unknown mode read-only
  const resolved = resolvePermissionMode(undefined, input.config.permissions?.mode);
  if ("warning" in resolved && resolved.warning)
    reporter.warn("config_bypass_ignored", resolved.warning);
  // `/agent @dba …` runs an AGENTS.md role; the delegate tool offers every role to the model
  const roles = loadRoles(env, input.workspaceRoot, false, {
    trusted: input.trusted === true,
    maxTurns: defaultMaxTurns(env),
  }).roles;
  const direct = roleOfTask(task, roles);
  const delegation = createDelegation(roles);
  const all = [
    ...toolsFor(mode, { memory: input.memoryMode !== "off", env }),
    ...(delegationEnabled(env, roles) ? delegation.tools : []),
  ];
  const tools = subagentTools(all, { role: direct?.role }).tools;
  const permissionMode: PermissionMode =
    "error" in resolved || direct?.role.readOnly ? "read-only" : resolved.mode;
  // the same OS sandbox as `chatcli agent` (CHATCLI_SANDBOX from the process env)
  const sandbox = await openRunSandbox(ctx, {}, permissionMode, input.workspaceRoot, reporter);
  const agentInput: AgentInput = {
    provider: input.provider,
    model: modelLabel(input.ref),
    mode,
    effort: input.effort,
    task: direct?.task || task,
    history: session.messages.filter((m) => m.role !== "system"),
    system: direct ? [...blocks, roleBlock(direct.role, true)] : blocks,
    tools,
    offered: tools.map((t) => t.name).filter((n) => n !== DELEGATE_ALIAS),
    policy: {
      mode: permissionMode,
      allow: input.config.permissions?.allow ?? [],
      deny: input.config.permissions?.deny ?? [],
      onAsk: "deny",
      workspaceRoot: input.workspaceRoot,
      cwd: ctx.cwd,
      home: env["HOME"],
      denylist: env["CHATCLI_AGENT_DENYLIST"],
      protectedPaths: protectedPaths(env, input.config),
      secrets: knownSecrets({ ...env, ...ctx.env }),
    },
    limits: { maxTurns: direct?.role.maxTurns ?? defaultMaxTurns(env) },
    costOf: (usage) => costOf(input.ref, usage),
    hooks: wiring.agentHooks(w, reporter),
    reporter,
    signal,
    workspaceRoot: input.workspaceRoot,
    cwd: ctx.cwd,
    env,
    fetch: ctx.fetch,
    now: ctx.now,
    ask: (request) => {
      const args = request.args ?? {};
      const scope = request.dangerous ? undefined : alwaysScope(request.tool, args);
      return callbacks.approve({
        tool: request.tool,
        summary: request.tool === "run_command" ? "" : stripControl(request.input),
        detail: approvalDetail({ tool: request.tool, args, cwd: ctx.cwd, reason: request.reason }),
        dangerous: request.dangerous,
        alwaysLabel: scope,
        alwaysKey: scope,
      });
    },
    memory: input.memory,
    memoryMode: input.memoryMode,
    scratchDir: wiring.scratchDirFor(w),
    sandbox,
  };
  delegation.bind(agentInput);
  const result = await runAgent(agentInput).finally(() => sandbox.dispose());
  if (signal.aborted) throw new Error("cancelled");
  const text = stripControl(result.finalText);
  if (text) callbacks.onText(text);
  // "blocked" is the human's own answers here: the denial lines said it already
  if (
    result.error &&
    result.terminalReason !== "completed" &&
    result.terminalReason !== "blocked"
  ) {
    callbacks.onActivity(`⚠ ${result.error.message}`);
  }
  const usage = addSubagentTotals(result.usage, null, delegation.records).usage;
  const requests = result.numTurns + delegation.records.reduce((n, r) => n + r.turns, 0);
  return { text, usage, requests, messages: result.messages };
}
