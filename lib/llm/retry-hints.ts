/**
 * What a provider says about waiting, beyond the `retry-after` header: durations in the error body
 * (Gemini's google.rpc.RetryInfo `retryDelay: "27s"`, OpenAI's "Please try again in 1.898s.", Gemini's
 * "Please retry in 27.03s."), and the codes and words that mean a quota ran out — a limit that waiting
 * within a run's retry budget cannot lift, as opposed to a rate limit.
 */

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * A duration as providers write it, in ms: protobuf Duration JSON ("27s", "0.250s",
 * "27.034217353s") and Go's time.Duration text ("1.898s", "28ms", "6m0s", "10h17m5.72s").
 * Anything else is undefined.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(amount) * (UNIT_MS[unit as string] as number);
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

const RETRY_IN =
  /\b(?:retry|try again) in (\d+(?:\.\d+)?(?:ms|h|m|s)(?:\d+(?:\.\d+)?(?:ms|h|m|s))*)/i;

/** The wait an error message asks for ("Please try again in 1.898s", "Please retry in 27.4s"), in ms. */
export function retryDelayFromText(message: string): number | undefined {
  const match = RETRY_IN.exec(message);
  return match ? parseDuration(match[1] as string) : undefined;
}

/**
 * Error codes that mean the account's quota or money ran out: OpenAI `insufficient_quota`
 * (HTTP 429, or `response.failed` / `error` events in a Responses stream), billing limits, Anthropic's
 * `enforced_spend_limit_reached` (a 429 `rate_limit_error` with no retry-after), Gemini/Vertex
 * `quota_exceeded`.
 */
const QUOTA_CODES =
  /^(?:insufficient_quota|quota_exceeded|billing_hard_limit_reached|billing_not_active|credit_balance_exhausted|enforced_spend_limit_reached|billing_error)$/i;

export function isQuotaCode(code: unknown): boolean {
  return typeof code === "string" && QUOTA_CODES.test(code);
}

/**
 * Messages that mean the same without such a code: Anthropic's 400 "Your credit balance is too low…"
 * and "You have reached your specified (workspace) API usage limits…", Bedrock's
 * ServiceQuotaExceededException.
 */
const QUOTA_WORDS =
  /credit balance is too low|reached your specified (?:workspace )?API usage limits|ServiceQuotaExceeded|exceeds? the service quota/i;

export function isQuotaMessage(message: string): boolean {
  return QUOTA_WORDS.test(message);
}

/** A wait for messages: "27 s", "2 min 5 s", "9 h 43 min". */
export function describeDelay(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  if (h > 0) return m ? `${h} h ${m} min` : `${h} h`;
  return s ? `${m} min ${s} s` : `${m} min`;
}
