/**
 * Reasoning control: `--effort low|medium|high|max` (else CHATCLI_EFFORT; unset keeps the model's own
 * default), mapped per provider: Anthropic/Bedrock thinking budgets, OpenAI reasoning_effort and
 * Responses `reasoning`, Gemini thinkingConfig (gemini-format.ts), OpenAI-compatible hosts that accept
 * reasoning_effort.
 */
import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";
import { EFFORTS, type Effort } from "./types.ts";

/** The effort of a run: the flag, else CHATCLI_EFFORT; an invalid CHATCLI_EFFORT is a config error. */
export function resolveEffort(flag: string | undefined, env: Env): Effort | undefined {
  const raw = (flag ?? env["CHATCLI_EFFORT"])?.trim().toLowerCase();
  if (!raw || raw === "default" || raw === "auto") return undefined;
  if ((EFFORTS as readonly string[]).includes(raw)) return raw as Effort;
  throw new ConfigError(`CHATCLI_EFFORT=${JSON.stringify(raw)} is not an effort`, {
    hint: `use one of ${EFFORTS.join(", ")} (or unset it for the model's default)`,
  });
}

/** Anthropic extended-thinking budgets (budget_tokens ≥ 1024, below max_tokens). */
const THINKING_BUDGET: Record<Effort, number> = {
  low: 2048,
  medium: 8192,
  high: 16_384,
  max: 32_000,
};

/** Models without extended thinking (Claude 3 before 3.7). */
function noThinking(model: string): boolean {
  return /claude-3-(?!7)|claude-3\.5|claude-instant|claude-2/i.test(model);
}

/**
 * `thinking` and the max_tokens that leaves room for an answer after it; undefined without an effort,
 * for a model without thinking, or when the output cap leaves no room for the minimum budget.
 */
export function anthropicThinking(
  model: string,
  effort: Effort | undefined,
  maxTokens: number | undefined,
  defaultMax: number,
): { thinking: { type: "enabled"; budget_tokens: number }; maxTokens: number } | undefined {
  if (!effort || noThinking(model)) return undefined;
  let budget = THINKING_BUDGET[effort];
  if (maxTokens !== undefined) {
    // an explicit cap bounds thinking and answer together
    budget = Math.min(budget, maxTokens - 1024);
    if (budget < 1024) return undefined;
    return { thinking: { type: "enabled", budget_tokens: budget }, maxTokens };
  }
  return { thinking: { type: "enabled", budget_tokens: budget }, maxTokens: budget + defaultMax };
}

/** Providers whose Chat Completions endpoint accepts `reasoning_effort`. */
const REASONING_EFFORT_HOSTS = new Set([
  "openai",
  "openrouter",
  "xai",
  "ollama",
  "github_models",
  "copilot",
]);

/**
 * `reasoning_effort` for an OpenAI-compatible Chat Completions request, or undefined when the host or
 * model does not take it (a value it does not know would fail the request).
 */
export function chatReasoningEffort(
  provider: string,
  model: string,
  effort: Effort | undefined,
): string | undefined {
  if (!effort || !REASONING_EFFORT_HOSTS.has(provider)) return undefined;
  const id = model.toLowerCase().replace(/^[^/]+\//, "");
  if (provider === "xai")
    return /grok-3-mini/.test(id) ? (effort === "low" ? "low" : "high") : undefined;
  if (provider === "ollama")
    return /gpt-oss/.test(id) ? (effort === "max" ? "high" : effort) : undefined;
  if (provider === "openai" || provider === "github_models" || provider === "copilot") {
    if (!/^(?:o\d|gpt-5|codex)/.test(id)) return undefined;
  }
  if (effort !== "max") return effort;
  return /gpt-5\.(?:[2-9]|\d\d)/.test(id) ? "xhigh" : "high";
}
