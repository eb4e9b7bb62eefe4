import type { Env } from "../core/ctx.ts";

/** A model as far as window lookup cares. */
export interface ModelId {
  provider: string;
  model: string;
}

// Longest prefix wins; ids are matched lower-cased, without any `vendor/` prefix.
const CATALOGUE: ReadonlyArray<[prefix: string, window: number]> = [
  ["claude-sonnet-4-5", 200_000],
  ["claude-sonnet-4", 200_000],
  ["claude-opus-4", 200_000],
  ["claude-haiku-4", 200_000],
  ["claude-3", 200_000],
  ["claude", 200_000],
  ["gpt-5", 400_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4", 8_192],
  ["gpt-3.5", 16_385],
  ["gpt-oss", 131_072],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["gemini", 1_000_000],
  ["gemini-1.5-pro", 2_000_000],
  ["glm-4.5", 131_072],
  ["glm", 202_752],
  ["minimax", 204_800],
  ["kimi", 262_144],
  ["grok-4", 256_000],
  ["grok", 131_072],
  ["llama3", 8_192],
  ["qwen", 32_768],
  ["deepseek", 128_000],
];

const BY_PROVIDER: Record<string, number> = {
  anthropic: 200_000,
  openai: 128_000,
  openrouter: 128_000,
  xai: 128_000,
  ollama: 8_192,
  google: 1_000_000,
  bedrock: 200_000,
  zai: 202_752,
  minimax: 204_800,
  moonshot: 262_144,
  copilot: 128_000,
  github_models: 128_000,
};

/** The model's context window in tokens: CHATCLI_CONTEXT_WINDOW, else the catalogue, else per provider. */
export function contextWindow(model: ModelId, env: Env = {}): number {
  const override = Number.parseInt(env["CHATCLI_CONTEXT_WINDOW"] ?? "", 10);
  if (Number.isFinite(override) && override > 0) return override;
  // without a vendor prefix: `openai/gpt-4o` (GitHub Models), `global.anthropic.claude-…-v1:0` (Bedrock)
  const id = (model.model.toLowerCase().split("/").pop() ?? "")
    .replace(/^(?:[a-z]+\.)?anthropic\./, "")
    .replace(/-v\d+(?::\d+)?$/, "");
  let best: [string, number] | undefined;
  for (const entry of CATALOGUE) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (best) return best[1];
  return BY_PROVIDER[model.provider.toLowerCase()] ?? 50_000;
}
