/**
 * Every provider the Go ChatCLI serves (reference §8.1): its LLM_PROVIDER name, wire protocol, env
 * variables (credentials, model, base URL, max tokens) and default model. Data only; models.ts
 * resolves it against an env.
 */
import type { Env } from "../core/ctx.ts";

/** Which wire protocol a provider speaks. */
export type Protocol = "openai" | "responses" | "anthropic" | "google" | "bedrock" | "mock";

export interface ProviderInfo {
  /** User-facing name: `-m ID/model`, envelopes' `model`. */
  id: string;
  /** The Go ChatCLI's LLM_PROVIDER value. */
  envName: string;
  protocol: Protocol;
  /** Model variables, first set wins. */
  modelEnvs: string[];
  defaultModel: string;
  /** Credential variables, first set wins (none for Ollama and Bedrock: see `credentialOf`). */
  keyEnvs: string[];
  /** Base-URL variables, first set wins. */
  baseUrlEnvs: string[];
  defaultBaseURL?: string;
  /** `-m` prefixes and LLM_PROVIDER spellings (lower-case) besides `id`. */
  aliases: string[];
  /** ChatCLI's `<PROVIDER>_MAX_TOKENS`. */
  maxTokensEnv: string;
  /** Extra request headers the endpoint wants. */
  headers?: Record<string, string>;
  /** Set when chatcli cannot serve it: one line saying what to use instead. */
  unsupported?: string;
}

const P = (
  info: Omit<ProviderInfo, "baseUrlEnvs" | "keyEnvs" | "aliases"> & Partial<ProviderInfo>,
) => ({ keyEnvs: [], baseUrlEnvs: [], aliases: [], ...info }) as ProviderInfo;

/** In the order `chatcli models` lists them. */
export const PROVIDER_TABLE: readonly ProviderInfo[] = [
  P({
    id: "openai",
    envName: "OPENAI",
    protocol: "openai",
    modelEnvs: ["OPENAI_MODEL"],
    defaultModel: "gpt-5.4",
    keyEnvs: ["OPENAI_API_KEY"],
    baseUrlEnvs: ["OPENAI_BASE_URL", "OPENAI_API_URL"],
    maxTokensEnv: "OPENAI_MAX_TOKENS",
  }),
  P({
    id: "anthropic",
    envName: "CLAUDEAI",
    protocol: "anthropic",
    modelEnvs: ["ANTHROPIC_MODEL"],
    defaultModel: "claude-sonnet-4-6",
    keyEnvs: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"],
    baseUrlEnvs: ["ANTHROPIC_BASE_URL"],
    aliases: ["claude", "claudeai"],
    maxTokensEnv: "ANTHROPIC_MAX_TOKENS",
  }),
  P({
    id: "google",
    envName: "GOOGLEAI",
    protocol: "google",
    modelEnvs: ["GOOGLEAI_MODEL"],
    defaultModel: "gemini-2.5-flash",
    keyEnvs: ["GOOGLEAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrlEnvs: ["GOOGLEAI_BASE_URL"],
    aliases: ["googleai", "gemini"],
    maxTokensEnv: "GOOGLEAI_MAX_TOKENS",
  }),
  P({
    id: "bedrock",
    envName: "BEDROCK",
    protocol: "bedrock",
    modelEnvs: ["BEDROCK_MODEL"],
    defaultModel: "global.anthropic.claude-sonnet-4-6",
    baseUrlEnvs: ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"],
    aliases: ["aws"],
    maxTokensEnv: "BEDROCK_MAX_TOKENS",
  }),
  P({
    id: "ollama",
    envName: "OLLAMA",
    protocol: "openai",
    modelEnvs: ["OLLAMA_MODEL"],
    defaultModel: "gpt-oss:20b",
    baseUrlEnvs: ["OLLAMA_BASE_URL"],
    defaultBaseURL: "http://localhost:11434",
    maxTokensEnv: "OLLAMA_MAX_TOKENS",
  }),
  P({
    id: "openrouter",
    envName: "OPENROUTER",
    protocol: "openai",
    modelEnvs: ["OPENROUTER_MODEL"],
    defaultModel: "openai/gpt-5.2",
    keyEnvs: ["OPENROUTER_API_KEY"],
    baseUrlEnvs: ["OPENROUTER_BASE_URL"],
    defaultBaseURL: "https://openrouter.ai/api/v1",
    maxTokensEnv: "OPENROUTER_MAX_TOKENS",
  }),
  P({
    id: "xai",
    envName: "XAI",
    protocol: "openai",
    modelEnvs: ["XAI_MODEL"],
    defaultModel: "grok-4-1",
    keyEnvs: ["XAI_API_KEY"],
    baseUrlEnvs: ["XAI_BASE_URL"],
    defaultBaseURL: "https://api.x.ai/v1",
    aliases: ["grok"],
    maxTokensEnv: "XAI_MAX_TOKENS",
  }),
  P({
    id: "github_models",
    envName: "GITHUB_MODELS",
    protocol: "openai",
    modelEnvs: ["GITHUB_MODELS_MODEL"],
    defaultModel: "gpt-4o",
    // the specific variable first: inside GitHub Actions GITHUB_TOKEN is always set
    keyEnvs: ["GITHUB_MODELS_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"],
    baseUrlEnvs: ["GITHUB_MODELS_BASE_URL"],
    defaultBaseURL: "https://models.github.ai/inference",
    aliases: ["github-models", "githubmodels", "github"],
    maxTokensEnv: "GITHUB_MODELS_MAX_TOKENS",
    headers: { "X-GitHub-Api-Version": "2022-11-28" },
  }),
  P({
    id: "copilot",
    envName: "COPILOT",
    protocol: "openai",
    modelEnvs: ["COPILOT_MODEL"],
    defaultModel: "gpt-4o",
    keyEnvs: ["GITHUB_COPILOT_TOKEN"],
    baseUrlEnvs: ["COPILOT_BASE_URL", "COPILOT_API_BASE_URL"],
    defaultBaseURL: "https://api.githubcopilot.com",
    aliases: ["github-copilot"],
    maxTokensEnv: "COPILOT_MAX_TOKENS",
    headers: {
      "Openai-Intent": "conversation-edits",
      "X-Initiator": "user",
      "Editor-Version": "chatcli/0.1.0",
      "Editor-Plugin-Version": "chatcli/0.1.0",
    },
  }),
  P({
    id: "zai",
    envName: "ZAI",
    protocol: "openai",
    modelEnvs: ["ZAI_MODEL"],
    defaultModel: "glm-5",
    keyEnvs: ["ZAI_API_KEY"],
    baseUrlEnvs: ["ZAI_BASE_URL"],
    defaultBaseURL: "https://api.z.ai/api/paas/v4",
    aliases: ["z.ai", "glm", "zhipu"],
    maxTokensEnv: "ZAI_MAX_TOKENS",
  }),
  P({
    id: "minimax",
    envName: "MINIMAX",
    protocol: "openai",
    modelEnvs: ["MINIMAX_MODEL"],
    defaultModel: "MiniMax-M2.7",
    keyEnvs: ["MINIMAX_API_KEY"],
    baseUrlEnvs: ["MINIMAX_BASE_URL"],
    defaultBaseURL: "https://api.minimax.io/v1",
    maxTokensEnv: "MINIMAX_MAX_TOKENS",
  }),
  P({
    id: "moonshot",
    envName: "MOONSHOT",
    protocol: "openai",
    modelEnvs: ["MOONSHOT_MODEL"],
    defaultModel: "kimi-k2.6",
    keyEnvs: ["MOONSHOT_API_KEY"],
    baseUrlEnvs: ["MOONSHOT_BASE_URL"],
    defaultBaseURL: "https://api.moonshot.ai/v1",
    aliases: ["kimi"],
    maxTokensEnv: "MOONSHOT_MAX_TOKENS",
  }),
  P({
    id: "stackspot",
    envName: "STACKSPOT",
    protocol: "openai",
    modelEnvs: ["STACKSPOT_MODEL"],
    defaultModel: "stackspot-ai",
    keyEnvs: ["CLIENT_ID"],
    maxTokensEnv: "STACKSPOT_MAX_TOKENS",
    unsupported:
      "StackSpot AI agents (CLIENT_ID/CLIENT_KEY) have no public chat API chatcli can call; use LLM_PROVIDER=CLAUDEAI, OPENAI, BEDROCK or GOOGLEAI with a model key",
  }),
  P({
    id: "devin",
    envName: "DEVIN",
    protocol: "openai",
    modelEnvs: ["DEVIN_MODEL"],
    defaultModel: "claude-sonnet-4.6",
    keyEnvs: ["DEVIN_API_KEY"],
    maxTokensEnv: "DEVIN_MAX_TOKENS",
    unsupported:
      "Devin is a hosted agent, not a model API chatcli can stream from; use LLM_PROVIDER=CLAUDEAI (Devin's default model is Claude Sonnet 4.6) with chatcli agent",
  }),
  P({
    id: "openai_assistant",
    envName: "OPENAI_ASSISTANT",
    protocol: "openai",
    modelEnvs: ["OPENAI_ASSISTANT_MODEL", "OPENAI_MODEL"],
    defaultModel: "gpt-4o",
    keyEnvs: ["OPENAI_API_KEY"],
    aliases: ["openai-assistant", "assistant"],
    maxTokensEnv: "OPENAI_MAX_TOKENS",
    unsupported:
      "the OpenAI Assistants API is deprecated and not supported; use LLM_PROVIDER=OPENAI (OPENAI_USE_RESPONSES=true for the Responses API)",
  }),
];

const BY_NAME = new Map<string, ProviderInfo>();
for (const info of PROVIDER_TABLE) {
  for (const name of [info.id, info.envName.toLowerCase(), ...info.aliases])
    BY_NAME.set(name, info);
}

/** A provider by `-m` prefix or LLM_PROVIDER value (any case, `-` or `_`). */
export function providerInfo(name: string): ProviderInfo | undefined {
  const key = name.trim().toLowerCase();
  return (
    BY_NAME.get(key) ?? BY_NAME.get(key.replace(/-/g, "_")) ?? BY_NAME.get(key.replace(/_/g, "-"))
  );
}

/** The first of `names` set (non-blank) in env, with its value. */
export function firstSet(
  env: Env,
  names: readonly string[],
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** AWS's standard credential sources, in the SDK chain's order. */
export const AWS_CREDENTIAL_ENVS = [
  "AWS_BEARER_TOKEN_BEDROCK",
  "AWS_ACCESS_KEY_ID",
  "AWS_PROFILE",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
] as const;

/**
 * The variables that make a provider usable, or undefined when it is not configured. Names only,
 * never values (`chatcli models` prints them).
 */
export function configuredBy(info: ProviderInfo, env: Env): string[] | undefined {
  if (info.id === "ollama") {
    const set = ["OLLAMA_ENABLED", "OLLAMA_BASE_URL"].filter((n) =>
      n === "OLLAMA_ENABLED" ? env[n]?.trim() === "true" : Boolean(env[n]?.trim()),
    );
    return set.length ? set : undefined;
  }
  if (info.id === "bedrock") {
    const source = firstSet(env, AWS_CREDENTIAL_ENVS);
    return source ? [source.name] : undefined;
  }
  if (info.id === "stackspot") {
    return env["CLIENT_ID"]?.trim() && env["CLIENT_KEY"]?.trim()
      ? ["CLIENT_ID", "CLIENT_KEY"]
      : undefined;
  }
  const key = firstSet(env, info.keyEnvs);
  if (key) return [key.name];
  // OpenAI-compatible local endpoints need no key
  if (info.id === "openai") {
    const base = firstSet(env, info.baseUrlEnvs);
    return base ? [base.name] : undefined;
  }
  return undefined;
}
