/**
 * A headless run (ask, agent, coder): open, one turn, close, every event to the output sink; the
 * envelope is the fold of those events. Returns the exit code (CONTRACT §3).
 */
import type { Ctx } from "../core/ctx.ts";
import { EXIT, toChatcliError } from "../core/errors.ts";
import { errorEvent } from "../output/events.ts";
import type { RunOutput } from "../output/sinks.ts";
import { openRun } from "./open.ts";
import type { Run } from "./run.ts";
import type { RunSpec } from "./spec.ts";

export async function runHeadless(ctx: Ctx, spec: RunSpec, output: RunOutput): Promise<number> {
  const started = performance.now();
  let run: Run | undefined;
  let code: number = EXIT.ok;
  try {
    run = await openRun(ctx, spec, output.emit, { onSecrets: (v) => output.addSecrets(v) });
    const turn = run.turn();
    for (let step = await turn.next(); ; step = await turn.next()) {
      if (step.done) {
        code = step.value.exitCode;
        break;
      }
      output.emit(step.value);
    }
  } catch (error) {
    const failure = toChatcliError(error);
    code = failure.reason === "cancelled" ? cancelCode(ctx) : failure.exitCode;
    output.emit(errorEvent(failure, code, failure.reason));
  } finally {
    if (run) for await (const e of run.close()) output.emit(e);
  }
  output.finish(performance.now() - started);
  return code;
}

/** SIGINT 130, SIGTERM 143, stdout closed 141. */
export function cancelCode(ctx: Pick<Ctx, "signalName">): number {
  const name = ctx.signalName();
  return name === "SIGTERM" ? EXIT.sigterm : name === "SIGPIPE" ? EXIT.sigpipe : EXIT.sigint;
}
