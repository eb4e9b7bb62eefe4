/**
 * The tools of one run: the mode's set, `delegate` when AGENTS.md has roles, the extensions' tools
 * (MCP) wrapped as agent tools the policy judges, narrowed by a role run directly, and the subset
 * offered to the model (the same filter for `chatcli agent` and the REPL's /agent).
 */
import { loadRoles, type Role, roleOfTask } from "../agent/roles.ts";
import { subagentTools } from "../agent/subagent.ts";
import { createDelegation, DELEGATE_ALIAS, delegationEnabled } from "../agent/tools/delegate.ts";
import { offeredTools, toolsFor } from "../agent/tools/registry.ts";
import { withoutWebResults } from "../agent/tools/web-search.ts";
import type { AgentInput, Tool } from "../agent/types.ts";
import type { Env } from "../core/ctx.ts";
import type { ExtensionTool, SkillEffects } from "../extensions/types.ts";
import type { ChatMessage } from "../llm/types.ts";
import type { PermissionPolicy } from "../policy/permissions.ts";

/**
 * An extension's tool as an agent tool: MCP tools are an outbound channel the policy judges (by the
 * tool's name; every string of the arguments is checked for secrets), the `skill` tool a read.
 */
export function extensionTool(t: ExtensionTool): Tool {
  return {
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
    kind: t.origin === "mcp" ? "network" : "read",
    ...(t.aliases ? { aliases: t.aliases } : {}),
    ...(t.untrustedOutput ? { untrustedOutput: true } : {}),
    subject: (args) => JSON.stringify(args),
    async execute(args, ctx) {
      const r = await t.call(args, ctx.signal);
      return { output: r.output, ...(r.isError ? { isError: true } : {}) };
    },
  };
}

/** The AGENTS.md roles of a run and the one `agent @role TASK` runs directly. */
export interface RunRoles {
  roles: Role[];
  direct?: { role: Role; task: string };
  warnings: Array<{ code: string; message: string }>;
}

/**
 * Roles from AGENTS.md; an untrusted workspace's only narrow (no `model:`, no `max_turns:` above the
 * user's default — each drop a warning).
 */
export function runRoles(
  env: Env,
  workspaceRoot: string,
  input: string,
  options: { bare: boolean; trusted: boolean; maxTurns: number },
): RunRoles {
  const roleSet = loadRoles(env, workspaceRoot, options.bare, {
    trusted: options.trusted,
    maxTurns: options.maxTurns,
  });
  const direct = roleOfTask(input, roleSet.roles);
  return { roles: roleSet.roles, ...(direct ? { direct } : {}), warnings: roleSet.warnings };
}

export interface ToolSetInput {
  env: Env;
  mode: "agent" | "coder";
  roles: RunRoles;
  memory: boolean;
  /** Every extension tool (the deferred ones run when called, and are offered once found). */
  extensionTools: ExtensionTool[];
  /** What the skills the task activated change: allow rules, and an untrusted skill's narrowing. */
  skills: Pick<SkillEffects, "allow" | "only">;
  /** A person can answer an ask (a TTY, or an injected answerer). */
  attended: boolean;
  providerFor?: Parameters<typeof createDelegation>[1];
}

export interface ToolSet {
  tools: Tool[];
  /** Names sent to the model (the others still go through the policy when called anyway). */
  offered: string[];
  /** `agent @role TASK`: the role run directly, and the task after it. */
  direct?: { role: Role; task: string };
  delegation: ReturnType<typeof createDelegation>;
  /** Tools whose results are untrusted content (never a source of memory facts). */
  untrusted: Set<string>;
}

/**
 * The tool set; `policyFor` gives the policy after a direct role narrowed the mode (the skills'
 * allow rules join it).
 */
export function buildToolSet(
  input: ToolSetInput,
  policyFor: (direct: ToolSet["direct"]) => PermissionPolicy,
): ToolSet & { policy: PermissionPolicy } {
  const { roles, direct } = input.roles;
  const delegation = createDelegation(roles, input.providerFor);
  const extension = input.extensionTools.map(extensionTool);
  const all = [
    ...toolsFor(input.mode, { memory: input.memory, env: input.env }),
    ...extension,
    ...(delegationEnabled(input.env, roles) ? delegation.tools : []),
  ];
  // a role run directly keeps its tools only (read_only: no edit tools); an untrusted skill's
  // allowed-tools only narrow
  const only = input.skills.only;
  const tools = subagentTools(all, { role: direct?.role }).tools.filter(
    (t) => !only || only.includes(t.name),
  );
  const base = policyFor(direct);
  const policy = input.skills.allow.length
    ? { ...base, allow: [...base.allow, ...input.skills.allow] }
    : base;
  const deferred = new Set(input.extensionTools.filter((t) => t.deferred).map((t) => t.name));
  const offered = offeredTools(tools, { ...policy, attended: input.attended })
    .map((t) => t.name)
    .filter((name) => name !== DELEGATE_ALIAS && !deferred.has(name));
  const untrusted = new Set<string>();
  for (const t of input.extensionTools) trustOf(t, untrusted);
  return {
    tools,
    offered,
    ...(direct ? { direct } : {}),
    delegation,
    untrusted,
    policy,
  };
}

/** Adds an untrusted extension tool's names (its aliases too) to `untrusted`. */
export function trustOf(t: ExtensionTool, untrusted: Set<string>): void {
  if (!t.untrustedOutput) return;
  untrusted.add(t.name);
  for (const a of t.aliases ?? []) untrusted.add(a);
}

/** This run's messages, without untrusted results (web pages, MCP tools): the memory extractor's input. */
export function extractable(
  messages: readonly ChatMessage[],
  task: string,
  untrusted: ReadonlySet<string>,
): ChatMessage[] {
  // Only this run's messages: earlier runs of the session were extracted when they ended.
  const start = messages.findLastIndex((m) => m.role === "user" && m.content === task);
  const own = withoutWebResults(start >= 0 ? messages.slice(start) : messages);
  const ids = new Set<string>();
  for (const m of own) for (const c of m.tool_calls ?? []) if (untrusted.has(c.name)) ids.add(c.id);
  return own.filter((m) => !(m.role === "tool" && m.tool_call_id && ids.has(m.tool_call_id)));
}

export type { AgentInput };
