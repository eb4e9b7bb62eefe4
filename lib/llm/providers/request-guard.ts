/** Per-request plumbing shared by the SDK providers: abort linking, stall detection, error mapping. */
import {
  kindFromStatus,
  ProviderError,
  type ProviderErrorKind,
  parseRetryAfter,
} from "../errors.ts";

/** Default idle timeout: no byte from the server for this long fails the request. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export interface RequestGuard {
  /** Pass to the SDK: aborted by the caller's signal or by the idle watchdog. */
  readonly signal: AbortSignal;
  /** Pass to the SDK: a fetch whose response bytes feed the idle watchdog. */
  readonly fetch: typeof fetch;
  /** Restarts the idle clock (after the consumer of an event hands control back). */
  touch(): void;
  /** Turns anything the SDK threw into a ProviderError. */
  toError(error: unknown): ProviderError;
  dispose(): void;
}

export interface GuardOptions {
  provider: string;
  fetch: typeof fetch;
  idleTimeoutMs?: number;
  /** Hint attached to auth errors (which env var to fix). */
  authHint?: string;
}

interface SdkErrorShape {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  message?: unknown;
  cause?: unknown;
  name?: unknown;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The server's own error message: OpenAI `{error:{message}}` or Anthropic `{error:{type,message}}`. */
function detailOf(error: SdkErrorShape): string {
  const body = error.error;
  const direct = field(body, "message");
  if (typeof direct === "string" && direct) return direct;
  const nested = field(field(body, "error"), "message");
  if (typeof nested === "string" && nested) return nested;
  return typeof error.message === "string" ? error.message : String(error);
}

function codeOf(error: SdkErrorShape): string {
  const code = field(error.error, "code") ?? field(field(error.error, "error"), "type");
  return typeof code === "string" ? code : "";
}

/**
 * An error event inside a 200 stream has no HTTP status; its body type says what it was
 * (Anthropic `overloaded_error`, OpenAI `server_error`, …).
 */
function midStreamKind(error: SdkErrorShape): ProviderErrorKind | undefined {
  const type = field(field(error.error, "error"), "type") ?? field(error.error, "type");
  if (typeof type !== "string") return undefined;
  if (/context|too_long|request_too_large/.test(type) || CONTEXT_HINT.test(detailOf(error))) {
    return "context_length";
  }
  if (/rate_limit|requests|tokens/.test(type)) return "rate_limit";
  if (/overloaded|api_error|server_error|internal/.test(type)) return "server";
  if (/authentication|permission/.test(type)) return "auth";
  if (/invalid_request/.test(type)) return "bad_request";
  return undefined;
}

const CONTEXT_HINT = /context length|context window|prompt is too long/i;

/** The URL without credentials or query (it goes into messages and the envelope). */
function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "";
  }
}

/** Creates the guard for one request; call `dispose()` when the stream ends. */
export function guardRequest(outer: AbortSignal, options: GuardOptions): RequestGuard {
  const controller = new AbortController();
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onOuterAbort = () => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener("abort", onOuterAbort, { once: true });

  function touch(): void {
    if (timer) clearTimeout(timer);
    if (controller.signal.aborted) return;
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error(`no data for ${idleMs} ms`));
    }, idleMs);
  }
  touch();

  /** Where the request went (for network errors: which endpoint could not be reached). */
  let target = "";
  const guardedFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    target = input instanceof Request ? input.url : String(input);
    const response = await options.fetch(input, init);
    touch();
    if (!response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, sink) {
          touch();
          sink.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as typeof fetch;

  function toError(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    const provider = options.provider;
    if (stalled) {
      return new ProviderError(
        "timeout",
        `${provider}: no response for ${idleMs / 1000}s (stalled)`,
        {
          provider,
          cause: error,
          hint: "the provider stopped sending mid-request; CHATCLI_STREAM_IDLE_TIMEOUT_MS sets how long to wait (ms), --timeout bounds the whole run",
        },
      );
    }
    if (outer.aborted) {
      return new ProviderError("cancelled", `${provider}: request cancelled`, {
        provider,
        cause: error,
      });
    }
    const shape = (typeof error === "object" && error !== null ? error : {}) as SdkErrorShape;
    const name = typeof shape.name === "string" ? shape.name : "";
    if (name.includes("Timeout")) {
      return new ProviderError("timeout", `${provider}: request timed out`, {
        provider,
        cause: error,
      });
    }
    const status = typeof shape.status === "number" ? shape.status : undefined;
    const midStream = status === undefined ? midStreamKind(shape) : undefined;
    if (midStream) {
      return new ProviderError(midStream, `${provider}: ${detailOf(shape)}`, {
        provider,
        cause: error,
      });
    }
    if (status === undefined) {
      const cause = shape.cause instanceof Error ? `: ${shape.cause.message}` : "";
      const endpoint = target ? endpointOf(target) : "";
      const where = endpoint ? ` (${endpoint})` : "";
      return new ProviderError("network", `${provider}: ${detailOf(shape)}${cause}${where}`, {
        provider,
        cause: error,
      });
    }
    const detail = detailOf(shape);
    const kind = /context_length/.test(codeOf(shape))
      ? "context_length"
      : kindFromStatus(status, detail);
    const headers = shape.headers instanceof Headers ? shape.headers : undefined;
    return new ProviderError(kind, `${provider}: ${status} ${detail}`, {
      provider,
      status,
      retryAfterMs: parseRetryAfter(headers),
      hint:
        kind === "auth"
          ? options.authHint
          : kind === "not_found"
            ? `check the model name (-m, or OPENAI_MODEL / ANTHROPIC_MODEL / OLLAMA_MODEL) and the endpoint${target ? ` (${endpointOf(target)})` : ""}`
            : undefined,
      cause: error,
    });
  }

  return {
    signal: controller.signal,
    fetch: guardedFetch,
    touch,
    toError,
    dispose() {
      if (timer) clearTimeout(timer);
      outer.removeEventListener("abort", onOuterAbort);
    },
  };
}
