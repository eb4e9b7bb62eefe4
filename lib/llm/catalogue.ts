/** `chatcli models`: every provider, how it is configured, and its known models with windows and prices. */
import type { Env } from "../core/ctx.ts";
import { contextWindow } from "./context-window.ts";
import { PRICE_TABLE_VERSION, pricedModels, priceOf } from "./cost.ts";
import { modelLabel, resolveModel } from "./models.ts";
import { configureWith, MOCK_MODELS } from "./provider-list.ts";
import { configuredBy, firstSet, PROVIDER_TABLE, type ProviderInfo } from "./provider-table.ts";

export interface ModelEntry {
  id: string;
  context_window: number;
  /** USD per 1M tokens; null when the price table does not know the model. */
  price: { input: number; output: number; cache_read: number; cache_write: number } | null;
}

export interface ProviderEntry {
  provider: string;
  llm_provider: string;
  protocol: string;
  supported: boolean;
  configured: boolean;
  /** Variable names that configure it (never their values). */
  configured_by: string[];
  default_model: string;
  /** The model it would use now: its model variable, else the default. */
  model: string;
  /** The variable that set `model`, null for the default. */
  model_from: string | null;
  /** Whether a run without -m would use it. */
  active: boolean;
  /** What to set to configure it (names only); null for the built-in mock and unsupported ones. */
  configure_with: string | null;
  note: string | null;
  models: ModelEntry[];
}

export interface ModelsDocument {
  /** `provider/model` a run without -m would use, null when none is configured. */
  active: string | null;
  price_table_version: string;
  providers: ProviderEntry[];
}

const CURATED: Record<string, string[]> = {
  github_models: [
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-5",
    "gpt-5-mini",
    "o4-mini",
  ].map((m) => `openai/${m}`),
  copilot: [
    "gpt-4o",
    "gpt-4.1",
    "gpt-5",
    "gpt-5-mini",
    "claude-sonnet-4.5",
    "claude-sonnet-4",
    "gemini-2.5-pro",
  ],
  openrouter: [
    "openai/gpt-5.2",
    "anthropic/claude-sonnet-4.6",
    "google/gemini-2.5-pro",
    "x-ai/grok-4",
  ],
  xai: ["grok-4-1", "grok-4"],
  ollama: ["gpt-oss:20b", "gpt-oss:120b", "llama3.1", "qwen3"],
  bedrock: [
    "global.anthropic.claude-sonnet-4-6",
    "global.anthropic.claude-opus-4-6-v1",
    "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  ],
};

const FAMILY: Record<string, RegExp> = {
  openai: /^(?:gpt|o\d)/,
  anthropic: /^claude/,
  google: /^gemini/,
  zai: /^glm/,
  minimax: /^minimax/,
  moonshot: /^kimi/,
};

/** MiniMax spells its ids `MiniMax-M2.7`; the price table keys are lower-case. */
function displayId(provider: string, id: string): string {
  return provider === "minimax" ? id.replace(/^minimax-m/, "MiniMax-M") : id;
}

function knownModels(info: ProviderInfo): string[] {
  const curated = CURATED[info.id];
  const family = FAMILY[info.id];
  const ids = curated ?? (family ? pricedModels().filter((m) => family.test(m)) : []);
  const all = ids.map((m) => displayId(info.id, m));
  // GitHub Models' default `gpt-4o` is sent as `openai/gpt-4o`
  const def = requestModel(info, info.defaultModel);
  return info.unsupported || all.includes(def) ? all : [def, ...all];
}

/** The model id as requests carry it (GitHub Models prefixes the publisher). */
function requestModel(info: ProviderInfo, model: string): string {
  return info.id === "github_models" && !model.includes("/") ? `openai/${model}` : model;
}

function entry(provider: string, id: string): ModelEntry {
  const price = priceOf({ provider, model: id });
  return {
    id,
    context_window: contextWindow({ provider, model: id }),
    price: price
      ? {
          input: price.input,
          output: price.output,
          cache_read: price.cacheRead,
          cache_write: price.cacheWrite,
        }
      : null,
  };
}

/** The document for `chatcli models`, from the loaded env and the config's `model`. */
export function modelsDocument(env: Env, configModel?: string): ModelsDocument {
  let active: { provider: string; label: string } | undefined;
  try {
    const ref = resolveModel(undefined, env, configModel);
    active = { provider: ref.provider, label: modelLabel(ref) };
  } catch {
    active = undefined;
  }
  const providers = PROVIDER_TABLE.map((info): ProviderEntry => {
    const by = configuredBy(info, env);
    const fromEnv = firstSet(env, info.modelEnvs);
    return {
      provider: info.id,
      llm_provider: info.envName,
      protocol: info.protocol,
      supported: !info.unsupported,
      configured: Boolean(by) && !info.unsupported,
      configured_by: by ?? [],
      default_model: info.defaultModel,
      model: requestModel(info, fromEnv?.value ?? info.defaultModel),
      model_from: fromEnv?.name ?? null,
      active: active?.provider === info.id,
      configure_with: info.unsupported ? null : configureWith(info),
      note: info.unsupported ?? null,
      models: knownModels(info).map((id) => entry(info.id, id)),
    };
  });
  providers.push(mockEntry(env, active?.provider === "mock"));
  return { active: active?.label ?? null, price_table_version: PRICE_TABLE_VERSION, providers };
}

/** The built-in test models: always there, no key, no network (`-m mock:echo`, `-m mock:script`). */
function mockEntry(env: Env, active: boolean): ProviderEntry {
  const fromEnv = env["MOCK_MODEL"]?.trim();
  return {
    provider: "mock",
    llm_provider: "MOCK",
    protocol: "mock",
    supported: true,
    configured: true,
    configured_by: [],
    default_model: "echo",
    model: fromEnv || "echo",
    model_from: fromEnv ? "MOCK_MODEL" : null,
    active,
    configure_with: null,
    note: `built in, for tests of your own pipelines: ${MOCK_MODELS.map((m) => `-m mock:${m.id} ${m.note}`).join("; ")}`,
    models: MOCK_MODELS.map((m) => entry("mock", `mock:${m.id}`)),
  };
}

/** `2.50`, `0.30`, `0.0075`: two decimals at least, four at most, no trailing zeros past two. */
function money(n: number): string {
  const [whole, frac = ""] = n.toFixed(4).split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

/** The text rendering: one block per provider, a row per known model. */
export function renderModels(doc: ModelsDocument): string {
  const lines: string[] = [];
  for (const p of doc.providers) {
    const state = !p.supported
      ? "not supported"
      : p.provider === "mock"
        ? "built in (no key)"
        : p.configured
          ? `configured by ${p.configured_by.join(" + ")}`
          : `not configured: set ${p.configure_with}`;
    lines.push(
      `${p.provider} (LLM_PROVIDER=${p.llm_provider}) — ${state}${p.active ? "  [active]" : ""}`,
    );
    if (p.note && !p.supported) {
      lines.push(`  ${p.note}`, "");
      continue;
    }
    if (p.note) lines.push(`  ${p.note}`);
    const chosen = p.model_from ? ` · using ${p.model} (${p.model_from})` : "";
    lines.push(`  default ${p.default_model}${chosen}`);
    const width = Math.max(5, ...p.models.map((m) => m.id.length));
    lines.push(`  ${"MODEL".padEnd(width)}  ${"CONTEXT".padStart(9)}  IN $/M  OUT $/M  CACHED $/M`);
    for (const m of p.models) {
      const price = m.price
        ? `${money(m.price.input).padStart(6)}  ${money(m.price.output).padStart(7)}  ${money(m.price.cache_read).padStart(10)}`
        : `${"—".padStart(6)}  ${"—".padStart(7)}  ${"—".padStart(10)}`;
      lines.push(
        `  ${m.id.padEnd(width)}  ${m.context_window.toLocaleString("en-US").padStart(9)}  ${price}`,
      );
    }
    lines.push("");
  }
  lines.push(
    doc.active
      ? `active: ${doc.active}`
      : "active: none (set LLM_PROVIDER and its key, or pass -m provider/model)",
    `prices: USD per 1M tokens, table ${doc.price_table_version}`,
  );
  return `${lines.join("\n")}\n`;
}
