/** What SDK errors look like, read without trusting their types: the server's words, code and kind. */
import { kindFromStatus, type ProviderErrorKind, summariseBody } from "../errors.ts";
import { isQuotaCode } from "../retry-hints.ts";

export interface SdkErrorShape {
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
export function detailOf(error: SdkErrorShape): string {
  const body = error.error;
  if (typeof body === "string" && body) return summariseBody(body); // xAI: {"error": "…"}
  const direct = field(body, "message");
  if (typeof direct === "string" && direct) return summariseBody(direct);
  const nested = field(field(body, "error"), "message");
  if (typeof nested === "string" && nested) return summariseBody(nested);
  if (typeof error.message !== "string") return "unknown error";
  // the SDKs prefix the status ("502 <html>…"); the caller adds it back once
  const status = typeof error.status === "number" ? String(error.status) : "";
  const text =
    status && error.message.startsWith(`${status} `)
      ? error.message.slice(status.length + 1)
      : error.message;
  return summariseBody(text);
}

export function codeOf(error: SdkErrorShape): string {
  const code = field(error.error, "code") ?? field(field(error.error, "error"), "type");
  return typeof code === "string" ? code : "";
}

/**
 * An error event inside a 200 stream has no HTTP status; its body type says what it was
 * (Anthropic `overloaded_error`, OpenAI `server_error`, …).
 */
export function midStreamKind(error: SdkErrorShape): ProviderErrorKind | undefined {
  const type = field(field(error.error, "error"), "type") ?? field(error.error, "type");
  // OpenRouter: {"error":{"code":502,"message":…}} — the code is the HTTP status it stands for
  const code = field(error.error, "code") ?? field(field(error.error, "error"), "code");
  const status =
    typeof code === "number"
      ? code
      : typeof code === "string" && /^[45]\d\d$/.test(code)
        ? Number(code)
        : undefined;
  if (isQuotaCode(type) || isQuotaCode(code)) return "quota";
  if (status !== undefined && status >= 400 && status < 600) {
    const kind = kindFromStatus(status, detailOf(error));
    if (kind !== "bad_request" || typeof type !== "string") return kind;
  }
  if (typeof type !== "string") return undefined;
  if (/context|too_long|request_too_large/.test(type) || CONTEXT_HINT.test(detailOf(error))) {
    return "context_length";
  }
  if (/rate_limit|requests|tokens|resource_exhausted/i.test(type)) return "rate_limit";
  if (/overloaded|api_error|server_error|internal|timeout|unavailable/.test(type)) return "server";
  if (/authentication|permission/.test(type)) return "auth";
  if (/invalid_request/.test(type)) return "bad_request";
  return undefined;
}

const CONTEXT_HINT = /context length|context window|prompt is too long/i;

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
