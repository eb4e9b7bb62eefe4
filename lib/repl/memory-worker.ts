/**
 * When the REPL asks lib/memory to extract facts (reference §2.18): after a turn or an agent run
 * and on a 3-minute ticker, only when ≥ 4 messages are new, ≥ 2 minutes after the last attempt,
 * with a circuit breaker (open 5 minutes after 3 failures in a row). Runs in the background —
 * input never waits for it — and queues one-line notices the REPL prints between turns.
 */
import type { ChatMessage } from "../llm/types.ts";

export interface MemoryWorkerDeps {
  /**
   * Extracts facts from `segment`; resolves to the notice to print (`memory: +2 fact(s)`) or
   * undefined for a silent success; throws when every provider failed (lib/memory has then queued
   * the segment in `pending/`).
   */
  extract(segment: readonly ChatMessage[], signal: AbortSignal): Promise<string | undefined>;
  now(): Date;
}

export const MIN_NEW_MESSAGES = 4;
export const COOLDOWN_MS = 2 * 60_000;
export const TICK_MS = 3 * 60_000;
const BREAKER_FAILURES = 3;
const BREAKER_OPEN_MS = 5 * 60_000;
const WARN_AFTER_FAILURES = 2;

export class MemoryWorker {
  private watermark = 0;
  private running: Promise<void> | undefined;
  private lastAttemptAt: number | undefined;
  private failures = 0;
  private warned = false;
  private breakerUntil = 0;
  private readonly notices: string[] = [];
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: MemoryWorkerDeps) {}

  /** Starts the 3-minute ticker (never keeps the process alive). */
  startTicker(history: () => readonly ChatMessage[]): void {
    this.timer ??= setInterval(() => this.nudge(history()), TICK_MS);
    this.timer.unref?.();
  }

  /**
   * A conversation was opened (`--session`, `/session load`): its `length` messages count as already
   * extracted — they were, when they happened (the reference's suggestion over Go's index watermark,
   * which re-extracts a whole loaded session and re-counts its notes and topics).
   */
  baseline(length: number): void {
    this.watermark = length;
  }

  /** Starts an extraction in the background when the gate allows; returns whether it started. */
  nudge(history: readonly ChatMessage[]): boolean {
    if (this.running || this.controller.signal.aborted) return false;
    if (history.length < this.watermark) this.watermark = history.length;
    const now = this.deps.now().getTime();
    if (history.length - this.watermark < MIN_NEW_MESSAGES) return false;
    if (this.lastAttemptAt !== undefined && now - this.lastAttemptAt < COOLDOWN_MS) return false;
    if (now < this.breakerUntil) return false;
    const end = history.length;
    const segment = history.slice(this.watermark, end);
    this.running = this.run(segment, end).finally(() => {
      this.running = undefined;
    });
    return true;
  }

  private async run(segment: readonly ChatMessage[], end: number): Promise<void> {
    try {
      const notice = await this.deps.extract(segment, this.controller.signal);
      this.failures = 0;
      this.warned = false;
      if (notice) this.notices.push(notice);
    } catch {
      this.failures += 1;
      if (this.failures >= BREAKER_FAILURES) {
        this.breakerUntil = this.deps.now().getTime() + BREAKER_OPEN_MS;
      }
      if (this.failures >= WARN_AFTER_FAILURES && !this.warned) {
        this.warned = true;
        this.notices.push(
          `memory: extraction failing (${this.failures} in a row) — recent facts are queued on disk and will be retried automatically`,
        );
      }
    } finally {
      // Success or failure, the segment is handled (extracted, or queued in pending/).
      this.watermark = Math.max(this.watermark, end);
      this.lastAttemptAt = this.deps.now().getTime();
    }
  }

  /** Notices waiting to be printed (emptied by the call). */
  drainNotices(): string[] {
    return this.notices.splice(0);
  }

  /** Resolves when no extraction is running (tests, and exit). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Stops the ticker and cancels a running extraction. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.controller.abort(new Error("repl closing"));
    await this.idle();
  }
}
