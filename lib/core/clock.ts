import type { Env } from "./ctx.ts";

/**
 * The process clock. `CHATCLI_NOW` (an RFC 3339 time) starts it at a fixed instant that then ticks
 * with real time — for reproducible runs and tests (dates in memory, daily notes, "due" compactions)
 * without changing durations. An unparsable value is ignored: the real clock is used.
 */
export function clockFromEnv(env: Env, realNow: () => number = Date.now): () => Date {
  const fixed = env["CHATCLI_NOW"] ? Date.parse(env["CHATCLI_NOW"]) : Number.NaN;
  if (Number.isNaN(fixed)) return () => new Date(realNow());
  const start = realNow();
  return () => new Date(fixed + (realNow() - start));
}
