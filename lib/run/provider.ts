import type { Env } from "../core/ctx.ts";
import { envInt } from "../core/settings.ts";
import { type ModelRef, modelLabel, resolveFallbacks } from "../llm/models.ts";
import { createProvider } from "../llm/registry.ts";
import { type RetryNotice, withResilience } from "../llm/retry.ts";
import type { Provider } from "../llm/types.ts";
import type { Reporter } from "../output/reporter.ts";

export interface ProviderChainOptions {
  env: Env;
  fetch: typeof fetch;
  fakeResponsesPath?: string;
  maxRetries?: number;
  reporter?: Reporter;
}

/** The active provider wrapped with retries and the CHATCLI_FALLBACK_PROVIDERS chain. */
export async function buildProviderChain(
  ref: ModelRef,
  options: ProviderChainOptions,
): Promise<Provider> {
  const deps = {
    fetch: options.fetch,
    fakeResponsesPath: options.fakeResponsesPath,
    idleTimeoutMs: envInt(options.env, "CHATCLI_STREAM_IDLE_TIMEOUT_MS", 120_000),
  };
  const refs = [
    ref,
    ...resolveFallbacks(options.env).filter((f) => modelLabel(f) !== modelLabel(ref)),
  ];
  const chain = await Promise.all(refs.map((r) => createProvider(r, deps)));
  const reporter = options.reporter;
  const maxRetries = options.maxRetries ?? envInt(options.env, "CHATCLI_MAX_RETRIES", 4);
  return withResilience(chain, {
    maxRetries,
    maxTotalMs: envInt(options.env, "CHATCLI_RETRY_MAX_MS", 30_000),
    baseDelayMs: envInt(options.env, "CHATCLI_RETRY_BASE_MS", 500),
    onRetry: (notice: RetryNotice) => reportRetry(reporter, notice),
  });
}

function reportRetry(reporter: Reporter | undefined, notice: RetryNotice): void {
  if (!reporter) return;
  const what = notice.error.status ? `HTTP ${notice.error.status}` : notice.error.kind;
  if (notice.isFallback) {
    reporter.info(`chatcli: ${what} — falling back to ${notice.provider}/${notice.model}`);
  } else {
    reporter.info(
      `chatcli: ${what} from ${notice.provider} — retrying in ${(notice.delayMs / 1000).toFixed(1)} s (attempt ${notice.attempt})`,
    );
  }
  reporter.event("retry", {
    attempt: notice.attempt,
    delay_ms: notice.delayMs,
    provider: notice.provider,
    model: notice.model,
    fallback: notice.isFallback,
    error: {
      code: notice.error.kind,
      status: notice.error.status ?? null,
      message: notice.error.message,
    },
  });
}
