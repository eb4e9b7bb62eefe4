import type { Emit, Emitted } from "../output/events.ts";

/**
 * Turns work that emits events into an async generator of them: `run.turn(input)` yields each
 * event as the work raises it and returns the work's result. `drained` resolves once the consumer
 * has taken (and rendered) everything emitted so far — a question to a human waits for it, so the
 * lines before a prompt are on screen.
 */
export async function* channel<R>(
  work: (emit: Emit, drained: () => Promise<void>) => Promise<R>,
): AsyncGenerator<Emitted, R> {
  const queue: Emitted[] = [];
  let wake: (() => void) | undefined;
  const waiters: Array<() => void> = [];
  let done = false;
  let result: R | undefined;
  let failure: { error: unknown } | undefined;
  const emit: Emit = (event) => {
    queue.push(event);
    wake?.();
  };
  const drained = () =>
    queue.length === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r));
  const running = work(emit, drained).then(
    (r) => {
      result = r;
    },
    (error: unknown) => {
      failure = { error };
    },
  );
  void running.finally(() => {
    done = true;
    wake?.();
  });
  for (;;) {
    while (queue.length > 0) yield queue.shift() as Emitted;
    for (const w of waiters.splice(0)) w();
    if (done) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  await running;
  if (failure) throw failure.error;
  return result as R;
}
