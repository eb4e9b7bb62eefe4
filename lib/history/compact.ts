import { asText } from "../core/as-text.ts";
import type { Env } from "../core/ctx.ts";
import { ChatcliError } from "../core/errors.ts";
import { contextWindow, type ModelId } from "../llm/context-window.ts";
import { ProviderError } from "../llm/errors.ts";
import type { ChatMessage } from "../llm/types.ts";
import { leadingSystemCount, snapCut, tailStart } from "./blocks.ts";
import { trimHistory } from "./level1.ts";
import { type Summarize, summarizeSegment, summaryMessage } from "./level2.ts";
import { truncateHistory } from "./level3.ts";
import { cutOversized, firstTaskIndex, keptTask, TASK_SHARE, taskIndices } from "./task.ts";
import { budgetFor, CHARS_PER_TOKEN, compactThreshold, estimateTokens } from "./tokens.ts";

export type CompactLevel = 1 | 2 | 3;

export type CompactPhase =
  | "start"
  | "trim"
  | "summarize"
  | "summary_failed"
  | "summary_applied"
  | "truncate"
  | "cancelled"
  | "done";

export interface CompactStats {
  messages: number;
  tokens: number;
}

export interface CompactOptions {
  budgetTokens: number;
  /** Messages kept verbatim at the end (default 10, or 4 with an instruction). */
  keepLast?: number;
  /** Guided compaction: goes into the summariser prompt; level 2 then always runs. */
  instruction?: string;
  /** An explicit `/compact`: level 2 runs even when level 1 was enough. */
  forceSummary?: boolean;
  /** Names later user messages that state the task (the agent's own task), kept like the first one. */
  isTask?: (message: ChatMessage) => boolean;
  /** Highest level allowed (default 3). */
  maxLevel?: CompactLevel;
  /** The level-2 model call; without it level 2 is skipped. */
  summarize?: Summarize;
  /** The summariser's window in tokens, to size its prompt (default 128k). */
  summarizerWindowTokens?: number;
  signal?: AbortSignal;
  onPhase?: (phase: CompactPhase, info: Record<string, unknown>) => void;
  /**
   * Called with the messages a level is about to summarise away or drop (system messages excluded),
   * before they leave the history: the place to run or queue memory extraction for them.
   */
  beforeDrop?: (messages: ChatMessage[], level: 2 | 3) => Promise<void> | void;
}

export interface CompactResult {
  messages: ChatMessage[];
  /** `cancelled`: level 2 was aborted and `messages` is the input, untouched. */
  status: "compacted" | "unchanged" | "cancelled";
  levelsRun: CompactLevel[];
  before: CompactStats;
  after: CompactStats;
  budgetTokens: number;
  underBudget: boolean;
  /** Why level 2 failed (it then fell through to level 3). */
  summaryError?: string;
}

function stats(messages: readonly ChatMessage[]): CompactStats {
  return { messages: messages.length, tokens: estimateTokens(messages) };
}

/** The 3-level pipeline (reference §3.2): trim, then summarise, then truncate, stopping once it fits. */
export async function compactHistory(
  messages: readonly ChatMessage[],
  options: CompactOptions,
): Promise<CompactResult> {
  const budget = options.budgetTokens;
  const maxLevel = options.maxLevel ?? 3;
  const guided = options.instruction !== undefined && options.instruction.trim() !== "";
  const instruction = guided ? options.instruction?.trim() : undefined;
  const keep = options.keepLast ?? (guided ? 4 : 10);
  const signal = options.signal ?? new AbortController().signal;
  const phase = options.onPhase ?? (() => {});
  const before = stats(messages);
  const levelsRun: CompactLevel[] = [];
  phase("start", { messages: before.messages, tokens: before.tokens, budget_tokens: budget });

  const systemEnd = leadingSystemCount(messages);
  // The task (first real user message, later ones that change it) survives every level, verbatim or
  // as head + tail when it alone is too big; a single huge message is cut before anything is dropped.
  const firstCut = tailStart(messages, keep, systemEnd);
  // level 1 alone needs only the first task: later ones are real user messages, never cut here
  const first = maxLevel === 1 ? firstTaskIndex(messages, systemEnd, firstCut) : -1;
  const taskAt =
    maxLevel === 1
      ? first < 0
        ? []
        : [first]
      : taskIndices(messages, systemEnd, firstCut, budget, options.isTask);
  let input = messages;
  const pinned = new Set<ChatMessage>();
  if (taskAt.length > 0) {
    const copy = messages.slice();
    for (const [n, i] of taskAt.entries()) {
      const kept = n === 0 ? keptTask(copy[i] as ChatMessage, budget, TASK_SHARE) : copy[i];
      copy[i] = kept as ChatMessage;
      pinned.add(kept as ChatMessage);
    }
    input = copy;
  }
  if (before.tokens > budget) input = cutOversized(input, budget, new Set(taskAt));
  let current = trimHistory(input, systemEnd, tailStart(input, keep, systemEnd));
  levelsRun.push(1);
  let tokens = estimateTokens(current);
  phase("trim", { tokens_before: before.tokens, tokens_after: tokens, fits: tokens <= budget });
  let summaryError: string | undefined;

  const wantSummary = guided || options.forceSummary === true || tokens > budget;
  if (wantSummary && maxLevel >= 2 && options.summarize) {
    const cut = tailStart(current, keep, systemEnd);
    const middle = current.slice(systemEnd, cut).filter((m) => !pinned.has(m));
    const tasks = current.slice(systemEnd, cut).filter((m) => pinned.has(m));
    // (the task no longer counts: a guided compaction of the Go tool's minimum middle of 2 can be 1)
    if (middle.length >= (guided ? 1 : options.forceSummary ? 2 : 4)) {
      phase("summarize", { messages: middle.length });
      try {
        signal.throwIfAborted();
        const window = options.summarizerWindowTokens ?? 128_000;
        const text = await summarizeFitting(middle, {
          instruction,
          task: tasks.map((m) => m.content),
          maxPromptChars: Math.floor(window * 0.6 * CHARS_PER_TOKEN),
          summarize: options.summarize,
          signal,
          onChunk: (index, total) => {
            if (total > 1) phase("summarize", { chunk: index, chunks: total });
          },
        });
        signal.throwIfAborted();
        await options.beforeDrop?.(
          middle.filter((m) => m.role !== "system"),
          2,
        );
        const systems = middle.filter((m) => m.role === "system");
        current = [
          ...current.slice(0, systemEnd),
          ...systems,
          ...tasks,
          summaryMessage(middle.length - systems.length, text, instruction),
          ...current.slice(cut),
        ];
        levelsRun.push(2);
        tokens = estimateTokens(current);
        phase("summary_applied", { messages: current.length, tokens });
      } catch (error) {
        if (signal.aborted) {
          phase("cancelled", {});
          return {
            messages: messages.slice(),
            status: "cancelled",
            levelsRun,
            before,
            after: before,
            budgetTokens: budget,
            underBudget: before.tokens <= budget,
          };
        }
        summaryError = asText(error);
        phase("summary_failed", { error: summaryError });
      }
    }
  }

  if (tokens > budget && maxLevel >= 3) {
    phase("truncate", {});
    // A summary made by level 2 just now sits right before the tail: keep it too.
    const keep3 = levelsRun.includes(2) ? keep + 1 : keep;
    const start = snapCut(
      current,
      current.length - Math.min(keep3, current.length - systemEnd),
      systemEnd,
    );
    const dropped = current
      .slice(systemEnd, start)
      .filter((m) => m.role !== "system" && !pinned.has(m));
    if (dropped.length > 0) await options.beforeDrop?.(dropped, 3);
    current = truncateHistory(current, keep3, budget, pinned);
    levelsRun.push(3);
    tokens = estimateTokens(current);
  }
  const after = { messages: current.length, tokens };
  const changed = current.length !== messages.length || current.some((m, i) => m !== messages[i]);
  phase("done", { ...after, levels: levelsRun });
  return {
    messages: changed ? current : messages.slice(),
    status: changed ? "compacted" : "unchanged",
    levelsRun,
    before,
    after,
    budgetTokens: budget,
    underBudget: tokens <= budget,
    ...(summaryError === undefined ? {} : { summaryError }),
  };
}

/**
 * Level 2's summary; when the summariser rejects a prompt as too long for its window (our chars/4
 * estimate was low, e.g. for CJK text or code), the segment is re-chunked at half the size, twice at most.
 */
async function summarizeFitting(
  middle: readonly ChatMessage[],
  options: Parameters<typeof summarizeSegment>[1],
): Promise<string> {
  let maxPromptChars = options.maxPromptChars;
  for (let attempt = 0; ; attempt++) {
    try {
      return await summarizeSegment(middle, { ...options, maxPromptChars });
    } catch (error) {
      const tooLong = error instanceof ProviderError && error.kind === "context_length";
      if (!tooLong || attempt >= 2 || options.signal.aborted) throw error;
      maxPromptChars = Math.floor(maxPromptChars / 2);
    }
  }
}

/**
 * Counts compactions since the last new user turn (or the last request that fitted without one), to stop
 * a compaction death spiral.
 */
export class CompactionGuard {
  private count = 0;
  constructor(readonly limit = 3) {}
  /** Call when a new user message starts a turn, or a request fitted without compaction. */
  userTurn(): void {
    this.count = 0;
  }
  get sinceUserTurn(): number {
    return this.count;
  }
  /** Records a compaction; throws context_overflow when the limit is already reached. */
  enter(): void {
    if (this.count >= this.limit) {
      throw new ChatcliError(
        "context_overflow",
        `compacted ${this.count} times since the last user message and the conversation still does not fit the context window`,
        { hint: "start a new session, or use a model with a larger context window" },
      );
    }
    this.count++;
  }
}

const TOKEN_FIELDS = ["tokens", "budget_tokens", "tokens_before", "tokens_after"];

function scaleTokens(info: Record<string, unknown>, scale: number): Record<string, unknown> {
  const out = { ...info };
  for (const key of TOKEN_FIELDS) {
    const value = out[key];
    if (typeof value === "number") out[key] = Math.round(value * scale);
  }
  return out;
}

/** Fraction of the window automatic compaction aims for (below the trigger, so it does not re-fire at once). */
export const AUTO_TARGET_RATIO = 0.6;
/** Target after a provider context-length error. */
export const RETRY_TARGET_RATIO = 0.5;

/** What the provider said when it rejected a request as too long: its own words, and its numbers. */
export interface OverflowReport {
  message: string;
  /** The prompt's size by the provider's count. */
  prompt?: number;
  /** The model's limit by the provider's count. */
  limit?: number;
}

export interface AutoCompactOptions {
  model: ModelId;
  env: Env;
  guard: CompactionGuard;
  summarize?: Summarize;
  signal?: AbortSignal;
  onPhase?: CompactOptions["onPhase"];
  beforeDrop?: CompactOptions["beforeDrop"];
  /** Verbatim tail (chat 10, agent 8). */
  keepLast?: number;
  /** After a provider context-length error: compact even under the threshold, to a lower target. */
  afterOverflowError?: boolean;
  /** The provider's context-length error: its counts steer the target, its words the failure. */
  overflow?: OverflowReport;
  isTask?: CompactOptions["isTask"];
}

/**
 * Automatic compaction before a request: does nothing under CHATCLI_COMPACT_THRESHOLD of the window;
 * otherwise runs the pipeline. Throws context_overflow when it cannot fit or keeps looping.
 * A cancelled level 2 is returned as `status: "cancelled"` with the history untouched.
 */
export async function autoCompact(
  messages: readonly ChatMessage[],
  options: AutoCompactOptions,
): Promise<CompactResult | undefined> {
  const window = contextWindow(options.model, options.env);
  const trigger = budgetFor(options.model, options.env, compactThreshold(options.env));
  const tokens = estimateTokens(messages);
  if (!options.afterOverflowError && tokens <= trigger) return undefined;
  options.guard.enter();
  // After a context-length error our estimate was too low: aim for half of what we sent as well.
  // The target sits below the trigger (¾ of it at most), whatever CHATCLI_COMPACT_THRESHOLD is.
  const target = Math.min(AUTO_TARGET_RATIO, compactThreshold(options.env) * 0.75);
  // the provider's tokens per estimated token: its count of what was sent over our estimate of it
  const overflow = options.overflow;
  const scale = overflow?.prompt && tokens > 0 ? overflow.prompt / tokens : 1;
  const limitBudget = overflow?.limit
    ? Math.floor((overflow.limit * RETRY_TARGET_RATIO) / scale)
    : Number.POSITIVE_INFINITY;
  const budgetTokens = options.afterOverflowError
    ? Math.min(
        budgetFor(options.model, options.env, RETRY_TARGET_RATIO),
        Math.floor(tokens / 2),
        limitBudget,
      )
    : budgetFor(options.model, options.env, target);
  const result = await compactHistory(messages, {
    budgetTokens,
    keepLast: options.keepLast ?? 10,
    summarize: options.summarize,
    summarizerWindowTokens: window,
    signal: options.signal,
    // after a provider's count, progress speaks its numbers too (our estimate scaled to them)
    onPhase:
      scale === 1 || !options.onPhase
        ? options.onPhase
        : (phase, info) => options.onPhase?.(phase, scaleTokens(info, scale)),
    beforeDrop: options.beforeDrop,
    ...(options.isTask ? { isTask: options.isTask } : {}),
  });
  if (result.status === "cancelled") return result;
  const stuck = options.afterOverflowError
    ? result.after.tokens >= tokens
    : result.after.tokens > trigger;
  if (stuck && overflow) {
    // the provider's words, and numbers on its scale (our estimate scaled by its count)
    const after = Math.round(result.after.tokens * scale);
    const size = overflow.prompt
      ? `~${after} tokens after compaction by the provider's count`
      : `an estimated ~${after} tokens after compaction`;
    const limit = overflow.limit ? `; the limit is ${overflow.limit}` : "";
    throw new ChatcliError(
      "context_overflow",
      `${overflow.message} — compaction could not make it fit (${size}${limit})`,
      { hint: "shorten the system prompt or input, or use a model with a larger context window" },
    );
  }
  if (stuck) {
    throw new ChatcliError(
      "context_overflow",
      `the conversation needs ~${result.after.tokens} tokens after compaction, more than the model's context allows (~${trigger} of ${window})`,
      { hint: "shorten the system prompt or input, or use a model with a larger context window" },
    );
  }
  return result;
}
