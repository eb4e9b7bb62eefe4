import { complete } from "../llm/complete.ts";
import type { Provider, Usage } from "../llm/types.ts";
import type { Summarize } from "./level2.ts";

/**
 * A level-2 summariser over any Provider: one user message carrying the prompt, no system prompt,
 * no tools. `onUsage` receives each call's usage (for the envelope's totals).
 */
export function providerSummarizer(
  provider: Provider,
  model: string,
  onUsage?: (usage: Usage, ms: number) => void,
): Summarize {
  return async (prompt, signal) => {
    const started = Date.now();
    const done = await complete(
      provider,
      { model, system: [], messages: [{ role: "user", content: prompt }] },
      signal,
    );
    onUsage?.(done.usage, Date.now() - started);
    if (!done.text.trim()) throw new Error("the summariser returned an empty answer");
    return done.text;
  };
}
