/**
 * Sub-agents: a fresh runAgent loop with an isolated context (the task the parent wrote plus the
 * role's instructions; none of the parent's history), a tool subset no wider than the parent's, the
 * parent's permission policy (read_only narrows it, nothing widens it) and its own turn limit.
 */
import { resolve } from "node:path";
import type { Usage } from "../llm/types.ts";
import { addUsage, emptyUsage } from "../llm/types.ts";
import { ev } from "../output/events.ts";
import type { PermissionPolicy } from "../policy/permissions.ts";
import { runAgent } from "./loop.ts";
import type { Role } from "./roles.ts";
import type { AgentInput, AgentResult, FileChange, Tool } from "./types.ts";

/** Turns a sub-agent gets when neither the call nor its role says (never more than the parent's). */
export const SUBAGENT_DEFAULT_MAX_TURNS = 20;

/** One sub-agent run, as the envelope's `subagents` list shows it. */
export interface SubagentRecord {
  id: string;
  role: string | null;
  description: string | null;
  model: string;
  turns: number;
  usage: Usage;
  total_tokens: number;
  cost_usd: number | null;
  status: "success" | "error";
  terminal_reason: AgentResult["terminalReason"];
  files_changed: AgentResult["filesChanged"];
  permission_denials: AgentResult["permissionDenials"];
}

/** What a sub-agent inherits from its parent run (headless builds it once per run). */
export interface SubagentDeps {
  /** The parent's run input: provider, system, policy, limits, env, hooks… */
  parent: Omit<AgentInput, "task" | "history" | "tools" | "offered">;
  /** The tools the parent was offered (delegate itself excluded): the widest a sub-agent gets. */
  tools: Tool[];
  roles: Role[];
  /** A provider for a role's `model:` line (undefined: the parent's is used). */
  providerFor?: (model: string) => Promise<Pick<AgentInput, "provider" | "model" | "costOf">>;
  /** Every sub-agent run of the parent, in completion order. */
  records: SubagentRecord[];
  /** Parallel sub-agents ask the human one at a time (the tail of the queue of questions). */
  asking?: Promise<unknown>;
  /** Turns held by sub-agents still running (their caps), so parallel ones share what is left. */
  turnsHeld?: number;
}

/** A delegate call refused before any sub-agent ran (no turns or budget left). */
export class SubagentRefused extends Error {}

/**
 * A sub-agent's cap: the smallest of the model's `max_turns`, the role's, the default when neither
 * says, and what the parent has left — its remaining turns less those earlier sub-agents used and
 * parallel ones hold. A model cannot raise any of them.
 */
export function subagentMaxTurns(
  deps: Pick<SubagentDeps, "parent" | "records" | "turnsHeld">,
  request: Pick<SubagentRequest, "maxTurns" | "role" | "parentLeft">,
): number {
  const asked = [request.maxTurns, request.role?.maxTurns].filter(
    (n): n is number => typeof n === "number" && Number.isFinite(n) && n >= 1,
  );
  const used = deps.records.reduce((n, r) => n + r.turns, 0);
  const left =
    (request.parentLeft?.turns ?? deps.parent.limits.maxTurns) - used - (deps.turnsHeld ?? 0);
  return Math.floor(
    Math.min(
      ...(asked.length ? asked : [SUBAGENT_DEFAULT_MAX_TURNS]),
      deps.parent.limits.maxTurns,
      left,
    ),
  );
}

export interface SubagentRequest {
  id: string;
  task: string;
  role?: Role;
  description?: string;
  tools?: string[];
  readOnly?: boolean;
  maxTurns?: number;
  /** What the parent has left when the call is made (ToolContext.left). */
  parentLeft?: { turns: number; spentUsd: number | null };
  signal: AbortSignal;
}

export interface SubagentOutcome {
  result: AgentResult;
  record: SubagentRecord;
  /** Absolute paths, for the parent's files_changed. */
  filesChanged: FileChange[];
}

/** The tools of a sub-agent: the parent's, narrowed by the role, by the call, and by read_only. */
export function subagentTools(
  parentTools: readonly Tool[],
  request: Pick<SubagentRequest, "role" | "tools" | "readOnly">,
): { tools: Tool[]; unknown: string[] } {
  let tools = [...parentTools];
  const unknown: string[] = [];
  for (const subset of [request.role?.tools, request.tools]) {
    if (!subset) continue;
    for (const name of subset) if (!parentTools.some((t) => t.name === name)) unknown.push(name);
    tools = tools.filter((t) => subset.includes(t.name));
  }
  if (readOnlyOf(request)) tools = tools.filter((t) => t.kind !== "edit");
  return { tools, unknown: [...new Set(unknown)] };
}

function readOnlyOf(request: Pick<SubagentRequest, "role" | "readOnly">): boolean {
  return request.role?.readOnly === true || request.readOnly === true;
}

/** read_only: the read-only mode and no allow rules; otherwise exactly the parent's policy. */
export function subagentPolicy(parent: PermissionPolicy, readOnly: boolean): PermissionPolicy {
  return readOnly ? { ...parent, mode: "read-only", allow: [] } : parent;
}

/** The system block that tells a sub-agent what it is (appended to the parent's stable blocks). */
export function roleBlock(
  role: Role | undefined,
  direct: boolean,
): { id: string; text: string; cache: boolean } {
  const name = role ? `@${role.name}` : "a sub-agent";
  const head = direct
    ? `## Role ${name}\n\nYou act as ${name} for this task.`
    : `## Sub-agent ${name}\n\nYou are ${name}, started by the main agent for one task. You see only this task, not the main conversation. Do it with your tools, then reply with a final answer for the main agent: concise and self-contained (paths, line numbers, findings, results). Your final message is all it receives.`;
  return {
    id: "role",
    text: role?.instructions ? `${head}\n\n${role.instructions}` : head,
    cache: true,
  };
}

/** The parent's TTY question, one at a time across parallel sub-agents. */
function serialAsk(
  deps: SubagentDeps,
  ask: NonNullable<AgentInput["ask"]>,
): NonNullable<AgentInput["ask"]> {
  return (request) => {
    const turn = (deps.asking ?? Promise.resolve()).then(() => ask(request));
    deps.asking = turn.catch(() => undefined);
    return turn;
  };
}

/** Runs one sub-agent to its end; never throws for what the sub-agent does (its error is in the result). */
export async function runSubagent(
  deps: SubagentDeps,
  request: SubagentRequest,
): Promise<SubagentOutcome> {
  const { parent } = deps;
  const readOnly = readOnlyOf(request);
  const { tools } = subagentTools(deps.tools, request);
  const model =
    request.role?.model && deps.providerFor
      ? await deps.providerFor(request.role.model)
      : undefined;
  const maxTurns = subagentMaxTurns(deps, request);
  if (maxTurns < 1)
    throw new SubagentRefused(
      `no turns left for a sub-agent under --max-turns ${parent.limits.maxTurns} (the parent and earlier sub-agents used them); finish with what you have`,
    );
  // --max-budget-usd: what the parent and earlier sub-agents of the run spent is gone for this one
  const spent =
    deps.records.reduce((n, r) => n + (r.cost_usd ?? 0), 0) + (request.parentLeft?.spentUsd ?? 0);
  const budget = parent.limits.maxBudgetUsd;
  if (budget !== undefined && spent >= budget)
    throw new SubagentRefused(
      `no budget left for a sub-agent: $${spent.toFixed(4)} of --max-budget-usd ${budget} spent`,
    );
  deps.turnsHeld = (deps.turnsHeld ?? 0) + maxTurns;
  try {
    return await runHeld(deps, request, { maxTurns, budget, spent, readOnly, tools, model });
  } finally {
    deps.turnsHeld = (deps.turnsHeld ?? 0) - maxTurns;
  }
}

async function runHeld(
  deps: SubagentDeps,
  request: SubagentRequest,
  held: {
    maxTurns: number;
    budget: number | undefined;
    spent: number;
    readOnly: boolean;
    tools: Tool[];
    model: Pick<AgentInput, "provider" | "model" | "costOf"> | undefined;
  },
): Promise<SubagentOutcome> {
  const { parent } = deps;
  const { maxTurns, budget, spent, readOnly, tools, model } = held;
  parent.emit(
    ev("subagent.started", {
      parent_id: request.id,
      role: request.role?.name ?? null,
      description: request.description ?? null,
      model: model?.model ?? parent.model,
      tools: tools.map((t) => t.name),
      read_only: readOnly,
      max_turns: maxTurns,
    }),
  );
  const result = await runAgent({
    ...parent,
    ...(model ?? {}),
    task: request.task,
    history: [],
    system: [...parent.system, roleBlock(request.role, false)],
    tools,
    offered: tools.map((t) => t.name),
    policy: subagentPolicy(parent.policy, readOnly),
    // the parent's --timeout already bounds it (its signal); a fresh timer would outlive it
    limits: {
      maxTurns,
      maxBudgetUsd: budget === undefined ? undefined : Math.max(0, budget - spent),
      timeoutMs: undefined,
    },
    // no checkpoints or compaction of the parent's session: only its file snapshots (rewind)
    hooks: { beforeFileChange: parent.hooks?.beforeFileChange },
    // tools an extension finds later join the parent's loop (a sub-agent's set is fixed at its start)
    moreTools: undefined,
    parentId: request.id,
    // its events go to the parent's stream with its id; its deltas are not shown
    liveDeltas: false,
    signal: request.signal,
    memoryMode: parent.memoryMode === "write" ? "read" : parent.memoryMode,
    ask: parent.ask && serialAsk(deps, parent.ask),
  });
  const usage = addUsage(emptyUsage(), result.usage);
  const record: SubagentRecord = {
    id: request.id,
    role: request.role?.name ?? null,
    description: request.description ?? null,
    model: model?.model ?? parent.model,
    turns: result.numTurns,
    usage,
    total_tokens: usage.input_tokens + usage.output_tokens,
    cost_usd: result.costUsd,
    status: result.error ? "error" : "success",
    terminal_reason: result.terminalReason,
    files_changed: result.filesChanged,
    permission_denials: result.permissionDenials,
  };
  deps.records.push(record);
  parent.emit(
    ev("subagent.completed", {
      parent_id: request.id,
      role: record.role,
      description: record.description,
      model: record.model,
      status: record.status,
      terminal_reason: record.terminal_reason,
      turns: record.turns,
      usage: record.usage,
      total_tokens: record.total_tokens,
      cost_usd: record.cost_usd,
      files_changed: record.files_changed,
      permission_denials: record.permission_denials,
      error: result.error ? { code: result.error.code, message: result.error.message } : null,
    }),
  );
  const filesChanged = result.filesChanged.map((f) => ({
    path: resolve(parent.workspaceRoot, f.path),
    change: f.change,
  }));
  return { result, record, filesChanged };
}

/** The sub-agents' usage and cost added into the parent's (null stays null: unpriced somewhere). */
export function addSubagentTotals(
  usage: Usage,
  cost: number | null,
  records: readonly SubagentRecord[],
): { usage: Usage; cost: number | null } {
  let u = usage;
  let c = cost;
  for (const r of records) {
    u = addUsage(u, r.usage);
    c = c === null || r.cost_usd === null ? null : c + r.cost_usd;
  }
  return { usage: u, cost: c };
}
