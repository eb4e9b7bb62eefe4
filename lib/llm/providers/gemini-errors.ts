/**
 * Gemini API errors as `@google/genai` throws them: `ApiError{status, message}` whose message is the
 * JSON of the google.rpc error body — `{error:…}`, `[{error:…}]` (array-wrapped), or
 * `got status: RESOURCE_EXHAUSTED. {error:…}` for an error chunk inside a stream. The body's details say
 * how long to wait (`google.rpc.RetryInfo.retryDelay`) and which quota ran out
 * (`google.rpc.QuotaFailure.violations[]`): a per-minute quota is a rate limit retried after its delay,
 * a per-day quota or a quota of 0 is a quota error, never retried within a run.
 */
import { kindFromStatus, ProviderError, summariseBody } from "../errors.ts";
import { describeDelay, parseDuration, retryDelayFromText } from "../retry-hints.ts";
import type { RequestGuard } from "./request-guard.ts";

type Detail = Record<string, unknown>;

interface GeminiErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Detail[];
}

/** The google.rpc error inside an ApiError's message, or undefined when it is not there. */
export function geminiErrorBody(message: string): GeminiErrorBody | undefined {
  const start = message.search(/[[{]/);
  if (start < 0) return undefined;
  try {
    let parsed = JSON.parse(message.slice(start)) as unknown;
    if (Array.isArray(parsed)) parsed = parsed[0];
    const error = (parsed as { error?: unknown } | null)?.error;
    return typeof error === "object" && error !== null ? (error as GeminiErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

function detailOfType(body: GeminiErrorBody, type: string): Detail | undefined {
  return body.details?.find(
    (d) =>
      typeof d?.["@type"] === "string" && (d["@type"] as string).endsWith(`google.rpc.${type}`),
  );
}

interface Violation {
  quotaMetric?: string;
  quotaId?: string;
  quotaValue?: string;
  quotaDimensions?: { model?: string };
}

/** "quota <id> (<metric>, limit N, model M)" for the first QuotaFailure violation. */
function quotaName(v: Violation): string {
  const parts = [
    v.quotaMetric,
    v.quotaValue !== undefined ? `limit ${v.quotaValue}` : undefined,
    v.quotaDimensions?.model ? `model ${v.quotaDimensions.model}` : undefined,
  ].filter(Boolean);
  const id = v.quotaId ?? v.quotaMetric ?? "unknown";
  return `quota ${id}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * Turns what the Gemini SDK threw into a ProviderError: the body's own message, the RetryInfo delay
 * (else the message's "Please retry in 27.03s"), and for a 429 the quota that ran out.
 */
export function geminiError(error: unknown, guard: RequestGuard, provider: string): ProviderError {
  const e = error as { name?: unknown; status?: unknown; message?: unknown };
  if (e?.name !== "ApiError" || typeof e.status !== "number" || typeof e.message !== "string") {
    return guard.toError(error);
  }
  const status = e.status;
  const body = geminiErrorBody(e.message);
  if (!body) return guard.toError(error);
  const text = body.message ?? e.message;
  const retryInfo = detailOfType(body, "RetryInfo")?.["retryDelay"];
  const fromInfo = typeof retryInfo === "string" ? parseDuration(retryInfo) : undefined;
  const wait = fromInfo ?? retryDelayFromText(text);
  const source = fromInfo !== undefined ? "RetryInfo" : "the error message";
  if (status !== 429 && status !== 402) {
    // the guard's classification (auth, not found, context length, server) on the body's own words
    const base = guard.toError({
      name: "ApiError",
      status,
      message: text,
      error: { message: text, type: body.status },
    });
    if (wait === undefined) return base;
    return new ProviderError(base.kind, base.message, {
      provider,
      status,
      retryAfterMs: wait,
      retryAfterSource: source,
      hint: base.hint,
      cause: error,
    });
  }
  const violations = detailOfType(body, "QuotaFailure")?.["violations"];
  const violation = Array.isArray(violations)
    ? (violations[0] as Violation | undefined)
    : undefined;
  // a day's quota, or none at all for this tier and model, is not refilled by waiting a few seconds
  const exhausted =
    status === 402 ||
    (violation !== undefined &&
      (/PerDay/i.test(violation.quotaId ?? "") || violation.quotaValue === "0"));
  const what = violation
    ? `${body.status ?? "RESOURCE_EXHAUSTED"}: ${quotaName(violation)} exceeded`
    : summariseBody(text);
  if (exhausted) {
    const after = wait !== undefined ? `; Gemini says retry in ${describeDelay(wait)}` : "";
    return new ProviderError("quota", `${provider}: ${status} ${what}${after}`, {
      provider,
      status,
      hint: "the Gemini API key's quota for this model is used up: wait for it to reset, enable billing or raise the quota (https://ai.google.dev/gemini-api/docs/rate-limits), or set CHATCLI_FALLBACK_PROVIDERS",
      cause: error,
    });
  }
  return new ProviderError(kindFromStatus(status, text), `${provider}: ${status} ${what}`, {
    provider,
    status,
    ...(wait !== undefined ? { retryAfterMs: wait, retryAfterSource: source } : {}),
    cause: error,
  });
}
