/**
 * `/agent`, `/coder` and the chat turn in the REPL, through the one engine (lib/run): a run opened on
 * the REPL's session and provider chain, its events rendered here — activity lines from the same
 * renderer stderr uses, the command line of a running shell tool, the answer's deltas. Nothing is
 * scraped from text.
 */

import { addSubagentTotals } from "../agent/subagent.ts";
import type { Ctx } from "../core/ctx.ts";
import { createStreamRedactor, redact } from "../core/redact.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ResilientProvider } from "../llm/retry.ts";
import type { ChatMessage, Effort, SystemBlock, Usage } from "../llm/types.ts";
import type { Emitted } from "../output/events.ts";
import { createProgress } from "../output/progress.ts";
import { stripControl } from "../output/terminal.ts";
import type { SessionExtensions } from "../run/extensions.ts";
import { openRun } from "../run/open.ts";
import { answeredBy } from "../run/provider.ts";
import type { Run, TurnOutcome } from "../run/run.ts";
import { alwaysScope, approvalDetail, commandOutputPreview } from "./approval-preview.ts";
import type { SessionBinding } from "./live-binding.ts";
import type { AgentCallbacks, TurnResult } from "./services.ts";

export interface LiveRunInput {
  ctx: Ctx;
  binding: SessionBinding;
  ref: ModelRef;
  provider: ResilientProvider;
  /** `/agent` and `/coder` write memory through their tool when the REPL's memory is on. */
  memory: boolean;
  effort?: Effort;
  /** Warnings already shown this session (each run repeats its settings' warnings): shown once. */
  once: Set<string>;
  /** The session's secret values: no notice line shows them (a provider error quoting the key). */
  secrets?: readonly string[];
  /** The session's MCP servers, skills and hooks (opened on first use, shared by every run). */
  extensions?: () => Promise<SessionExtensions>;
}

/** Hands rendered lines to `onLine` one at a time ("chatcli: " dropped, as the REPL shows them). */
function lineRenderer(
  onLine: (line: string) => void,
  details: boolean,
  once: Set<string>,
  secrets: readonly string[] = [],
) {
  const progress = createProgress({ details });
  const lines = (text: string) => {
    for (const line of redact(text, secrets).split("\n")) {
      const shown = line.replace(/^chatcli: /, "");
      if (shown.trim()) onLine(shown);
    }
  };
  return {
    render: (event: Emitted) => {
      if (event.type === "warning") {
        // the status row says "unpriced" already; a run's envelope warning is not news here
        if (event.code === "unpriced_model" || once.has(event.message)) return;
        once.add(event.message);
      }
      lines(progress.render(event));
    },
    finish: (denials: Parameters<typeof progress.finish>[0]) => lines(progress.finish(denials)),
  };
}

/** Runs a turn's generator to its end, handing each event to `see`. */
async function drive(
  turn: AsyncGenerator<Emitted, TurnOutcome>,
  see: (event: Emitted) => void,
): Promise<TurnOutcome> {
  for (let step = await turn.next(); ; step = await turn.next()) {
    if (step.done) return step.value;
    see(step.value);
  }
}

/** The model that answered, for pricing (a fallback's after a fallback). */
function answeredRef(ref: ModelRef, provider: ResilientProvider): ModelRef {
  const a = answeredBy(provider);
  return { ...ref, provider: a.provider, model: a.model };
}

/**
 * One chat line: no tools, one turn, the REPL's own system prompt; deltas go to `onText`. Throws
 * (with the printable message) when the turn failed; "cancelled" when it was stopped.
 */
export async function runChatTurn(
  input: LiveRunInput,
  line: string,
  system: SystemBlock[],
  callbacks: { onText(delta: string): void; onNotice(line: string): void },
  signal: AbortSignal,
): Promise<{ text: string; usage: Usage; messages: ChatMessage[]; answered: ModelRef }> {
  const ctx = { ...input.ctx, signal };
  const lines = lineRenderer(callbacks.onNotice, false, input.once, input.secrets);
  // the answer as it streams, with a known secret replaced even when it is split across deltas
  const secrets = input.secrets ?? [];
  const answer = createStreamRedactor(() => secrets);
  const text = (piece: string) => {
    if (piece) callbacks.onText(piece);
  };
  const see = (event: Emitted) => {
    if (event.type === "message.delta") text(answer.push(event.text));
    else lines.render(event);
  };
  const shared = await input.extensions?.();
  // the skills this line activates (trigger words, `/name`): their bodies join this turn's prompt
  const skills = (shared?.skillContext(line) ?? []).map((b) => ({ ...b, cache: false }));
  const run = await openRun(
    ctx,
    {
      command: "chat",
      mode: "ask",
      ...(shared ? { extensions: shared.forRun("chat") } : {}),
      // the REPL asks its own questions: no TTY prompt from the run
      interactive: false,
      memory: "off",
      liveDeltas: true,
      ...(input.effort ? { effort: input.effort } : {}),
    },
    see,
    {
      shared: { session: input.binding.session, provider: input.provider, ref: input.ref },
      input: line,
    },
  );
  const before = [...input.binding.session.messages];
  const outcome = await finish(
    run,
    drive(run.turn(line, { system: [...system, ...skills], headless: false }), see),
    see,
  );
  text(answer.flush());
  // a cancelled or failed line leaves the conversation as it was (the loop writes as it goes)
  if (signal.aborted || outcome.result.error) input.binding.session.replaceMessages(before);
  if (signal.aborted) throw new Error("cancelled");
  if (outcome.result.error) throw outcome.result.error;
  return {
    text: redact(outcome.result.finalText, secrets),
    usage: outcome.result.usage,
    messages: outcome.result.messages,
    answered: answeredRef(input.ref, input.provider),
  };
}

async function finish(
  run: Run,
  turn: Promise<TurnOutcome>,
  see: (event: Emitted) => void,
): Promise<TurnOutcome> {
  try {
    return await turn;
  } finally {
    for await (const e of run.close()) see(e);
  }
}

/**
 * `/agent` and `/coder`: the one agent loop on the session's unified history, with one checkpoint
 * per user turn, file snapshots, compaction, the same policy, offered-tools filter and sandbox as
 * `chatcli agent`, and the policy's asks sent to the human. The conversation gets the run's
 * messages when it ends; a run that is cancelled or fails leaves it as it was.
 */
export async function runReplAgent(
  input: LiveRunInput,
  mode: "agent" | "coder",
  task: string,
  callbacks: AgentCallbacks,
  signal: AbortSignal,
): Promise<TurnResult & { answered: ModelRef }> {
  const { binding } = input;
  const before = [...binding.session.messages];
  // One checkpoint per user turn, named by what was typed: files the run changes are snapshotted into it.
  const checkpoint = await binding.checkpoint(`/${mode} ${task}`);
  try {
    const result = await agentLoop(input, mode, task, callbacks, signal);
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

async function agentLoop(
  input: LiveRunInput,
  mode: "agent" | "coder",
  task: string,
  callbacks: AgentCallbacks,
  signal: AbortSignal,
): Promise<TurnResult & { messages: ChatMessage[]; answered: ModelRef }> {
  const ctx = { ...input.ctx, signal };
  const lines = lineRenderer(callbacks.onActivity, true, input.once, input.secrets);
  const see = (event: Emitted) => {
    lines.render(event);
    if (!callbacks.onCommand) return;
    const shell = "name" in event && (event.name === "run_command" || event.name === "run_tests");
    if (!shell || ("parent_id" in event && event.parent_id !== null)) return;
    if (event.type === "tool.started") {
      const cmd = typeof event.input["cmd"] === "string" ? event.input["cmd"] : event.name;
      callbacks.onCommand(stripControl(cmd));
    } else if (event.type === "tool.completed") {
      callbacks.onCommand(undefined);
      // what the command printed (its last lines), not only "→ exit 0"
      if (event.status !== "denied")
        for (const line of commandOutputPreview(event.output)) callbacks.onActivity(line);
    }
  };
  const shared = await input.extensions?.();
  const run = await openRun(
    ctx,
    {
      command: mode,
      mode,
      ...(shared ? { extensions: shared.forRun("agent") } : {}),
      interactive: true,
      memory: input.memory ? "write" : "off",
      liveDeltas: false,
      ...(input.effort ? { effort: input.effort } : {}),
      ask: (request) => {
        const args = request.args ?? {};
        const scope = request.dangerous ? undefined : alwaysScope(request.tool, args);
        return callbacks.approve({
          tool: request.tool,
          summary: request.tool === "run_command" ? "" : stripControl(request.input),
          detail: approvalDetail({
            tool: request.tool,
            args,
            cwd: ctx.cwd,
            reason: request.reason,
          }),
          dangerous: request.dangerous,
          alwaysLabel: scope,
          alwaysKey: scope,
        });
      },
    },
    see,
    {
      shared: { session: input.binding.session, provider: input.provider, ref: input.ref },
      input: task,
    },
  );
  const outcome = await finish(
    run,
    drive(run.turn(run.parts.input, { headless: false }), see),
    see,
  );
  if (signal.aborted) throw new Error("cancelled");
  const { result } = outcome;
  const text = stripControl(redact(result.finalText, input.secrets ?? []));
  if (text) callbacks.onText(text);
  // "blocked" is the human's own answers here: the denial lines said it already
  if (result.error && result.terminalReason !== "completed" && result.terminalReason !== "blocked")
    callbacks.onActivity(`⚠ ${result.error.message}`);
  const records = run.parts.toolSet?.delegation.records ?? [];
  const usage = addSubagentTotals(result.usage, null, records).usage;
  const requests = result.numTurns + records.reduce((n, r) => n + r.turns, 0);
  return {
    text,
    usage,
    requests,
    messages: result.messages,
    answered: answeredRef(input.ref, input.provider),
  };
}
