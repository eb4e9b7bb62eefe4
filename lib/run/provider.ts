import type { Env } from "../core/ctx.ts";
import { envInt } from "../core/settings.ts";
import { ProviderError } from "../llm/errors.ts";
import { type ModelRef, modelLabel, resolveFallbacks } from "../llm/models.ts";
import { createProvider } from "../llm/registry.ts";
import {
  DEFAULT_MAX_RETRIES,
  type ResilientProvider,
  type RetryNotice,
  withResilience,
} from "../llm/retry.ts";
import type { LlmEvent, LlmRequest, Provider } from "../llm/types.ts";
import { type Emit, ev } from "../output/events.ts";

export interface ProviderChainOptions {
  env: Env;
  fetch: typeof fetch;
  fakeResponsesPath?: string;
  maxRetries?: number;
  /** Where retries, fallbacks and SDK notices go (as events). */
  emit?: Emit;
  /** A ready primary provider (tests inject one); the fallbacks are still built from env. */
  primary?: Provider;
  /** The run's clock for retry waits (a virtual one in tests); default: real timers, Date.now. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** The active provider wrapped with retries and the CHATCLI_FALLBACK_PROVIDERS chain. */
export async function buildProviderChain(
  ref: ModelRef,
  options: ProviderChainOptions,
): Promise<ResilientProvider> {
  const emit = options.emit ?? (() => {});
  // what an SDK would print (a deprecation notice once per model, log lines) is a warning, once
  const sdkNotices = new Set<string>();
  const deps = {
    fetch: options.fetch,
    fakeResponsesPath: options.fakeResponsesPath,
    idleTimeoutMs: envInt(options.env, "CHATCLI_STREAM_IDLE_TIMEOUT_MS", 120_000),
    warn: (code: string, message: string) => {
      if (sdkNotices.has(`${code}\0${message}`)) return;
      sdkNotices.add(`${code}\0${message}`);
      emit(ev("warning", { code, message }));
    },
  };
  const skipped: string[] = [];
  const fallbacks = resolveFallbacks(options.env, undefined, skipped).filter(
    (f) => modelLabel(f) !== modelLabel(ref),
  );
  for (const message of skipped) emit(ev("warning", { code: "fallback_skipped", message }));
  const chain = await Promise.all([
    options.primary ?? createProvider(ref, deps),
    ...fallbacks.map((r) => createProvider(r, deps)),
  ]);
  const warned = new Set<string>();
  // CHATCLI_MAX_RETRIES, else the Go ChatCLI's MAX_RETRIES, else as many as fit the time budget.
  const maxRetries =
    options.maxRetries ??
    envInt(
      options.env,
      "CHATCLI_MAX_RETRIES",
      envInt(options.env, "MAX_RETRIES", DEFAULT_MAX_RETRIES),
    );
  /** The error the primary gave up with, when the request moved on to a fallback. */
  let primaryFailure: ProviderError | undefined;
  const resilient = withResilience(chain, {
    maxRetries,
    maxTotalMs: envInt(options.env, "CHATCLI_RETRY_MAX_MS", 30_000),
    baseDelayMs: envInt(options.env, "CHATCLI_RETRY_BASE_MS", 500),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.now ? { now: options.now } : {}),
    onRetry: (notice: RetryNotice) => {
      if (notice.isFallback) primaryFailure ??= notice.error;
      reportRetry(emit, notice, warned);
    },
  });
  if (chain.length < 2) return resilient;
  return {
    name: resilient.name,
    model: resilient.model,
    get answered() {
      return resilient.answered;
    },
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
      primaryFailure = undefined;
      let yielded = false;
      try {
        for await (const event of resilient.stream(request, signal)) {
          yielded = true;
          yield event;
        }
      } catch (error) {
        // after a fallback's output started, its own error is the story
        throw primaryFailure && !yielded ? chainFailure(primaryFailure, error) : error;
      }
    },
  };
}

/**
 * The whole chain failed: the error is the primary's (its code, exit code and cause), and says what
 * the fallbacks answered — a fallback without a key must not turn a 429 into an auth error.
 */
function chainFailure(primary: ProviderError, last: unknown): unknown {
  if (!(last instanceof ProviderError) || last === primary) return last;
  return new ProviderError(
    primary.kind,
    `${primary.message} (the fallback chain failed too: ${last.provider}: ${last.message})`,
    {
      status: primary.status,
      retryAfterMs: primary.retryAfterMs,
      provider: primary.provider,
      hint: primary.hint,
      cause: primary,
    },
  );
}

/** The model that answered the latest request of a chain (a fallback's, after one answered). */
export function answeredBy(chain: ResilientProvider): {
  provider: string;
  model: string;
  label: string;
} {
  const { name, model } = chain.answered;
  return { provider: name, model, label: name === "mock" ? `mock:${model}` : `${name}/${model}` };
}

/**
 * A retry or fallback as events: `retry` always; the first fallback to a model is also a warning
 * (stderr renders later ones from the retry event alone).
 */
function reportRetry(emit: Emit, notice: RetryNotice, warned: Set<string>): void {
  const what = notice.error.status ? `HTTP ${notice.error.status}` : notice.error.kind;
  if (notice.isFallback) {
    const target = `${notice.provider}/${notice.model}`;
    if (!warned.has(target))
      emit(
        ev("warning", {
          code: "provider_fallback",
          message: `${what} (${notice.error.message}) — falling back to ${target}`,
        }),
      );
    warned.add(target);
  }
  emit(
    ev("retry", {
      attempt: notice.attempt,
      delay_ms: Math.round(notice.delayMs),
      provider: notice.provider,
      model: notice.model,
      fallback: notice.isFallback,
      retry_after_source:
        !notice.isFallback && notice.error.retryAfterMs !== undefined
          ? retryAfterSource(notice.error.retryAfterSource)
          : null,
      error: {
        code: notice.error.kind,
        status: notice.error.status ?? null,
        message: notice.error.message,
      },
    }),
  );
}

/** Where a provider's stated delay came from, as the `retry` event names it. */
function retryAfterSource(
  source: string | undefined,
): "retry-after" | "RetryInfo" | "the error message" {
  return source === "RetryInfo" || source === "the error message" ? source : "retry-after";
}
