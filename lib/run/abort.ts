import type { Ctx } from "../core/ctx.ts";
import { ChatcliError, EXIT } from "../core/errors.ts";

export interface RunSignal {
  signal: AbortSignal;
  /** Why the run was stopped, when it was: a ChatcliError with the right reason and exit code. */
  stopError(): { error: ChatcliError; exitCode: number; quiet: boolean } | undefined;
  dispose(): void;
}

/** Combines the process signal (SIGINT/SIGTERM/stdout closed) with an optional --timeout. */
export function runSignal(ctx: Pick<Ctx, "signal" | "signalName">, timeoutMs?: number): RunSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new Error("timeout"));
        }, timeoutMs);
  return {
    signal: controller.signal,
    stopError() {
      if (ctx.signal.aborted) {
        const name = ctx.signalName() ?? "SIGINT";
        const exitCode =
          name === "SIGTERM" ? EXIT.sigterm : name === "SIGPIPE" ? EXIT.sigpipe : EXIT.sigint;
        return {
          error: new ChatcliError(
            "cancelled",
            `cancelled by ${name === "SIGPIPE" ? "closed stdout" : name}`,
          ),
          exitCode,
          // `| head` closing the pipe is normal shell use: no message.
          quiet: name === "SIGPIPE",
        };
      }
      if (timedOut) {
        const seconds = ((timeoutMs ?? 0) / 1000).toFixed(1).replace(/\.0$/, "");
        return {
          error: new ChatcliError("timeout", `timed out after ${seconds} s (--timeout)`, {
            hint: "raise --timeout",
          }),
          exitCode: EXIT.timeout,
          quiet: false,
        };
      }
      return undefined;
    },
    dispose() {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * For work before a run's own limits start (reading stdin): aborts on SIGINT/SIGTERM with the process
 * signal's reason, and after `timeoutMs` with a `timeout` error (exit 124).
 */
export function readStopSignal(
  ctx: Pick<Ctx, "signal">,
  timeoutMs?: number,
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const seconds = (timeoutMs / 1000).toFixed(1).replace(/\.0$/, "");
          controller.abort(
            new ChatcliError("timeout", `timed out after ${seconds} s (--timeout) reading stdin`, {
              hint: "raise --timeout, or check what feeds stdin",
            }),
          );
        }, timeoutMs);
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
    },
  };
}
