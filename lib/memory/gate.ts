/** When the REPL runs background extraction (reference §2.18): ≥ 4 new messages, 2-min cooldown, breaker. */
export const MIN_NEW_MESSAGES = 4;
export const COOLDOWN_MS = 2 * 60_000;
export const TICK_MS = 3 * 60_000;
export const BREAKER_FAILURES = 3;
export const BREAKER_OPEN_MS = 5 * 60_000;

/** Per-session extraction bookkeeping; create one per REPL session (no module state). */
export class ExtractionGate {
  private watermark = 0;
  private lastAttemptMs: number | undefined;
  private failures = 0;
  private breakerUntilMs = 0;
  private running = false;

  /** Whether a run should start now for a history of `length` messages (call on nudge and on the 3-min tick). */
  due(length: number, nowMs: number): boolean {
    if (length < this.watermark) this.watermark = length;
    if (this.running || nowMs < this.breakerUntilMs) return false;
    if (length - this.watermark < MIN_NEW_MESSAGES) return false;
    return this.lastAttemptMs === undefined || nowMs - this.lastAttemptMs >= COOLDOWN_MS;
  }

  /** Marks a run as started; returns the index of the first message to extract. */
  begin(): number {
    this.running = true;
    return this.watermark;
  }

  /** A run finished; on failure the segment is queued to pending/ by extractAfterRun anyway. */
  finish(length: number, ok: boolean, nowMs: number): void {
    this.running = false;
    this.lastAttemptMs = nowMs;
    this.watermark = length;
    if (ok) {
      this.failures = 0;
      return;
    }
    this.failures++;
    if (this.failures >= BREAKER_FAILURES) {
      this.breakerUntilMs = nowMs + BREAKER_OPEN_MS;
      this.failures = 0;
    }
  }

  /** After `/session load` or a rewind: treat the loaded history as already seen. */
  reset(length: number): void {
    this.watermark = length;
  }
}
