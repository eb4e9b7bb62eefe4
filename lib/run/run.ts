/**
 * One run: `turn(input)` runs the one loop (ask: no tools, one turn; agent and coder: their tools
 * under the policy and the sandbox) and yields its events; `close()` ends the run (hooks, servers,
 * sandbox). The engine never looks at the output format: sinks render what it yields.
 */
import type { AskRequest } from "../agent/approval.ts";
import { runAgent } from "../agent/loop.ts";
import type { AgentInput, AgentResult } from "../agent/types.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import { EXIT, toChatcliError } from "../core/errors.ts";
import type { ChatcliConfig } from "../core/settings.ts";
import type { HookEvent, HookEventName, RunExtensions } from "../extensions/types.ts";
import type { Session } from "../history/session.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ResilientProvider } from "../llm/retry.ts";
import type { ChatMessage, Effort, SystemBlock, Usage } from "../llm/types.ts";
import { type Emit, type Emitted, errorEvent, ev } from "../output/events.ts";
import type { PermissionPolicy } from "../policy/permissions.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { channel } from "./channel.ts";
import { loopHooks, scratchDirFor } from "./context.ts";
import { drainWarnings, emitHookOutcome } from "./extensions.ts";
import type { MemoryAccess, RunMemory } from "./memory.ts";
import { answeredBy } from "./provider.ts";
import type { RunSpec } from "./spec.ts";
import { extensionTool, extractable, type ToolSet, trustOf } from "./tools.ts";

/** What openRun resolved. */
export interface RunParts {
  ctx: Ctx;
  spec: RunSpec;
  env: Env;
  config: ChatcliConfig;
  workspaceRoot: string;
  ref: ModelRef;
  label: string;
  provider: ResilientProvider;
  effort: Effort | undefined;
  session: Session;
  /** The session is kept on disk (a name, -c, autosave). */
  keep: boolean;
  memory?: RunMemory;
  access: MemoryAccess;
  extensions: RunExtensions;
  /** The input read under the stdin rules (the task, after `@role`). */
  input: string;
  system: SystemBlock[];
  toolSet?: ToolSet;
  policy?: PermissionPolicy;
  sandbox?: Sandbox;
  maxTurns: number;
  costOf?: (usage: Usage) => number | null;
  ask?: (request: AskRequest) => Promise<boolean>;
}

/** Per-turn choices of a front end that runs many turns (the REPL). */
export interface TurnOptions {
  /** The system prompt of this turn (the REPL builds its own: attachments, its memory). */
  system?: SystemBlock[];
  /** Headless runs save the session, extract memory and check for compaction; the REPL does its own. */
  headless?: boolean;
}

export interface TurnOutcome {
  result: AgentResult;
  /** The text as shown (escape sequences stripped). */
  text: string;
  /** The exit code this turn ends a headless run with. */
  exitCode: number;
}

export class Run {
  private current: Emit | undefined;
  private started = false;

  constructor(
    readonly parts: RunParts,
    private readonly openEmit: Emit,
  ) {}

  /** Where events go now: the running turn's channel, else the opener's. */
  readonly emit: Emit = (event) => (this.current ?? this.openEmit)(event);

  /** Fires one hook event and shows what ran (never throws). */
  private async fire(type: HookEventName, extra: Partial<HookEvent> = {}) {
    const p = this.parts;
    const outcome = await p.extensions.fire({
      type,
      timestamp: p.ctx.now().toISOString(),
      sessionId: p.session.name,
      workingDir: p.ctx.cwd,
      ...extra,
    });
    emitHookOutcome(this.emit, outcome);
    return outcome;
  }

  /** One turn of the run; yields its events, returns its outcome. */
  turn(
    input: string = this.parts.input,
    options: TurnOptions = {},
  ): AsyncGenerator<Emitted, TurnOutcome> {
    return channel(async (emit, drained) => {
      this.current = emit;
      try {
        return await this.runTurn(input, options, drained);
      } finally {
        this.current = undefined;
      }
    });
  }

  private async runTurn(
    input: string,
    options: TurnOptions,
    drained: () => Promise<void>,
  ): Promise<TurnOutcome> {
    const p = this.parts;
    const { spec, ctx, env } = p;
    const emit = this.emit;
    const headless = options.headless ?? true;
    const tools = p.toolSet !== undefined;
    if (!this.started) await this.fire("SessionStart");
    this.started = true;
    await this.fire("UserPromptSubmit", { userPrompt: input });
    // ask keeps a checkpoint to rewind to; a fresh autosave has nothing before the question
    const s = spec.session ?? {};
    const autosaved = s.name === undefined && !s.continueLatest && p.session.isNew;
    if (!tools && headless && p.keep && !autosaved) {
      const record = await p.session.checkpoint(input);
      emit(
        ev("checkpoint.created", { id: record.id, turn: 1, messages: p.session.messages.length }),
      );
    }
    const hooks = loopHooks({
      env,
      ref: p.ref,
      provider: p.provider,
      emit,
      session: p.session,
      task: input,
      noAutoCompact: spec.noAutoCompact,
      // the REPL takes one checkpoint per line; ask took its one above
      checkpointPerRequest: tools && headless,
      ...(tools ? { keepLast: 8 } : {}),
      ...(p.memory ? { memory: p.memory } : {}),
      fire: async (type, trigger) => {
        await this.fire(type, { trigger });
      },
    });
    // hooks the loop does not wait for (PostToolUse): done before the turn ends
    const pending = new Set<Promise<unknown>>();
    const ask = p.ask;
    const agentInput: AgentInput = {
      provider: p.provider,
      model: p.label,
      answeredBy: () => answeredBy(p.provider).label,
      mode: spec.mode === "coder" ? "coder" : "agent",
      task: input,
      history: p.session.messages.filter((m) => m.role !== "system"),
      system: options.system ?? p.system,
      tools: p.toolSet?.tools ?? [],
      offered: p.toolSet?.offered ?? [],
      policy: p.policy ?? {
        mode: "read-only",
        allow: [],
        deny: [],
        onAsk: "deny",
        workspaceRoot: p.workspaceRoot,
        cwd: ctx.cwd,
      },
      limits: { maxTurns: p.maxTurns, maxBudgetUsd: spec.maxBudgetUsd, timeoutMs: spec.timeoutMs },
      ...(p.costOf ? { costOf: p.costOf } : {}),
      hooks,
      emit,
      liveDeltas: spec.liveDeltas,
      continueOnMaxTokens: tools,
      fire: (event) => p.extensions.fire({ ...event, sessionId: p.session.name }),
      background: (work) => {
        const tracked = work.catch(() => {}).finally(() => pending.delete(tracked));
        pending.add(tracked);
      },
      ...(tools ? { moreTools: () => this.moreTools() } : {}),
      signal: ctx.signal,
      workspaceRoot: p.workspaceRoot,
      cwd: ctx.cwd,
      env,
      fetch: ctx.fetch,
      now: ctx.now,
      // a question to a human waits until the lines before it are shown
      ...(ask
        ? {
            ask: async (r: AskRequest) => {
              await drained();
              // a human is asked: Notification hooks (a desktop alert, a chat message)
              await this.fire("Notification", { toolName: r.tool, toolArgs: r.args ?? {} });
              return ask(r);
            },
          }
        : {}),
      ...(p.memory && p.access !== "off" ? { memory: p.memory.backend() } : {}),
      memoryMode: p.access,
      scratchDir: scratchDirFor(env, p.session),
      ...(p.sandbox ? { sandbox: p.sandbox } : {}),
      ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
      ...(p.effort ? { effort: p.effort } : {}),
      showReasoning: spec.showReasoning === true,
    };
    p.toolSet?.delegation.bind(agentInput);
    const result = await runAgent(agentInput).finally(async () => {
      await Promise.all(pending);
    });
    const text = result.finalText;
    const exitCode = result.error ? this.exitCodeOf(result) : EXIT.ok;
    if (headless) await this.settle(input, result);
    if (result.error) {
      emit(errorEvent(result.error, exitCode, result.terminalReason));
    } else if (headless && !tools && !text.trim()) {
      emit(
        ev("warning", {
          code: "empty_answer",
          message: 'the model returned an empty answer (exit 0, result "")',
        }),
      );
    } else if (headless && tools && !text.trim()) {
      emit(
        ev("warning", {
          code: "empty_answer",
          message: "the model ended the run with an empty final message",
        }),
      );
    }
    return { result, text, exitCode };
  }

  /** Tools an extension added since the last request (tool_search finds, tools/list_changed). */
  private moreTools() {
    const p = this.parts;
    const fresh = p.extensions.newTools();
    for (const t of fresh) if (p.toolSet) trustOf(t, p.toolSet.untrusted);
    drainWarnings(p.extensions, this.emit);
    return fresh.map(extensionTool);
  }

  private exitCodeOf(result: AgentResult): number {
    if (result.terminalReason !== "cancelled") return result.error?.exitCode ?? EXIT.failure;
    const name = this.parts.ctx.signalName();
    return name === "SIGTERM" ? EXIT.sigterm : name === "SIGPIPE" ? EXIT.sigpipe : EXIT.sigint;
  }

  /** A headless run's end: save the session, extract memory, check whether compaction is due. */
  private async settle(input: string, result: AgentResult): Promise<void> {
    const p = this.parts;
    const tools = p.toolSet !== undefined;
    const stopped = result.terminalReason === "cancelled" || result.terminalReason === "timeout";
    if (tools && p.spec.session?.ephemeral !== true) {
      p.session.replaceTurns(result.messages);
      await p.session.save();
    } else if (!tools && p.keep && (stopped || !result.error)) {
      // SIGINT/SIGTERM mid-answer: the question and what arrived are saved (CONTRACT §6)
      const note: ChatMessage[] =
        stopped && result.finalText.trim()
          ? [{ role: "assistant", content: `${result.finalText}\n\n[answer interrupted]` }]
          : [];
      p.session.replaceTurns([...result.messages, ...note]);
      await p.session.save().catch((error: unknown) => {
        if (!stopped) throw error;
        this.emit(
          ev("warning", {
            code: "session_not_saved",
            message: `the interrupted session was not saved: ${toChatcliError(error).message}`,
          }),
        );
      });
    }
    if (p.memory && !stopped) {
      await p.memory.extract(
        extractable(result.messages, input, p.toolSet?.untrusted ?? new Set()),
        {
          model: p.spec.model,
          configModel: p.config.model,
          feature: p.spec.command === "ask" ? "run" : p.spec.command,
          isMock: p.ref.protocol === "mock" || p.spec.provider !== undefined,
        },
      );
      await p.memory.scheduleCompaction();
    }
  }

  /** Ends the run: SessionEnd hooks, the extensions' servers, the sandbox. */
  close(): AsyncGenerator<Emitted, void> {
    return channel(async (emit) => {
      this.current = emit;
      try {
        if (this.started) await this.fire("SessionEnd");
        await this.parts.extensions.close();
        drainWarnings(this.parts.extensions, emit);
      } finally {
        this.parts.sandbox?.dispose();
        this.current = undefined;
      }
    });
  }
}
