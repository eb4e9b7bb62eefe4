import { ChatcliError, type TerminalReason } from "../core/errors.ts";

/** What went wrong at a provider, normalised from SDK errors; `ERROR_TABLE` decides what to do. */
export type ProviderErrorKind =
  | "auth"
  | "rate_limit"
  | "server"
  | "network"
  | "timeout"
  | "context_length"
  | "bad_request"
  | "not_found"
  | "cancelled";

interface Action {
  retry: boolean;
  fallback: boolean;
  reason: TerminalReason;
}

/** One table for every provider error (mods-style): retry? try the fallback chain? which exit? */
export const ERROR_TABLE: Record<ProviderErrorKind, Action> = {
  auth: { retry: false, fallback: false, reason: "auth_error" },
  rate_limit: { retry: true, fallback: true, reason: "rate_limited" },
  server: { retry: true, fallback: true, reason: "provider_error" },
  network: { retry: true, fallback: true, reason: "provider_error" },
  timeout: { retry: true, fallback: true, reason: "provider_error" },
  context_length: { retry: false, fallback: false, reason: "context_overflow" },
  bad_request: { retry: false, fallback: false, reason: "provider_error" },
  not_found: { retry: false, fallback: false, reason: "config_error" },
  cancelled: { retry: false, fallback: false, reason: "cancelled" },
};

export class ProviderError extends ChatcliError {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly provider: string;
  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: {
      status?: number;
      retryAfterMs?: number;
      provider: string;
      hint?: string;
      cause?: unknown;
    },
  ) {
    super(ERROR_TABLE[kind].reason, message, {
      hint: options.hint,
      retryable: ERROR_TABLE[kind].retry,
      cause: options.cause,
    });
    this.name = "ProviderError";
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.provider = options.provider;
  }
}

const CONTEXT_PATTERNS =
  /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|input is too long|exceeds the (?:maximum|model'?s?)|reduce the length/i;

/** Classifies an HTTP status (and body text) into a ProviderErrorKind. */
export function kindFromStatus(status: number | undefined, message: string): ProviderErrorKind {
  // Rate limits and server errors are retryable whatever their text says.
  if (status === 429) return "rate_limit";
  if (status !== undefined && status >= 500) return "server";
  if (CONTEXT_PATTERNS.test(message)) return "context_length";
  if (status === undefined) return "network";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limit";
  if (status === 413) return "context_length";
  if (status >= 500) return "server";
  return "bad_request";
}

/** Parses `retry-after` (seconds or HTTP date) and `retry-after-ms` headers. */
export function parseRetryAfter(
  headers: Headers | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
