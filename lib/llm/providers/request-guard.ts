/** Per-request plumbing shared by the SDK providers: abort linking, stall detection, error mapping. */

import { kindFromStatus, ProviderError, parseRetryAfter, summariseBody } from "../errors.ts";
import { isQuotaCode, isQuotaMessage, retryDelayFromText } from "../retry-hints.ts";
import { codeOf, detailOf, midStreamKind, type SdkErrorShape, safeJson } from "./sdk-errors.ts";

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
  /** Pass to the SDK as `logger`: what it would print goes into errors and warnings, never to stderr. */
  readonly logger: SdkLogger;
  /** Whether the event stream carried `data: [DONE]` (OpenAI's terminal sentinel, consumed by the SDK). */
  readonly sawDone: boolean;
  dispose(): void;
}

/** The logger interface both SDKs accept. */
export interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

export interface GuardOptions {
  provider: string;
  fetch: typeof fetch;
  idleTimeoutMs?: number;
  /** Hint attached to auth errors (which env var to fix). */
  authHint?: string;
  /** Hint attached to quota errors (where the provider's billing is); a generic one otherwise. */
  quotaHint?: string;
  /** Where the SDK's warnings go (deps.warn); dropped when absent. */
  warn?: (code: string, message: string) => void;
}

/** The URL without credentials or query (it goes into messages and the envelope). */
function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "";
  }
}

const QUOTA_HINT =
  "the account's quota or credit ran out: check its plan and billing; retrying will not help until it is raised (CHATCLI_FALLBACK_PROVIDERS can name another provider)";

/** `(insufficient_quota)` after a message that does not already name its code. */
function codeSuffix(code: string, detail: string): string {
  return code && !detail.includes(code) ? ` (${code})` : "";
}

/**
 * The name of the quota an HTTP error says ran out (rather than a rate limit), or undefined: its
 * code (OpenAI `insufficient_quota`, Anthropic `error.details.error_code: enforced_spend_limit_reached`),
 * Bedrock's `x-amzn-errortype: ServiceQuotaExceededException`, or Anthropic's credit/usage-limit
 * wording ("" then: the message says it).
 */
function quotaOf(shape: SdkErrorShape, detail: string, headers: Headers | undefined) {
  const body = shape.error as Record<string, unknown> | undefined;
  const inner = (body?.["error"] ?? body) as Record<string, unknown> | undefined;
  const details = inner?.["details"] as Record<string, unknown> | undefined;
  const code = [inner?.["code"], details?.["error_code"], inner?.["type"]].find(isQuotaCode);
  if (typeof code === "string") return code;
  const amzn = /^ServiceQuotaExceeded\w*/.exec(headers?.get("x-amzn-errortype") ?? "")?.[0];
  if (amzn) return amzn;
  return isQuotaMessage(detail) ? "" : undefined;
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
  let sawDone = false;
  /** The tail of the body not yet ended by a newline (the SSE scan works line by line). */
  let pendingLine = "";
  const decoder = new TextDecoder();
  function scan(chunk: Uint8Array): void {
    const text = pendingLine + decoder.decode(chunk, { stream: true });
    const lines = text.split(/\r\n|\r|\n/);
    pendingLine = (lines.pop() ?? "").slice(-64);
    for (const line of lines) if (/^data: ?\[DONE\]\s*$/.test(line)) sawDone = true;
  }
  const guardedFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    target = input instanceof Request ? input.url : String(input);
    const response = await options.fetch(input, init);
    touch();
    if (!response.body) return response;
    const type = response.headers.get("content-type") ?? "";
    if (response.ok && /text\/html/i.test(type)) {
      // a captive portal or a proxy's page answered instead of the API
      const page = await response.text().catch(() => "");
      throw new ProviderError(
        "server",
        `${options.provider}: ${response.status} the endpoint answered with ${summariseBody(page)} instead of the API`,
        {
          provider: options.provider,
          status: response.status,
          hint: `check the endpoint (${endpointOf(target)})`,
        },
      );
    }
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, sink) {
          touch();
          scan(chunk);
          sink.enqueue(chunk);
        },
        flush() {
          if (/^data: ?\[DONE\]\s*$/.test(pendingLine)) sawDone = true;
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as typeof fetch;

  /** What the SDK logged (e.g. "Could not parse message into JSON:" and the event), for the error. */
  const logged: string[] = [];
  const describe = (message: string, rest: unknown[]) =>
    [message, ...rest.map((r) => (typeof r === "string" ? r : safeJson(r)))]
      .join(" ")
      .slice(0, 400);
  const logger: SdkLogger = {
    error: (message, ...rest) => {
      logged.push(describe(message, rest));
    },
    warn: (message, ...rest) => options.warn?.("sdk_warning", describe(message, rest)),
    info: () => {},
    debug: () => {},
  };

  function toError(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    // a ProviderError thrown inside fetch reaches us wrapped as the SDK's connection error
    const inner = (error as { cause?: unknown } | null)?.cause;
    if (inner instanceof ProviderError) return inner;
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
    if (status === undefined && (name === "SyntaxError" || error instanceof SyntaxError)) {
      const what = logged.find(
        (l) => !/^Could not parse message into JSON:?$|^From chunk:?$/.test(l),
      );
      const event = what
        ? `: ${summariseBody(what.replace(/^Could not parse message into JSON:\s*/, ""), 160)}`
        : "";
      return new ProviderError(
        "bad_response",
        `${provider}: the stream carried an event that is not valid JSON${event}`,
        {
          provider,
          cause: error,
          hint: "a proxy or an OpenAI-compatible server broke the event stream; it is retried before any output",
        },
      );
    }
    const midStream = status === undefined ? midStreamKind(shape) : undefined;
    if (midStream) {
      const detail = detailOf(shape);
      const code = midStream === "quota" ? codeOf(shape) : "";
      const wait = midStream === "rate_limit" ? retryDelayFromText(detail) : undefined;
      return new ProviderError(midStream, `${provider}: ${detail}${codeSuffix(code, detail)}`, {
        provider,
        cause: error,
        ...(wait !== undefined
          ? { retryAfterMs: wait, retryAfterSource: "the error message" }
          : {}),
        hint: midStream === "quota" ? (options.quotaHint ?? QUOTA_HINT) : undefined,
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
    const code = codeOf(shape);
    const headers = shape.headers instanceof Headers ? shape.headers : undefined;
    const quota = quotaOf(shape, detail, headers);
    const kind =
      quota !== undefined
        ? "quota"
        : /context_length/.test(code)
          ? "context_length"
          : kindFromStatus(status, detail);
    // the header wins; without one, the wait the body states ("Please try again in 1.898s")
    const header = parseRetryAfter(headers);
    const stated = header === undefined ? retryDelayFromText(detail) : undefined;
    return new ProviderError(
      kind,
      `${provider}: ${status} ${detail}${quota ? codeSuffix(quota, detail) : ""}`,
      {
        provider,
        status,
        ...(kind === "quota"
          ? {}
          : header !== undefined
            ? { retryAfterMs: header, retryAfterSource: "retry-after" }
            : stated !== undefined
              ? { retryAfterMs: stated, retryAfterSource: "the error message" }
              : {}),
        hint:
          kind === "auth"
            ? options.authHint
            : kind === "quota"
              ? (options.quotaHint ?? QUOTA_HINT)
              : kind === "not_found"
                ? `check the model name (-m, or OPENAI_MODEL / ANTHROPIC_MODEL / OLLAMA_MODEL) and the endpoint${target ? ` (${endpointOf(target)})` : ""}`
                : undefined,
        cause: error,
      },
    );
  }

  return {
    signal: controller.signal,
    fetch: guardedFetch,
    touch,
    toError,
    logger,
    get sawDone() {
      return sawDone;
    },
    dispose() {
      if (timer) clearTimeout(timer);
      outer.removeEventListener("abort", onOuterAbort);
    },
  };
}
