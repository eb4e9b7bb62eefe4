import { asText } from "../core/as-text.ts";
import type { Key } from "./keys.ts";
import type { KeyReader } from "./tty.ts";

/** The outcome of an operation the user may cancel with Esc or Ctrl+C. */
export type Cancellable<T> =
  | { ok: true; value: T }
  | { ok: false; cancelled: true }
  | { ok: false; cancelled: false; error: Error };

export interface CancelControls {
  /** Lends the keyboard to a prompt inside the operation (an approval), then takes it back. */
  pause<U>(inner: () => Promise<U>): Promise<U>;
  /** Cancels the operation from inside (an approval answered with Esc). */
  cancel(): void;
}

export type CancellableFn<T> = (signal: AbortSignal, controls: CancelControls) => Promise<T>;

/**
 * Runs `fn` while watching the keyboard: Esc or Ctrl+C aborts its signal (as does `outer`, e.g.
 * SIGTERM). Other keys typed meanwhile are put back for the next prompt. An operation that
 * finishes before the cancel takes effect counts as done; one that throws after a cancel counts
 * as cancelled, whatever it threw.
 */
export async function runCancellable<T>(
  keys: KeyReader,
  outer: AbortSignal,
  fn: CancellableFn<T>,
): Promise<Cancellable<T>> {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, outer]);
  const cancel = () => controller.abort(new Error("cancelled"));
  const typeahead: Key[] = [];
  let finished = false;
  let paused: Promise<void> | undefined;
  let waitStop = new AbortController();
  const watch = (async () => {
    while (!finished) {
      if (paused) {
        await paused;
        continue;
      }
      waitStop = new AbortController();
      const key = await keys.next(AbortSignal.any([waitStop.signal, signal]));
      if (!key) {
        if (keys.closed || signal.aborted) break;
        continue;
      }
      if (key.name === "ctrl-c" || key.name === "escape") cancel();
      else if (key.name !== "resize") typeahead.push(key);
    }
  })();
  const pause = async <U>(inner: () => Promise<U>): Promise<U> => {
    let release = () => {};
    paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    waitStop.abort();
    try {
      return await inner();
    } finally {
      paused = undefined;
      release();
    }
  };
  try {
    return { ok: true, value: await fn(signal, { pause, cancel }) };
  } catch (error) {
    if (signal.aborted) return { ok: false, cancelled: true };
    return {
      ok: false,
      cancelled: false,
      error: error instanceof Error ? error : new Error(asText(error)),
    };
  } finally {
    finished = true;
    waitStop.abort();
    await watch;
    keys.unread(typeahead);
  }
}
