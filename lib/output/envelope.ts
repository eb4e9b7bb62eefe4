import type { ChatcliError, TerminalReason } from "../core/errors.ts";
import { exitCodeFor } from "../core/errors.ts";
import type { Envelope } from "./events.ts";

/** Sets status, exit code and reason together so the invariant is_error == (exit != 0) holds. */
export function settle(envelope: Envelope, reason: TerminalReason, exitCode?: number): Envelope {
  const code = exitCode ?? exitCodeFor(reason);
  envelope.terminal_reason = reason;
  envelope.exit_code = code;
  envelope.is_error = code !== 0;
  envelope.status = code === 0 ? "success" : "error";
  return envelope;
}

/** Records a failure on the envelope. */
export function settleError(envelope: Envelope, error: ChatcliError, exitCode?: number): Envelope {
  settle(envelope, error.reason, exitCode ?? error.exitCode);
  envelope.error = {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    hint: error.hint ?? null,
  };
  return envelope;
}
