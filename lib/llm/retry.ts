import { ERROR_TABLE, ProviderError } from "./errors.ts";
import type { LlmEvent, LlmRequest, Provider } from "./types.ts";

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  provider: string;
  model: string;
  error: ProviderError;
  /** true when moving to the next provider of the fallback chain */
  isFallback: boolean;
}

/** Retries per provider when not configured: enough to spend the 30 s budget (the time bound ends it first). */
export const DEFAULT_MAX_RETRIES = 10;

export interface ResilienceOptions {
  /** Retries per provider (default DEFAULT_MAX_RETRIES; the time budget usually ends them first). */
  maxRetries?: number;
  /** Give up on a provider after this much total time (default 30 s). */
  maxTotalMs?: number;
  /** The first delay (default 500 ms); each retry doubles it, with jitter. */
  baseDelayMs?: number;
  /** The longest single delay (default 16 × baseDelayMs: 8 s). */
  maxDelayMs?: number;
  /** [0, 1) for the jitter (tests inject a fixed one). */
  random?: () => number;
  onRetry?: (notice: RetryNotice) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** A provider chain: the primary's name and model, and the provider that answered last. */
export interface ResilientProvider extends Provider {
  readonly answered: Provider;
}

/** Exponential backoff with full jitter, honouring retry-after when the server sent it. */
export function backoffDelay(
  attempt: number,
  options: ResilienceOptions,
  retryAfterMs?: number,
): number {
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? base * 16;
  // the server's wait is honoured as sent; the caller gives up when it exceeds the time budget
  if (retryAfterMs !== undefined) return retryAfterMs;
  const cap = Math.min(max, base * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(cap / 2 + random() * (cap / 2));
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wraps a chain [primary, ...fallbacks] into one Provider. A retryable error before any event was
 * yielded is retried with backoff (bounded by maxRetries and maxTotalMs), then the next provider is
 * tried; an error after output started is rethrown (replaying would duplicate output).
 * `answered` is the provider that answered the latest request (the primary until a fallback answers),
 * so envelopes and prices name the model that really produced the answer; `name` and `model` stay the
 * primary's (requests carry the primary's model id).
 */
export function withResilience(
  chain: readonly Provider[],
  options: ResilienceOptions = {},
): ResilientProvider {
  const first = chain[0];
  if (!first) throw new Error("withResilience needs at least one provider");
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  let active: Provider = first;
  return {
    name: first.name,
    model: first.model,
    get answered() {
      return active;
    },
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      let lastError: ProviderError | undefined;
      let attempts = 0;
      /** Why the last provider stopped being retried (for the final error). */
      let gaveUp = "";
      const maxTotalMs = options.maxTotalMs ?? 30_000;
      for (const [index, provider] of chain.entries()) {
        if (index > 0 && lastError) {
          options.onRetry?.({
            attempt: 0,
            delayMs: 0,
            provider: provider.name,
            model: provider.model,
            error: lastError,
            isFallback: true,
          });
        }
        const started = now();
        gaveUp = "";
        const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
        for (let attempt = 0; ; attempt++) {
          let yielded = false;
          attempts++;
          try {
            const req = index === 0 ? request : { ...request, model: provider.model };
            for await (const event of provider.stream(req, signal)) {
              yielded = true;
              active = provider;
              yield event;
            }
            return;
          } catch (error) {
            if (!(error instanceof ProviderError)) throw error;
            if (signal.aborted || yielded) throw error;
            lastError = error;
            const action = ERROR_TABLE[error.kind];
            if (!action.retry) {
              if (action.fallback) break;
              throw error;
            }
            let delayMs = backoffDelay(attempt + 1, options, error.retryAfterMs);
            const elapsed = now() - started;
            if (attempt >= maxRetries) {
              gaveUp = ` after ${attempt + 1} attempt(s) (max retries ${maxRetries})`;
              break;
            }
            // the budget is spent, not left unused: a backoff that overshoots it waits what is left
            const left = maxTotalMs - elapsed;
            if (
              error.retryAfterMs === undefined &&
              delayMs > left &&
              left >= (options.baseDelayMs ?? 500)
            ) {
              delayMs = left;
            }
            if (elapsed + delayMs > maxTotalMs) {
              gaveUp =
                error.retryAfterMs !== undefined && error.retryAfterMs > maxTotalMs - elapsed
                  ? `: the provider asked to wait ${seconds(error.retryAfterMs)} (${error.retryAfterSource ?? "retry-after"}), beyond the ${seconds(maxTotalMs)} retry budget`
                  : ` after ${attempt + 1} attempt(s) in ${seconds(elapsed)} (retry budget ${seconds(maxTotalMs)})`;
              break;
            }
            options.onRetry?.({
              attempt: attempt + 1,
              delayMs,
              provider: provider.name,
              model: provider.model,
              error,
              isFallback: false,
            });
            await sleep(delayMs, signal);
          }
        }
      }
      if (!lastError) throw new Error("no provider answered");
      if (!ERROR_TABLE[lastError.kind].retry || !gaveUp) throw lastError;
      // say how long it was tried and what would help, instead of only the last HTTP error
      const tried = chain.length > 1 ? ` (${chain.length} providers, ${attempts} requests)` : "";
      throw new ProviderError(lastError.kind, `${lastError.message} — gave up${gaveUp}${tried}`, {
        status: lastError.status,
        retryAfterMs: lastError.retryAfterMs,
        retryAfterSource: lastError.retryAfterSource,
        provider: lastError.provider,
        hint:
          lastError.hint ??
          "retry later, raise --max-retries / CHATCLI_MAX_RETRIES or CHATCLI_RETRY_MAX_MS, or set CHATCLI_FALLBACK_PROVIDERS",
        cause: lastError,
      });
    },
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
