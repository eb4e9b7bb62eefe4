/**
 * Gemini API errors as the API sends them, for `MockLlm.pushRaw`: the google.rpc error model
 * `{error: {code, message, status, details[]}}` whose details carry typed entries —
 * `type.googleapis.com/google.rpc.QuotaFailure` (the quota that ran out: metric, quotaId, dimensions,
 * value), `google.rpc.Help` (links) and `google.rpc.RetryInfo` (`retryDelay`, a protobuf Duration in
 * JSON: "27s", "0.250s") — with the message's own "Please retry in 27.03s." line.
 */
import type { RawReply } from "./mock-llm.ts";

// biome-ignore lint/suspicious/noExplicitAny: wire payloads are arbitrary JSON
type Json = any;

export interface GeminiQuotaOptions {
  /** RetryInfo.retryDelay as sent ("27s"); omitted: no RetryInfo entry. */
  retryDelay?: string;
  /** What the message's last line says ("Please retry in 27.4s."); omitted: no such line. */
  retryIn?: string;
  /** QuotaFailure quotaId: per minute (a rate limit) or per day (a quota that waiting a while cannot fix). */
  quotaId?: string;
  metric?: string;
  limit?: number;
  model?: string;
}

/** The body of a Gemini 429 RESOURCE_EXHAUSTED. */
export function geminiQuotaBody(o: GeminiQuotaOptions = {}): Json {
  const metric =
    o.metric ?? "generativelanguage.googleapis.com/generate_content_free_tier_requests";
  const model = o.model ?? "gemini-2.5-flash";
  const limit = o.limit ?? 10;
  const details: Json[] = [
    {
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [
        {
          quotaMetric: metric,
          quotaId: o.quotaId ?? "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
          quotaDimensions: { location: "global", model },
          quotaValue: String(limit),
        },
      ],
    },
    {
      "@type": "type.googleapis.com/google.rpc.Help",
      links: [
        {
          description: "Learn more about Gemini API quotas",
          url: "https://ai.google.dev/gemini-api/docs/rate-limits",
        },
      ],
    },
  ];
  if (o.retryDelay !== undefined) {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: o.retryDelay });
  }
  const retryLine = o.retryIn !== undefined ? `\nPlease retry in ${o.retryIn}.` : "";
  return {
    error: {
      code: 429,
      message:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. " +
        `\n* Quota exceeded for metric: ${metric}, limit: ${limit}, model: ${model}${retryLine}`,
      status: "RESOURCE_EXHAUSTED",
      details,
    },
  };
}

/** A Gemini 429 as an HTTP answer (JSON body, no retry-after header: the delay is in the body). */
export function geminiQuota429(o: GeminiQuotaOptions = {}): RawReply {
  return {
    status: 429,
    headers: { "content-type": "application/json; charset=UTF-8", vary: "Origin, X-Origin" },
    frames: [JSON.stringify(geminiQuotaBody(o), null, 2)],
  };
}

/** A Gemini answer streamed as SSE (`data: {…}\r\n\r\n`), one text chunk per piece, then STOP + usage. */
export function geminiAnswer(pieces: string[], model = "gemini-2.5-flash"): RawReply {
  const chunk = (parts: Json[], extra: Json = {}): Json => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
    modelVersion: model,
    responseId: "mock-gemini-response",
  });
  const frames = pieces.map((p) => chunk([{ text: p }]));
  frames.push({
    ...chunk([{ text: "" }], { finishReason: "STOP" }),
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 },
  });
  return {
    headers: { "content-type": "text/event-stream" },
    frames: frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`),
  };
}

/** The same body array-wrapped (`[{"error": …}]`), as the API answers some streaming calls. */
export function geminiQuota429Array(o: GeminiQuotaOptions = {}): RawReply {
  return { ...geminiQuota429(o), frames: [JSON.stringify([geminiQuotaBody(o)], null, 2)] };
}

/** A 200 SSE stream whose first chunk is the error (the SDK throws it as `got status: …`). */
export function geminiErrorChunk(o: GeminiQuotaOptions = {}): RawReply {
  return {
    headers: { "content-type": "text/event-stream" },
    frames: [`data: ${JSON.stringify(geminiQuotaBody(o))}\r\n\r\n`],
  };
}
