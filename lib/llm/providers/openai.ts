import type { ModelRef } from "../models.ts";
import type { ProviderDeps } from "../registry.ts";
import type { Provider } from "../types.ts";

/** Placeholder until the provider lands. */
export function createProvider(ref: ModelRef, _deps: ProviderDeps): Provider {
  return {
    name: ref.provider,
    model: ref.model,
    // biome-ignore lint/correctness/useYield: placeholder
    async *stream() {
      throw new Error("provider openai not implemented yet");
    },
  };
}
