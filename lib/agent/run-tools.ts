import { toChatcliError } from "../core/errors.ts";
import { envInt } from "../core/settings.ts";
import type { HookEvent, HookOutcome } from "../extensions/types.ts";
import type { ToolCall } from "../llm/types.ts";
import { type Emit, ev, type PermissionDenial } from "../output/events.ts";
import { stripControl } from "../output/terminal.ts";
import {
  type Decision,
  decide,
  type PermissionPolicy,
  plannedWrites,
} from "../policy/permissions.ts";
import { displayEntry } from "../policy/workspace.ts";
import { actionOf } from "./action.ts";
import { type AskRequest, judge } from "./approval.ts";
import { capBatch, capText, RESULT_MAX_CHARS, TURN_BUDGET_CHARS } from "./output-cap.ts";
import { validateArgs } from "./schema.ts";
import { withTreeChanges } from "./shell-changes.ts";
import { decided, fireHook } from "./tool-events.ts";
import { isMemoryWrite } from "./tools/memory.ts";
import type { FileChange, Tool, ToolContext, ToolOutcome, ToolStats } from "./types.ts";

export type { ToolStats };

export type ToolStatus = "ok" | "error" | "denied" | "skipped";

export interface CallResult {
  call: ToolCall;
  status: ToolStatus;
  content: string;
}

/** Shared, mutable state of one run that tool execution updates. */
export interface BatchState {
  tools: ReadonlyMap<string, Tool>;
  policy: PermissionPolicy;
  ask?: (request: AskRequest) => Promise<boolean>;
  emit: Emit;
  /** The sub-agent this loop runs for (null: the run's own loop). */
  parentId: string | null;
  /** Fires hooks (PreToolUse may block a call); absent without extensions. */
  fire?: (event: HookEvent) => Promise<HookOutcome>;
  /** Work the loop does not wait for (PostToolUse hooks); absent: it is awaited. */
  background?: (work: Promise<unknown>) => void;
  toolCtx: ToolContext;
  stats: ToolStats;
  denials: PermissionDenial[];
  /** Absolute path → first recorded change. */
  files: Map<string, FileChange["change"]>;
  warnedOutside: boolean;
  /** Successful memory writes (remember/profile/forget) for the envelope's memory.facts_written. */
  memoryWrites: number;
}

interface Planned {
  call: ToolCall;
  tool?: Tool;
  args: Record<string, unknown>;
  result?: CallResult;
  /** Who allowed it: the policy, or a human on the terminal. */
  allowedBy?: "policy" | "user" | "on_ask";
}

/** How a call ended, for its tool.completed event (the progress line is rendered from it). */
interface Ending {
  exitCode?: number | null;
  durationMs?: number;
  /** What the call was about; absent when the tool or its arguments were bad. */
  subject?: string;
  /** One line on the outcome; absent when the call never ran (no progress line). */
  summary?: string;
}

function finishCall(
  state: BatchState,
  turn: number,
  p: Planned,
  status: ToolStatus,
  content: string,
  ending: Ending = {},
): CallResult {
  const name = p.tool?.name ?? p.call.name;
  state.stats.calls++;
  state.stats.by_name[name] = (state.stats.by_name[name] ?? 0) + 1;
  if (status === "error") state.stats.failed++;
  if (status === "denied") state.stats.denied++;
  state.emit(
    ev("tool.completed", {
      turn,
      id: p.call.id,
      name,
      status: status === "skipped" ? "error" : status,
      output: capText(content, 4000).text,
      exit_code: ending.exitCode ?? null,
      duration_ms: ending.durationMs ?? 0,
      subject: ending.subject ?? null,
      summary: ending.summary ?? null,
      parent_id: state.parentId,
    }),
  );
  return { call: p.call, status, content };
}

/** Records a denial: the model's result, permission_denials, and the stderr line. */
function deny(
  state: BatchState,
  turn: number,
  p: Planned,
  tool: Tool,
  decision: Decision,
): CallResult {
  const input = tool.subject(p.args);
  state.denials.push({
    tool: tool.name,
    input,
    reason: decision.reason,
    turn,
    suggestion: decision.suggestion ?? null,
  });
  return finishCall(
    state,
    turn,
    p,
    "denied",
    `error: permission denied — ${decision.reason}. Do not retry this call; use another approach, or finish and say what permission is needed.`,
    { subject: input, summary: `denied (${decision.reason})` },
  );
}

async function execute(
  p: Planned,
  tool: Tool,
  state: BatchState,
  turn: number,
  targets: readonly string[] = [],
): Promise<CallResult> {
  state.emit(
    ev("tool.started", {
      turn,
      id: p.call.id,
      name: tool.name,
      input: p.args,
      parent_id: state.parentId,
    }),
  );
  const started = performance.now();
  let outcome: ToolOutcome;
  try {
    const base = p.allowedBy === "user" ? { ...state.toolCtx, humanApproved: true } : state.toolCtx;
    const run = () => tool.execute(p.args, { ...base, callId: p.call.id });
    outcome =
      tool.kind === "shell" ? await withTreeChanges(state.toolCtx, run, targets) : await run();
  } catch (error) {
    outcome = {
      output: `error: ${tool.name} failed: ${toChatcliError(error).message}`,
      isError: true,
      summary: "crashed",
    };
  }
  const ms = Math.round(performance.now() - started);
  const origins = state.toolCtx.origins;
  if (origins && tool.kind !== "memory" && !outcome.isError) {
    origins.list.push({ label: `tool:${tool.name}`, text: outcome.output.slice(0, 50_000) });
    if (origins.list.length > 30) origins.list.shift();
  }
  // Colours and progress-bar carriage returns from commands are noise for the model (and for JSON).
  if (tool.kind === "shell") outcome = { ...outcome, output: stripControl(outcome.output) };
  for (const w of outcome.warnings ?? []) state.emit(ev("warning", w));
  for (const change of outcome.filesChanged ?? []) {
    const prev = state.files.get(change.path);
    if (!prev || (prev === "deleted" && change.change !== "deleted"))
      state.files.set(change.path, change.change);
    state.emit(
      ev("file.changed", {
        turn,
        id: p.call.id,
        path: displayEntry(state.toolCtx.workspaceRoot, change.path),
        change: change.change,
        parent_id: state.parentId,
      }),
    );
  }
  if (tool.kind === "memory" && !outcome.isError && isMemoryWrite(p.args)) {
    state.memoryWrites++;
    state.emit(
      ev("memory.written", {
        source: "tool",
        turn,
        id: p.call.id,
        cmd: typeof p.args["cmd"] === "string" ? p.args["cmd"] : null,
        facts: 1,
        result: outcome.output,
        parent_id: state.parentId,
      }),
    );
  }
  // PostToolUse is not waited for (Go's FireAsync): the run waits for it before the turn ends
  const after = fireHook(state, outcome.isError ? "PostToolUseFailure" : "PostToolUse", {
    toolName: tool.name,
    toolArgs: p.args,
    ...(outcome.isError ? { error: outcome.output.slice(0, 4000) } : {}),
    toolOutput: outcome.output.slice(0, 20_000),
  });
  if (state.background) state.background(after);
  else await after;
  const summary = outcome.summary ?? (outcome.isError ? "error" : "ok");
  return finishCall(state, turn, p, outcome.isError ? "error" : "ok", outcome.output, {
    exitCode: outcome.exitCode ?? null,
    durationMs: ms,
    subject: tool.subject(p.args),
    summary,
  });
}

/** Resolve → validate → permission for one call; sets `p.result` when it will not run. */
async function prepare(
  p: Planned,
  state: BatchState,
  turn: number,
): Promise<{ fail?: { decision: Decision; tool: string; input: string } } | undefined> {
  const tool = p.tool;
  if (!tool) {
    const names = [...state.tools.keys()].join(", ");
    p.result = finishCall(
      state,
      turn,
      p,
      "error",
      `error: unknown tool "${p.call.name}". Available tools: ${names}.`,
      { summary: "unknown tool" },
    );
    return undefined;
  }
  if (
    p.call.raw !== undefined &&
    Object.keys(p.args).length === 0 &&
    p.call.raw.trim() !== "" &&
    p.call.raw.trim() !== "{}"
  ) {
    p.result = finishCall(
      state,
      turn,
      p,
      "error",
      `error: the arguments of ${tool.name} are not valid JSON: ${capText(p.call.raw, 300).text}. Send a JSON object.`,
      { summary: "invalid arguments" },
    );
    return undefined;
  }
  const checked = validateArgs(tool.input_schema, p.args);
  const problem = checked.ok ? tool.validate?.(checked.args) : checked.error;
  if (!checked.ok || problem) {
    p.result = finishCall(state, turn, p, "error", `error: ${tool.name}: ${problem}`, {
      summary: "invalid arguments",
    });
    return undefined;
  }
  p.args = checked.args;
  const refusal = tool.kind === "shell" ? state.toolCtx.sandbox?.shellRefusal : undefined;
  if (refusal) {
    // No sandbox and --sandbox auto: the OS cannot confine the command, so it is not run at all.
    decided(state, turn, p, tool, { allowed: false, reason: refusal, source: "sandbox" });
    p.result = deny(state, turn, p, tool, { verdict: "deny", reason: refusal, dangerous: false });
    return undefined;
  }
  const verdict = await judge(state.policy, tool, p.args, state.ask);
  if (verdict.allowed) {
    // a PreToolUse hook may still block it: its words are the tool's result
    const hook = await fireHook(state, "PreToolUse", { toolName: tool.name, toolArgs: p.args });
    if (hook?.blocked) {
      const reason = hook.reason?.trim() || "blocked by a PreToolUse hook";
      decided(state, turn, p, tool, { allowed: false, reason, source: "hook" });
      p.result = deny(state, turn, p, tool, { verdict: "deny", reason, dangerous: false });
      return undefined;
    }
  }
  decided(state, turn, p, tool, {
    allowed: verdict.allowed,
    reason: verdict.decision.reason,
    source: verdict.source,
    suggestion: verdict.decision.suggestion,
  });
  // nobody could approve it: Notification hooks (a desktop alert, a chat message) hear of it
  if (!verdict.allowed && verdict.source === "on_ask")
    await fireHook(state, "Notification", {
      toolName: tool.name,
      error: `needs approval, denied unattended: ${verdict.decision.reason}`,
    });
  if (verdict.allowed && verdict.decision.outside && !state.warnedOutside) {
    state.warnedOutside = true;
    state.emit(
      ev("warning", {
        code: "bypass_outside_workspace",
        message: "bypass mode: a tool is writing outside the workspace",
      }),
    );
  }
  if (!verdict.allowed) {
    p.result = deny(state, turn, p, tool, verdict.decision);
    if (verdict.fail)
      return { fail: { decision: verdict.decision, tool: tool.name, input: tool.subject(p.args) } };
  } else p.allowedBy = verdict.source;
  return undefined;
}

/** A write or shell call, approved at planning: judged again, its targets snapshotted, run. */
async function runOne(p: Planned, tool: Tool, state: BatchState, turn: number) {
  // Judged again now: an earlier call of this turn may have created a link the path runs through.
  const again = decide(state.policy, actionOf(tool, p.args));
  if (again.verdict === "deny" || (again.verdict === "ask" && p.allowedBy !== "user")) {
    const reason = `${again.reason} (after earlier calls of this turn ran)`;
    decided(state, turn, p, tool, {
      allowed: false,
      reason,
      source: "policy",
      suggestion: again.suggestion,
    });
    return deny(state, turn, p, tool, { ...again, reason });
  }
  // Files a shell command writes are snapshotted first, like write_file's, so rewind restores them
  // (a directory file by file); the same paths are compared afterwards for files_changed.
  const targets = tool.kind === "shell" ? plannedWrites(state.policy, actionOf(tool, p.args)) : [];
  for (const abs of targets) {
    try {
      await state.toolCtx.beforeFileChange?.(abs);
    } catch (error) {
      const shown = displayEntry(state.toolCtx.workspaceRoot, abs);
      return finishCall(
        state,
        turn,
        p,
        "error",
        `error: not executed: ${shown} could not be snapshotted for rewind (${toChatcliError(error).message})`,
      );
    }
  }
  return execute(p, tool, state, turn, targets);
}

/**
 * A tool's preparation or execution failing is that call's error result, never the run's: the
 * assistant's tool call always gets its one result.
 */
async function safely(
  p: Planned,
  state: BatchState,
  turn: number,
  run: () => Promise<CallResult>,
): Promise<CallResult> {
  try {
    return await run();
  } catch (error) {
    const name = p.tool?.name ?? p.call.name;
    return finishCall(
      state,
      turn,
      p,
      "error",
      `error: ${name} failed: ${toChatcliError(error).message}`,
    );
  }
}

/**
 * Runs one turn's tool calls: resolve → validate → permission → execute. Bad calls become error
 * results the model can fix; denials become results too. Consecutive read-only calls run in parallel.
 * `failed` is set when `--on-ask fail` must end the run (later calls are reported as not executed).
 */
export async function runBatch(
  calls: ToolCall[],
  state: BatchState,
  turn: number,
): Promise<{
  results: CallResult[];
  failed?: { decision: Decision; tool: string; input: string };
}> {
  const planned: Planned[] = calls.map((call) => ({
    call,
    args: call.arguments,
    tool: state.tools.get(call.name),
  }));
  let failed: { decision: Decision; tool: string; input: string } | undefined;
  for (const p of planned) {
    if (failed) {
      p.result = finishCall(
        state,
        turn,
        p,
        "skipped",
        "not executed: the run stopped before this call",
      );
      continue;
    }
    try {
      const verdict = await prepare(p, state, turn);
      if (verdict?.fail) failed = verdict.fail;
    } catch (error) {
      // a tool's preparation failing is the tool's error result, never the run's
      p.result = finishCall(
        state,
        turn,
        p,
        "error",
        `error: ${p.call.name} could not be prepared: ${toChatcliError(error).message}`,
      );
    }
  }
  // Execute approved calls in order; a run of consecutive read-only calls goes in parallel.
  let i = 0;
  while (i < planned.length) {
    const p = planned[i] as Planned;
    if (p.result || !p.tool || failed || state.toolCtx.signal.aborted) {
      if (!p.result)
        p.result = finishCall(
          state,
          turn,
          p,
          "skipped",
          "not executed: the run stopped before this call",
        );
      i++;
      continue;
    }
    if (p.tool.kind === "read") {
      const group: Planned[] = [];
      while (
        i < planned.length &&
        !(planned[i] as Planned).result &&
        (planned[i] as Planned).tool?.kind === "read"
      )
        group.push(planned[i++] as Planned);
      const results = await Promise.all(
        group.map((g) => safely(g, state, turn, () => execute(g, g.tool as Tool, state, turn))),
      );
      results.forEach((r, k) => {
        (group[k] as Planned).result = r;
      });
      continue;
    }
    const tool = p.tool;
    p.result = await safely(p, state, turn, () => runOne(p, tool, state, turn));
    i++;
  }
  const env = state.toolCtx.env;
  const capped = capBatch(
    planned.map((p) => (p.result as CallResult).content),
    envInt(env, "CHATCLI_TOOL_RESULT_MAX_CHARS", RESULT_MAX_CHARS),
    envInt(env, "CHATCLI_TOOL_RESULT_BUDGET_CHARS", TURN_BUDGET_CHARS),
  );
  const results = planned.map((p, k) => ({
    ...(p.result as CallResult),
    content: capped[k] as string,
  }));
  return failed ? { results, failed } : { results };
}
