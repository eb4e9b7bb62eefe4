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
  /** the stream ended without its terminal event: a dropped connection, never a finished answer */
  | "truncated"
  /** the stream carried something that is not the protocol (malformed event JSON) */
  | "bad_response"
  /** the model or the provider's filter declined to answer */
  | "refused"
  /**
   * a quota that waiting a few seconds cannot refill (OpenAI insufficient_quota, a Gemini per-day or
   * zero quota, an Anthropic spend limit, a Bedrock service quota): never retried, the fallback chain
   * may still answer
   */
  | "quota"
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
  truncated: { retry: true, fallback: true, reason: "stream_truncated" },
  bad_response: { retry: true, fallback: true, reason: "provider_error" },
  refused: { retry: false, fallback: false, reason: "refused" },
  quota: { retry: false, fallback: true, reason: "rate_limited" },
  cancelled: { retry: false, fallback: false, reason: "cancelled" },
};

export class ProviderError extends ChatcliError {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** Where retryAfterMs came from: `retry-after` (header), `RetryInfo` (Gemini), `the error message`. */
  readonly retryAfterSource: string | undefined;
  readonly provider: string;
  /** For context-length errors: the token counts the provider's own message states. */
  readonly context: ContextCounts | undefined;
  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: {
      status?: number;
      retryAfterMs?: number;
      retryAfterSource?: string;
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
    this.retryAfterSource =
      options.retryAfterMs === undefined ? undefined : (options.retryAfterSource ?? "retry-after");
    this.provider = options.provider;
    this.context = kind === "context_length" ? contextCounts(message) : undefined;
  }
}

/** What a context-length message says: the prompt's size and the model's limit, in the provider's tokens. */
export interface ContextCounts {
  prompt?: number;
  limit?: number;
}

const NUMBER = "(\\d[\\d,_]*)";
/** [regex, group of the prompt size, group of the limit] in the wordings providers use. */
const CONTEXT_WORDINGS: [RegExp, number, number][] = [
  // Anthropic: "prompt is too long: 208000 tokens > 200000 maximum"
  [new RegExp(`${NUMBER} tokens? > ${NUMBER}(?: tokens?)? maximum`, "i"), 1, 2],
  // Mistral: "Prompt contains 40000 tokens … too large for model with 32768 maximum context length"
  [new RegExp(`contains ${NUMBER} tokens.*?with ${NUMBER} maximum context`, "i"), 1, 2],
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
  [
    new RegExp(
      `token count \\(${NUMBER}\\) exceeds the maximum number of tokens allowed \\(${NUMBER}\\)`,
      "i",
    ),
    1,
    2,
  ],
  // xAI: "maximum prompt length is 131072 but the request contains 140000 tokens"
  [new RegExp(`maximum prompt length is ${NUMBER} but the request contains ${NUMBER}`, "i"), 2, 1],
];
const LIMIT_WORDINGS = [
  // OpenAI, DeepSeek, OpenRouter, vLLM: "maximum context length is 128000 tokens"
  new RegExp(`maximum context length is ${NUMBER}`, "i"),
  new RegExp(`(?:configured )?limit of ${NUMBER} tokens`, "i"),
  new RegExp(`context (?:length|window)(?: of| is)? ${NUMBER}`, "i"),
];
const PROMPT_WORDINGS = [
  // "your messages resulted in 130532 tokens", "you requested 70000 tokens", "requested about 200000 tokens"
  new RegExp(`(?:resulted in|requested(?: about)?|contains|prompt has) ${NUMBER} tokens`, "i"),
  new RegExp(
    `${NUMBER} (?:input )?tokens? (?:is|are|exceeds?) (?:more than|greater than|too)`,
    "i",
  ),
];

function toNumber(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const n = Number(text.replace(/[,_]/g, ""));
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Reads the prompt size and the limit out of a provider's context-length message (either may be absent). */
export function contextCounts(message: string): ContextCounts | undefined {
  for (const [re, promptGroup, limitGroup] of CONTEXT_WORDINGS) {
    const m = re.exec(message);
    if (m) return { prompt: toNumber(m[promptGroup]), limit: toNumber(m[limitGroup]) };
  }
  let limit: number | undefined;
  let prompt: number | undefined;
  for (const re of LIMIT_WORDINGS) limit ??= toNumber(re.exec(message)?.[1]);
  for (const re of PROMPT_WORDINGS) prompt ??= toNumber(re.exec(message)?.[1]);
  return limit === undefined && prompt === undefined ? undefined : { prompt, limit };
}

/**
 * An error body made readable: an HTML page (a proxy's or a gateway's error page) becomes its title,
 * anything else is cut to one line of bounded length.
 */
export function summariseBody(text: string, max = 300): string {
  if (/<(?:!doctype html|html|head|body|title)[\s>]/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
    const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
    const name = (title ?? heading ?? "")
      .replace(/<[^>]*>/g, "")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&#39;|&apos;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, " ")
      .trim();
    return name ? `an HTML page ("${name.slice(0, 120)}")` : "an HTML page";
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

const CONTEXT_PATTERNS =
  /context[_ ]length|context window|maximum context|maximum prompt length|too many tokens|prompt is too long|input is too long|too large for model|exceeds the (?:maximum|model'?s?)|reduce the length/i;

/** Classifies an HTTP status (and body text) into a ProviderErrorKind. */
export function kindFromStatus(status: number | undefined, message: string): ProviderErrorKind {
  // Rate limits and server errors are retryable whatever their text says (529: Anthropic overloaded).
  if (status === 429) return "rate_limit";
  // 402 Payment Required: Anthropic billing_error, Gemini's prepaid credits — money, not time
  if (status === 402) return "quota";
  if (status !== undefined && status >= 500) return "server";
  if (CONTEXT_PATTERNS.test(message)) return "context_length";
  if (status === undefined) return "network";
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status === 413) return "context_length";
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

/** A context-length error as compaction needs it: the provider's words and its counts. */
export function overflowReport(
  error: unknown,
): { message: string; prompt?: number; limit?: number } | undefined {
  if (!(error instanceof ProviderError) || error.kind !== "context_length") return undefined;
  return { message: error.message, ...error.context };
}
