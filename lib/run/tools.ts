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
import type { ExtensionTool } from "../extensions/types.ts";
import type { ChatMessage } from "../llm/types.ts";
import type { PermissionPolicy } from "../policy/permissions.ts";

/** An extension's tool as an agent tool: MCP tools are an outbound channel the policy judges. */
export function extensionTool(t: ExtensionTool): Tool {
  return {
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
    kind: t.origin === "mcp" ? "network" : "read",
    subject: () => t.name,
    async execute(args, ctx) {
      const r = await t.call(args, ctx.signal);
      return { output: r.output, ...(r.isError ? { isError: true } : {}) };
    },
  };
}

export interface ToolSetInput {
  env: Env;
  workspaceRoot: string;
  mode: "agent" | "coder";
  task: string;
  bare: boolean;
  memory: boolean;
  extensionTools: ExtensionTool[];
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
  roleWarnings: Array<{ code: string; message: string }>;
  delegation: ReturnType<typeof createDelegation>;
  /** Tools whose results are untrusted content (never a source of memory facts). */
  untrusted: Set<string>;
}

/** The tool set; `policyFor` gives the policy after a direct role narrowed the mode. */
export function buildToolSet(
  input: ToolSetInput,
  policyFor: (direct: ToolSet["direct"]) => PermissionPolicy,
): ToolSet & { policy: PermissionPolicy } {
  const roleSet = loadRoles(input.env, input.workspaceRoot, input.bare);
  const direct = roleOfTask(input.task, roleSet.roles);
  const delegation = createDelegation(roleSet.roles, input.providerFor);
  const extension = input.extensionTools.map(extensionTool);
  const all = [
    ...toolsFor(input.mode, { memory: input.memory, env: input.env }),
    ...extension,
    ...(delegationEnabled(input.env, roleSet.roles) ? delegation.tools : []),
  ];
  // a role run directly keeps its tools only (read_only: no edit tools)
  const tools = subagentTools(all, { role: direct?.role }).tools;
  const policy = policyFor(direct ?? undefined);
  const offered = offeredTools(tools, { ...policy, attended: input.attended })
    .map((t) => t.name)
    .filter((name) => name !== DELEGATE_ALIAS);
  const untrusted = new Set(
    input.extensionTools.filter((t) => t.untrustedOutput).map((t) => t.name),
  );
  return {
    tools,
    offered,
    ...(direct ? { direct } : {}),
    roleWarnings: roleSet.warnings,
    delegation,
    untrusted,
    policy,
  };
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
