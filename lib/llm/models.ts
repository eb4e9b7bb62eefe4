import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";

/** Which wire protocol a provider speaks. */
export type Protocol = "openai" | "anthropic" | "mock";

/** A resolved model: everything needed to build a Provider. */
export interface ModelRef {
  /** User-facing provider name: openai, anthropic, ollama, openrouter, xai, mock. */
  provider: string;
  protocol: Protocol;
  model: string;
  apiKey?: string;
  /** Anthropic OAuth token (sent as a bearer token). */
  authToken?: string;
  /** SDK base URL (…/v1 for OpenAI-compatible). */
  baseURL?: string;
  /** A full chat-completions URL (ChatCLI's OPENAI_API_URL); wins over baseURL. */
  chatUrl?: string;
  /** ChatCLI's `<PROVIDER>_MAX_TOKENS`: the output cap of requests that set none (--max-tokens wins). */
  maxTokens?: number;
}

/** `provider/model` as printed in envelopes. */
export function modelLabel(ref: ModelRef): string {
  return ref.protocol === "mock" ? `mock:${ref.model}` : `${ref.provider}/${ref.model}`;
}

interface ProviderInfo {
  protocol: Protocol;
  envName: string;
  modelEnv: string;
  defaultModel: string;
  keyEnv?: string;
  defaultBaseURL?: string;
}

const PROVIDERS: Record<string, ProviderInfo> = {
  openai: {
    protocol: "openai",
    envName: "OPENAI",
    modelEnv: "OPENAI_MODEL",
    defaultModel: "gpt-5.4",
    keyEnv: "OPENAI_API_KEY",
  },
  anthropic: {
    protocol: "anthropic",
    envName: "CLAUDEAI",
    modelEnv: "ANTHROPIC_MODEL",
    defaultModel: "claude-sonnet-4-6",
    keyEnv: "ANTHROPIC_API_KEY",
  },
  ollama: {
    protocol: "openai",
    envName: "OLLAMA",
    modelEnv: "OLLAMA_MODEL",
    defaultModel: "gpt-oss:20b",
    defaultBaseURL: "http://localhost:11434",
  },
  openrouter: {
    protocol: "openai",
    envName: "OPENROUTER",
    modelEnv: "OPENROUTER_MODEL",
    defaultModel: "openai/gpt-5.2",
    keyEnv: "OPENROUTER_API_KEY",
    defaultBaseURL: "https://openrouter.ai/api/v1",
  },
  xai: {
    protocol: "openai",
    envName: "XAI",
    modelEnv: "XAI_MODEL",
    defaultModel: "grok-4-1",
    keyEnv: "XAI_API_KEY",
    defaultBaseURL: "https://api.x.ai/v1",
  },
};

const ALIASES: Record<string, string> = {
  openai: "openai",
  anthropic: "anthropic",
  claude: "anthropic",
  claudeai: "anthropic",
  ollama: "ollama",
  openrouter: "openrouter",
  xai: "xai",
  grok: "xai",
};

export const KNOWN_PROVIDERS = Object.keys(PROVIDERS);

function providerFromName(name: string): string | undefined {
  return ALIASES[name.trim().toLowerCase()];
}

/** Is this provider usable with the given env (credentials present)? */
function isAvailable(provider: string, env: Env): boolean {
  if (provider === "ollama")
    return env["OLLAMA_ENABLED"] === "true" || Boolean(env["OLLAMA_BASE_URL"]);
  if (provider === "anthropic")
    return Boolean(env["ANTHROPIC_API_KEY"] || env["ANTHROPIC_OAUTH_TOKEN"]);
  if (provider === "openai") {
    return Boolean(env["OPENAI_API_KEY"] || env["OPENAI_BASE_URL"] || env["OPENAI_API_URL"]);
  }
  const key = PROVIDERS[provider]?.keyEnv;
  return key ? Boolean(env[key]) : false;
}

const NO_PROVIDER_HINT =
  "set OPENAI_API_KEY or ANTHROPIC_API_KEY (optionally LLM_PROVIDER=OPENAI|CLAUDEAI|OLLAMA|OPENROUTER|XAI " +
  "and OPENAI_MODEL/ANTHROPIC_MODEL) in the environment, ./.env (or the file CHATCLI_DOTENV names) or the " +
  '"env" object of ~/.chatcli/config.json, or pass -m provider/model';

/**
 * Resolves `-m provider/model` (or `mock:echo`), else ChatCLI's env (LLM_PROVIDER + per-provider vars),
 * else the config's `model`, else the first provider with credentials (alphabetical, as ChatCLI does).
 */
export function resolveModel(flag: string | undefined, env: Env, configModel?: string): ModelRef {
  const spec = flag?.trim() || undefined;
  if (spec?.startsWith("mock:") || spec === "mock") {
    return { provider: "mock", protocol: "mock", model: spec === "mock" ? "echo" : spec.slice(5) };
  }
  if (spec) return fromSpec(spec, env);
  const envProvider = env["LLM_PROVIDER"]?.trim();
  if (envProvider) {
    if (envProvider.toLowerCase() === "mock") {
      return { provider: "mock", protocol: "mock", model: env["MOCK_MODEL"] || "echo" };
    }
    const provider = providerFromName(envProvider);
    if (!provider) {
      throw new ConfigError(`unknown LLM_PROVIDER ${JSON.stringify(envProvider)}`, {
        hint: `use one of OPENAI, CLAUDEAI, OLLAMA, OPENROUTER, XAI`,
      });
    }
    return build(provider, undefined, env);
  }
  if (configModel) return resolveModel(configModel, env);
  const order = ["anthropic", "ollama", "openai", "openrouter", "xai"];
  const first = isAvailable("openai", env) ? "openai" : order.find((p) => isAvailable(p, env));
  if (!first) throw new ConfigError("no LLM provider configured", { hint: NO_PROVIDER_HINT });
  return build(first, undefined, env);
}

function fromSpec(spec: string, env: Env): ModelRef {
  const slash = spec.indexOf("/");
  const head = slash > 0 ? spec.slice(0, slash) : spec;
  const provider = providerFromName(head);
  if (provider && slash > 0) return build(provider, spec.slice(slash + 1) || undefined, env);
  if (provider && slash < 0) return build(provider, undefined, env);
  // A bare model id: guess the provider from its name, else use the env's provider.
  const guessed = /^claude/i.test(spec)
    ? "anthropic"
    : /^(gpt|o\d|chatgpt)/i.test(spec)
      ? "openai"
      : undefined;
  if (guessed) return build(guessed, spec, env);
  if (slash > 0) {
    throw new ConfigError(
      `unknown provider ${JSON.stringify(head)} in model ${JSON.stringify(spec)}`,
      {
        hint: `use one of ${KNOWN_PROVIDERS.join(", ")}, or mock:echo`,
      },
    );
  }
  const base = resolveModel(undefined, env);
  return { ...base, model: spec };
}

function build(provider: string, model: string | undefined, env: Env): ModelRef {
  const info = PROVIDERS[provider] as ProviderInfo;
  const ref: ModelRef = {
    provider,
    protocol: info.protocol,
    model: model || env[info.modelEnv]?.trim() || info.defaultModel,
  };
  // OPENAI_MAX_TOKENS, ANTHROPIC_MAX_TOKENS, OLLAMA_MAX_TOKENS, … as ChatCLI reads them
  const capEnv = `${provider === "anthropic" ? "ANTHROPIC" : info.envName}_MAX_TOKENS`;
  const cap = Number(env[capEnv]?.trim());
  if (env[capEnv]?.trim() && Number.isInteger(cap) && cap > 0) ref.maxTokens = cap;
  if (provider === "openai") {
    ref.apiKey = env["OPENAI_API_KEY"];
    if (env["OPENAI_API_URL"]) ref.chatUrl = env["OPENAI_API_URL"];
    if (env["OPENAI_BASE_URL"]) ref.baseURL = env["OPENAI_BASE_URL"];
    if (!ref.apiKey && !ref.chatUrl && !ref.baseURL) missingKey("openai", "OPENAI_API_KEY");
    ref.apiKey ||= "none"; // an empty OPENAI_API_KEY with a local endpoint: send a placeholder
  } else if (provider === "anthropic") {
    ref.apiKey = env["ANTHROPIC_API_KEY"];
    ref.authToken = ref.apiKey ? undefined : env["ANTHROPIC_OAUTH_TOKEN"];
    if (env["ANTHROPIC_BASE_URL"]) ref.baseURL = env["ANTHROPIC_BASE_URL"];
    if (!ref.apiKey && !ref.authToken) missingKey("anthropic", "ANTHROPIC_API_KEY");
  } else if (provider === "ollama") {
    const base = (env["OLLAMA_BASE_URL"] || info.defaultBaseURL || "").replace(/\/+$/, "");
    ref.baseURL = base.endsWith("/v1") ? base : `${base}/v1`;
    ref.apiKey = "ollama";
  } else {
    const keyEnv = info.keyEnv as string;
    ref.apiKey = env[keyEnv];
    if (!ref.apiKey) missingKey(provider, keyEnv);
    ref.baseURL = env[`${info.envName}_BASE_URL`] || info.defaultBaseURL;
  }
  return ref;
}

function missingKey(provider: string, keyEnv: string): never {
  throw new ConfigError(`no API key for ${provider}`, {
    hint: `set ${keyEnv} (or add it to ~/.chatcli/config.json "env", or a .env file)`,
  });
}

/**
 * `CHATCLI_FALLBACK_PROVIDERS`: ChatCLI provider names (`CLAUDEAI`, `OPENAI`, …) or provider/model
 * specs, separated by commas or semicolons (as ChatCLI). An entry that names no known provider, or
 * whose provider has no credentials, is skipped; why goes into `skipped` (for a warning).
 */
export function resolveFallbacks(
  env: Env,
  variable = "CHATCLI_FALLBACK_PROVIDERS",
  skipped?: string[],
): ModelRef[] {
  const raw = env[variable]?.trim();
  if (!raw) return [];
  const out: ModelRef[] = [];
  for (const item of raw
    .split(/[,;]/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    const slash = item.indexOf("/");
    if (!item.startsWith("mock:") && !providerFromName(slash > 0 ? item.slice(0, slash) : item)) {
      skipped?.push(
        `${variable} entry ${JSON.stringify(item)} is not a provider (use ${Object.values(PROVIDERS)
          .map((p) => p.envName)
          .join(", ")} or provider/model)`,
      );
      continue;
    }
    try {
      out.push(resolveModel(item, env));
    } catch (error) {
      // a fallback without credentials is skipped, as ChatCLI does
      const hint = error instanceof ConfigError && error.hint ? `; ${error.hint}` : "";
      skipped?.push(
        `${variable} entry ${JSON.stringify(item)} skipped: ${(error as Error).message}${hint}`,
      );
    }
  }
  return out;
}
