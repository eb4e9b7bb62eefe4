import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";
import type { ModelRef } from "./model-ref.ts";
import { buildRef } from "./provider-env.ts";
import { llmProviderValues } from "./provider-list.ts";
import { configuredBy, PROVIDER_TABLE, type ProviderInfo, providerInfo } from "./provider-table.ts";

export type { ModelRef };

const build = buildRef;

export type { Protocol } from "./provider-table.ts";

/** `provider/model` as printed in envelopes. */
export function modelLabel(ref: ModelRef): string {
  return ref.protocol === "mock" ? `mock:${ref.model}` : `${ref.provider}/${ref.model}`;
}

export const KNOWN_PROVIDERS = PROVIDER_TABLE.filter((p) => !p.unsupported).map((p) => p.id);

const SERVED = PROVIDER_TABLE.filter((p) => !p.unsupported).map((p) => p.envName);

function providerFromName(name: string): ProviderInfo | undefined {
  return providerInfo(name);
}

/** Without LLM_PROVIDER: OpenAI (ChatCLI's default), then the others alphabetically. */
const AUTO_ORDER = [
  "openai",
  "anthropic",
  "ollama",
  "openrouter",
  "xai",
  "bedrock",
  "copilot",
  "github_models",
  "google",
  "minimax",
  "moonshot",
  "zai",
];

/**
 * Ambient credentials do not pick a provider on their own: GitHub Actions always sets GITHUB_TOKEN,
 * and AWS keys or profiles serve other tools; BEDROCK needs BEDROCK_MODEL or BEDROCK_REGION too, and
 * GitHub Models GITHUB_MODELS_TOKEN (or LLM_PROVIDER / -m).
 */
function autoDetected(info: ProviderInfo, env: Env): boolean {
  const by = configuredBy(info, env);
  if (!by) return false;
  if (info.id === "bedrock")
    return Boolean(env["BEDROCK_MODEL"]?.trim() || env["BEDROCK_REGION"]?.trim());
  if (info.id === "github_models") return by.includes("GITHUB_MODELS_TOKEN");
  return true;
}

/** What to do when nothing is configured: every provider's LLM_PROVIDER value, never a blind ./.env. */
const NO_PROVIDER_HINT =
  `set a provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, …; optionally LLM_PROVIDER=${llmProviderValues()}) ` +
  'in the environment or the "env" object of ~/.chatcli/config.json (a .env file counts when ' +
  "CHATCLI_DOTENV names it, or as ./.env in a trusted workspace), or pass -m provider/model (mock:echo " +
  "needs no key); `chatcli models` lists every provider and the variable that configures it";

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
        hint: `use one of ${SERVED.join(", ")}`,
      });
    }
    return build(provider, undefined, env);
  }
  if (configModel) return resolveModel(configModel, env);
  const first = AUTO_ORDER.map((id) => providerFromName(id) as ProviderInfo).find((p) =>
    autoDetected(p, env),
  );
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
    : /^(gpt|o\d|chatgpt|codex)/i.test(spec)
      ? "openai"
      : /^gemini/i.test(spec)
        ? "google"
        : undefined;
  if (guessed) return build(providerFromName(guessed) as ProviderInfo, spec, env);
  if (slash > 0) {
    throw new ConfigError(
      `unknown provider ${JSON.stringify(head)} in model ${JSON.stringify(spec)}`,
      {
        hint: `use one of ${KNOWN_PROVIDERS.join(", ")}, or mock:echo`,
      },
    );
  }
  let base: ModelRef;
  try {
    base = resolveModel(undefined, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // `ask -m hi` with the model forgotten: name the word, not only "no provider"
    throw new ConfigError(
      `unknown model ${JSON.stringify(spec)}: it is not provider/model, and no LLM provider is configured to take a bare model name`,
      {
        hint: `-m takes provider/model, e.g. openai/gpt-5.4, anthropic/claude-sonnet-4-6 or mock:echo (chatcli models lists them); to send ${JSON.stringify(spec)} as the prompt: chatcli ask ${spec}`,
      },
    );
  }
  return { ...base, model: spec };
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
        `${variable} entry ${JSON.stringify(item)} is not a provider (use ${SERVED.join(", ")} or provider/model)`,
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
