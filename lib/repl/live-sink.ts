import type { Ctx, Sink } from "../core/ctx.ts";
import { newEnvelope } from "../output/envelope.ts";
import { Reporter } from "../output/reporter.ts";

/** A Sink that hands each complete line to a callback (for progress shown inside the REPL). */
export function lineSink(onLine: (line: string) => void): Sink {
  let pending = "";
  return {
    isTTY: false,
    write(text: string) {
      pending += text;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        const line = pending.slice(0, nl).replace(/^chatcli: /, "");
        if (line.trim()) onLine(line);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
      return true;
    },
  };
}

const discard: Sink = { isTTY: false, write: () => true };

/**
 * A text-mode Reporter for work the REPL runs through lib (compaction, retries, the agent loop):
 * nothing reaches stdout directly; progress lines go to `onLine`.
 */
export function replReporter(
  ctx: Pick<Ctx, "now" | "version">,
  command: string,
  onLine: (line: string) => void,
  onEvent?: (type: string, data: Record<string, unknown>) => void,
): Reporter {
  const reporter = new Reporter(
    { stdout: discard, stderr: lineSink(onLine), now: ctx.now },
    { format: "text", envelope: newEnvelope(command, ctx.version) },
  );
  reporter.listener = onEvent;
  return reporter;
}
