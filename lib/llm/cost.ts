/** Cost of a request from a versioned price table (USD per 1M tokens). */
import type { Usage } from "./types.ts";

/** Bump when prices change; printed by `--version --verbose` style diagnostics and kept in tests. */
export const PRICE_TABLE_VERSION = "2026-12";

export interface Price {
  input: number;
  output: number;
  /** Price of input tokens read from the prompt cache. */
  cacheRead: number;
  /** Price of input tokens written to the prompt cache (Anthropic: 1.25× input for 5-minute entries). */
  cacheWrite: number;
}

function openai(input: number, output: number, cacheRead: number): Price {
  return { input, output, cacheRead, cacheWrite: input };
}

function anthropic(input: number, output: number): Price {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}

/** Gemini: implicit caching reads at 10% of input, with no charge for writing. */
function google(input: number, output: number): Price {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input };
}

/** Z.ai, Moonshot: automatic context caching, reads at a fraction of input, writes free. */
function autoCache(input: number, output: number, readRatio: number): Price {
  return { input, output, cacheRead: input * readRatio, cacheWrite: input };
}

/** MiniMax: explicit prompt caching priced like Anthropic's (reads 10%, writes 125%). */
function minimax(input: number, output: number): Price {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}

/** Model id (without provider prefix or date suffix) → price. */
const PRICES: Readonly<Record<string, Price>> = {
  // OpenAI
  "gpt-5.6": openai(5, 30, 0.5),
  "gpt-5.6-terra": openai(2, 12, 0.2),
  "gpt-5.6-luna": openai(0.2, 1.2, 0.02),
  "gpt-5.4": openai(2.5, 15, 0.25),
  "gpt-5.2": openai(1.75, 14, 0.175),
  "gpt-5.1": openai(1.25, 10, 0.125),
  "gpt-5": openai(1.25, 10, 0.125),
  "gpt-5-mini": openai(0.25, 2, 0.025),
  "gpt-5-nano": openai(0.05, 0.4, 0.005),
  "gpt-4.1": openai(2, 8, 0.5),
  "gpt-4.1-mini": openai(0.4, 1.6, 0.1),
  "gpt-4.1-nano": openai(0.1, 0.4, 0.025),
  "gpt-4o": openai(2.5, 10, 1.25),
  "gpt-4o-mini": openai(0.15, 0.6, 0.075),
  o3: openai(2, 8, 0.5),
  "o3-mini": openai(1.1, 4.4, 0.55),
  "o4-mini": openai(1.1, 4.4, 0.275),
  o1: openai(15, 60, 7.5),
  // Anthropic
  "claude-opus-4-8": anthropic(5, 25),
  "claude-opus-4-7": anthropic(5, 25),
  "claude-opus-4-6": anthropic(5, 25),
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4": anthropic(15, 75),
  "claude-sonnet-4-6": anthropic(3, 15),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  "claude-3-haiku": anthropic(0.25, 1.25),
  // Google Gemini
  "gemini-3.7-flash": google(0.75, 3.75),
  "gemini-3.6-flash": google(0.75, 3.75),
  "gemini-3.5-flash-lite": google(0.3, 2.5),
  "gemini-3.5-flash": google(1.5, 9),
  "gemini-3.1-pro": google(2, 12),
  "gemini-3.1-flash-lite": google(0.25, 1.5),
  "gemini-3-flash": google(0.5, 3),
  "gemini-3-pro": google(2, 12),
  "gemini-2.5-pro": google(1.25, 10),
  "gemini-2.5-flash-lite": google(0.1, 0.4),
  "gemini-2.5-flash": google(0.3, 2.5),
  "gemini-2.0-flash": google(0.075, 0.3),
  "gemini-2.0-flash-lite": google(0.075, 0.3),
  "gemini-1.5-pro": google(1.25, 5),
  "gemini-1.5-flash": google(0.075, 0.3),
  // Z.ai GLM
  "glm-5.2": autoCache(1.4, 4.4, 0.2),
  "glm-5.1": autoCache(1.4, 4.4, 0.2),
  "glm-5-turbo": autoCache(1.2, 4, 0.2),
  "glm-5v-turbo": autoCache(1.2, 4, 0.2),
  "glm-5": autoCache(1, 3.2, 0.2),
  "glm-4.6": autoCache(0.5, 0.5, 0.2),
  "glm-4.5": autoCache(0.5, 0.5, 0.2),
  // MiniMax
  "minimax-m2.7": minimax(0.2, 1.1),
  "minimax-m2.5": minimax(0.2, 1.1),
  "minimax-m2.1": minimax(0.2, 1.1),
  "minimax-m2": minimax(0.2, 1.1),
  // Moonshot Kimi
  "kimi-k3": autoCache(3, 15, 0.2),
  "kimi-k2.7-code-highspeed": autoCache(1.9, 8, 0.2),
  "kimi-k2.7": autoCache(0.95, 4, 0.2),
  "kimi-k2.6": autoCache(0.95, 4, 0.2),
  "kimi-k2.5": autoCache(0.95, 4, 0.2),
  "kimi-k2": autoCache(0.95, 4, 0.2),
};

/** Every model the table prices (for `chatcli models`). */
export function pricedModels(): string[] {
  return Object.keys(PRICES);
}

/** Providers whose models cost nothing (local or built-in). */
const FREE_PROVIDERS = new Set(["mock", "ollama"]);

/**
 * Normalises a model id for lookup: lowercase, without a vendor prefix (`openai/gpt-5.2` on OpenRouter,
 * `global.anthropic.` on Bedrock), dots in Claude versions as dashes, and without a date or `-latest` suffix.
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf("/") + 1);
  id = id.replace(/^(?:[a-z]+\.)?anthropic\./, "").replace(/-v\d+(?::\d+)?$/, "");
  if (id.startsWith("claude")) id = id.replace(/(\d)\.(\d)/g, "$1-$2");
  // Gemini previews are priced as their release: gemini-3-pro-preview, gemini-2.5-flash-preview-09-2025
  if (id.startsWith("gemini")) id = id.replace(/-(?:preview|exp)(?:-[\d-]+)?$/, "");
  return id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
}

/** The price of a model, or null when the table does not know it. */
export function priceOf(ref: { provider: string; model: string }): Price | null {
  if (FREE_PROVIDERS.has(ref.provider)) return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return PRICES[normalizeModelId(ref.model)] ?? null;
}

/**
 * USD cost of one usage record; null for an unpriced model (reported as `total_cost_usd: null` plus
 * warning `unpriced_model`, never 0). Uncached input = input − cache reads − cache writes.
 */
export function costOf(ref: { provider: string; model: string }, usage: Usage): number | null {
  const price = priceOf(ref);
  if (!price) return null;
  const uncached = Math.max(
    0,
    usage.input_tokens - usage.cache_read_input_tokens - usage.cache_creation_input_tokens,
  );
  const micro =
    uncached * price.input +
    usage.cache_read_input_tokens * price.cacheRead +
    usage.cache_creation_input_tokens * price.cacheWrite +
    usage.output_tokens * price.output;
  return micro / 1_000_000;
}
