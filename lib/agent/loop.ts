import { ChatcliError, type TerminalReason, toChatcliError } from "../core/errors.ts";
import { microcompact, newMicrocompactState } from "../history/microcompact.ts";
import { cacheTtlMs } from "../history/microcompact-cost.ts";
import { repairToolPairs } from "../history/tool-pairs.ts";
import { ProviderError } from "../llm/errors.ts";
import { providerInfo } from "../llm/provider-table.ts";
import type { ChatMessage, LlmRequest, Usage } from "../llm/types.ts";
import { addUsage, emptyUsage } from "../llm/types.ts";
import { type Emit, ev, note } from "../output/events.ts";
import { displayEntry } from "../policy/workspace.ts";
import { outboundCheck } from "./action.ts";
import { uniqueCallIds } from "./call-ids.ts";
import { earlyExitThreshold, fingerprint, StagnationDetector } from "./early-exit.ts";
import { type CallRecord, incompleteRun } from "./outcome.ts";
import { isTrivialQuery, ROUTE_TIP, routeMode } from "./routing.ts";
import type { BatchState } from "./run-tools.ts";
import { runBatch } from "./run-tools.ts";
import {
  appendResults,
  closeCalls,
  partialReplyOf,
  requestTurn,
  type TurnOutput,
  type TurnReply,
} from "./turn.ts";
import type { AgentInput, AgentResult } from "./types.ts";

/** The one agent loop (agent, coder, the REPL's /agent and /coder): request → tools → results → … */
export async function runAgent(input: AgentInput): Promise<AgentResult> {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(input.signal.reason);
  if (input.signal.aborted) onAbort();
  else input.signal.addEventListener("abort", onAbort, { once: true });
  const timer = input.limits.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        controller.abort(new Error("timeout"));
      }, input.limits.timeoutMs)
    : undefined;
  const signal = controller.signal;
  const parent_id = input.parentId ?? null;
  const toolMap = new Map(input.tools.map((t) => [t.name, t]));
  for (const t of input.tools)
    for (const a of t.aliases ?? []) if (!toolMap.has(a)) toolMap.set(a, t);
  // every finished call, to tell a run that did its work from one that could do nothing it tried
  const calls: CallRecord[] = [];
  const emit: Emit = (e) => {
    if (e.type === "tool.completed" && e.parent_id === parent_id)
      calls.push({ kind: toolMap.get(e.name)?.kind, status: e.status, output: e.output });
    input.emit(e);
  };
  const offered = input.offered ? new Set(input.offered) : undefined;
  const specs = input.tools
    .filter((t) => !offered || offered.has(t.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
  const state: BatchState = {
    tools: toolMap,
    policy: input.policy,
    ask: input.ask,
    emit,
    parentId: parent_id,
    ...(input.fire ? { fire: input.fire } : {}),
    ...(input.background ? { background: input.background } : {}),
    toolCtx: {
      workspaceRoot: input.workspaceRoot,
      cwd: input.cwd,
      env: input.env,
      signal,
      fetch: input.fetch,
      now: input.now,
      scratchDir: input.scratchDir,
      sandbox: input.sandbox,
      memory: input.memory,
      memoryMode: input.memoryMode,
      beforeFileChange: input.hooks?.beforeFileChange,
      protectedPaths: input.policy.mode === "bypass" ? undefined : input.policy.protectedPaths,
      outbound: outboundCheck(input.policy),
      origins: { list: [], userText: input.task },
      left: () => ({ turns: Math.max(0, input.limits.maxTurns - turn), spentUsd: cost }),
    },
    stats: { calls: 0, failed: 0, denied: 0, by_name: {} },
    denials: [],
    files: new Map(),
    warnedOutside: false,
    memoryWrites: 0,
  };
  let messages: ChatMessage[] = [...input.history];
  if (input.task.trim()) messages.push({ role: "user", content: input.task });
  let usage = emptyUsage();
  let cost: number | null = input.costOf ? 0 : null;
  let durationApiMs = 0;
  let finalText = "";
  let reason: TerminalReason = "completed";
  let error: ChatcliError | undefined;
  let turn = 0;
  const detector = new StagnationDetector(earlyExitThreshold(input.env));
  const compacting = newMicrocompactState();
  // when the last reply ended (input.now's ms): a provider's cache outlives its last use only so long
  let replyEnded: number | undefined;
  const ttl = cacheTtlMs(providerInfo(input.provider.name)?.protocol);
  const stopped = (): TerminalReason => (timedOut ? "timeout" : "cancelled");

  let useTools = input.tools.length > 0;
  if (useTools && input.mode === "agent" && isTrivialQuery(input.task, routeMode(input.env))) {
    if (routeMode(input.env) === "auto") useTools = false;
    else emit(note(ROUTE_TIP, { parent_id }));
  }
  const out: TurnOutput = {
    emit,
    live: input.liveDeltas ?? false,
    parentId: parent_id,
    noun: input.tools.length > 0 ? "" : "the answer",
  };
  const answered = () => input.answeredBy?.() ?? input.model;
  /** Usage of requests made on the run's behalf (compaction summaries), into its totals. */
  const charge = (u: Usage) => {
    usage = addUsage(usage, u);
    if (cost !== null && input.costOf) {
      const c = input.costOf(u);
      cost = c === null ? null : cost + c;
    }
  };
  /** Closes a turn: every turn.started gets its turn.completed, a failed one too. */
  const completeTurn = (n: number, turnUsage: Usage, turnCost: number | null, apiMs: number) =>
    emit(
      ev("turn.completed", {
        turn: n,
        usage: turnUsage,
        cumulative_usage: usage,
        cost_usd: turnCost,
        cumulative_cost_usd: cost,
        duration_api_ms: Math.round(apiMs),
        model: answered(),
        parent_id,
      }),
    );

  try {
    for (;;) {
      if (signal.aborted) {
        reason = stopped();
        break;
      }
      if (turn >= input.limits.maxTurns) {
        reason = "max_turns";
        error = new ChatcliError(
          "max_turns",
          `stopped after ${turn} turns (--max-turns ${input.limits.maxTurns}) without a final answer`,
          { hint: "raise --max-turns or narrow the task" },
        );
        break;
      }
      turn++;
      emit(ev("turn.started", { turn, parent_id }));
      const mc = microcompact(messages, turn - 1, input.env, {
        maxTurns: input.limits.maxTurns,
        state: compacting,
        idleMs: replyEnded === undefined ? undefined : input.now().getTime() - replyEnded,
        cacheTtlMs: ttl,
      });
      messages = mc.messages;
      if (mc.truncated || mc.summarized || mc.deduplicated || mc.delta || mc.callsCleared) {
        const repeats =
          (mc.callsCleared ? `, ${mc.callsCleared} old call(s)' arguments cleared` : "") +
          (mc.deduplicated ? `, ${mc.deduplicated} repeated output(s) as a pointer` : "") +
          (mc.delta ? `, ${mc.delta} near-repeat(s) built from an earlier output` : "");
        const cold =
          mc.coldCache && mc.firstChanged >= 0 ? " (the provider's cache had expired)" : "";
        const line = `🗜 microcompact${cold}: ${mc.truncated} truncated, ${mc.summarized} summarized${repeats}, ${mc.freedChars} chars freed`;
        emit(note(line, { detail: true, parent_id }));
      }
      if (input.hooks?.beforeRequest) {
        messages = await input.hooks.beforeRequest(messages, turn, signal, charge);
      }
      // tools that joined since the last request (tool_search, tools/list_changed): appended, so
      // the earlier definitions keep their bytes (and the provider's cache)
      for (const t of input.moreTools?.() ?? []) {
        if (!toolMap.has(t.name)) toolMap.set(t.name, t);
        for (const a of t.aliases ?? []) if (!toolMap.has(a)) toolMap.set(a, t);
        offered?.add(t.name);
        if (specs.some((s) => s.name === t.name)) continue;
        specs.push({ name: t.name, description: t.description, input_schema: t.input_schema });
        useTools = true;
      }
      let request: LlmRequest = {
        model: input.provider.model,
        system: input.system,
        messages,
        tools: useTools ? specs : undefined,
        maxTokens: input.maxTokens,
        effort: input.effort,
        showReasoning: input.showReasoning,
      };
      const started = performance.now();
      let reply: TurnReply | undefined;
      const noun = out.noun || `turn ${turn}'s reply`;
      try {
        for (let attempt = 0; !reply; attempt++) {
          try {
            reply = await requestTurn(
              input.provider,
              request,
              signal,
              { ...out, noun },
              turn,
              toolMap,
              useTools,
            );
          } catch (err) {
            // A context-length rejection: compact once more and retry the same turn once.
            const overflow = err instanceof ProviderError && err.kind === "context_length";
            const hook = input.hooks?.onContextOverflow;
            if (!overflow || attempt > 0 || !hook || signal.aborted) throw err;
            const smaller = await hook(messages, signal, err, charge);
            if (!smaller) throw err;
            messages = smaller;
            request = { ...request, messages };
          }
        }
      } catch (err) {
        const apiMs = performance.now() - started;
        durationApiMs += apiMs;
        // what the failed request streamed (and cost) still counts
        const partial = partialReplyOf(err)?.usage ?? emptyUsage();
        const before = cost;
        charge(partial);
        completeTurn(turn, partial, before === null || cost === null ? null : cost - before, apiMs);
        if (signal.aborted) {
          // what arrived before Ctrl-C or --timeout is the result (ask saves it with the session)
          finalText = partialReplyOf(err)?.text ?? finalText;
          reason = stopped();
          break;
        }
        throw err;
      }
      // made-up ids (a server that sends none) repeat every turn: each call's id is unique in the run
      reply = { ...reply, calls: uniqueCallIds(reply.calls, messages, turn) };
      const apiMs = performance.now() - started;
      durationApiMs += apiMs;
      replyEnded = input.now().getTime();
      const before = cost;
      charge(reply.usage);
      const turnCost = before === null || cost === null ? null : cost - before;
      messages.push({
        role: "assistant",
        content: reply.text,
        ...(reply.native && reply.calls.length ? { tool_calls: reply.calls } : {}),
      });
      emit(
        ev("message.completed", {
          turn,
          role: "assistant",
          text: reply.shown,
          tool_calls: reply.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
          parent_id,
        }),
      );
      const overBudget =
        input.limits.maxBudgetUsd !== undefined &&
        cost !== null &&
        cost >= input.limits.maxBudgetUsd;
      const replyUsage = reply.usage;
      const close = () => completeTurn(turn, replyUsage, turnCost, apiMs);
      if (reply.calls.length === 0) {
        close();
        if (reply.stop === "max_tokens" && input.continueOnMaxTokens === false) {
          emit(
            ev("warning", {
              code: "max_tokens",
              message: "the answer was cut at the output token limit (--max-tokens)",
            }),
          );
        } else if (reply.stop === "max_tokens" && !overBudget) {
          messages.push({
            role: "user",
            content:
              "Your reply was cut off by the output limit. Continue exactly where you stopped.",
          });
          finalText += reply.text;
          continue;
        }
        finalText += reply.text;
        break;
      }
      finalText = "";
      if (overBudget) {
        close();
        closeCalls(messages, reply, "not executed: --max-budget-usd reached");
        reason = "max_budget";
        error = new ChatcliError(
          "max_budget",
          `spent $${(cost as number).toFixed(4)}, reaching --max-budget-usd ${input.limits.maxBudgetUsd}`,
          { hint: "raise --max-budget-usd" },
        );
        break;
      }
      if (
        detector.observe(
          fingerprint(reply.calls.map((c) => ({ name: c.name, arguments: c.arguments }))),
        )
      ) {
        close();
        closeCalls(messages, reply, "not executed: stagnation detected");
        messages.push({
          role: "user",
          content:
            "[stagnation detected] The same tool call was emitted repeatedly without new information. Stopping the loop.",
        });
        reason = "stagnation";
        const n = earlyExitThreshold(input.env);
        error = new ChatcliError(
          "stagnation",
          `the same tool calls repeated ${n} turns in a row (stagnation); stopped`,
          { hint: "Set CHATCLI_AGENT_EARLY_EXIT=0 to disable this detector." },
        );
        break;
      }
      const batch = await runBatch(reply.calls, state, turn);
      appendResults(messages, reply, batch.results);
      close();
      if (batch.failed) {
        reason = "permission_denied";
        error = new ChatcliError(
          "permission_denied",
          `${batch.failed.tool} needs approval and --on-ask fail is set: ${batch.failed.input}`,
          {
            hint: batch.failed.decision.suggestion
              ? `allow it with ${batch.failed.decision.suggestion}`
              : undefined,
          },
        );
        break;
      }
    }
  } catch (err) {
    error = toChatcliError(err);
    reason = error.reason;
    // a reply cut short (stream_truncated) or refused: what arrived is the result, not a finished answer
    const partial = (err as { partialText?: unknown } | null)?.partialText;
    if (typeof partial === "string") finalText = partial;
  } finally {
    if (timer) clearTimeout(timer);
    input.signal.removeEventListener("abort", onAbort);
  }
  if ((reason === "timeout" || reason === "cancelled") && !error) {
    error =
      reason === "timeout"
        ? new ChatcliError(
            "timeout",
            `--timeout reached after ${formatMs(input.limits.timeoutMs ?? 0)}`,
            { hint: "raise --timeout" },
          )
        : new ChatcliError("cancelled", "cancelled");
  }
  if (reason === "completed" && !error) {
    error = incompleteRun(calls, {
      mode: input.policy.mode,
      shellRefusal: input.sandbox?.shellRefusal,
      networkOff: input.sandbox?.info.network === false,
      suggestion: state.denials
        .map((d) => (d as { suggestion?: string }).suggestion)
        .find((s) => s !== undefined),
    });
    if (error) reason = error.reason;
  }
  // whatever stopped the loop, every tool call of the history has its one result
  messages = repairToolPairs(messages).messages;
  const filesChanged = [...state.files.entries()].map(([path, change]) => ({
    path: displayEntry(input.workspaceRoot, path),
    change,
  }));
  const result: AgentResult = {
    messages,
    finalText: finalText.trim() ? finalText : "",
    numTurns: turn,
    usage,
    durationApiMs: Math.round(durationApiMs),
    costUsd: cost,
    tools: state.stats,
    permissionDenials: state.denials,
    filesChanged,
    terminalReason: reason,
    memoryWrites: state.memoryWrites,
  };
  if (error) result.error = error;
  return result;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
