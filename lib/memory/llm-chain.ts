import type { Env } from "../core/ctx.ts";
import type { ModelRef } from "../llm/models.ts";
import type { Usage } from "../llm/types.ts";
import type { ExtractLlm } from "./extract.ts";

/**
 * The extraction chain: the active model first, then `CHATCLI_MEMORY_FALLBACK_PROVIDERS` (or
 * `CHATCLI_FALLBACK_PROVIDERS`), deduped; providers that cannot be built are skipped. SDKs load lazily.
 */
export async function extractionChain(
  env: Env,
  deps: {
    fetch: typeof fetch;
    model?: string;
    configModel?: string;
    /** Each request (usage undefined when it failed before any), for cost accounting. */
    onRequest?: (ref: ModelRef, usage: Usage | undefined) => void;
  },
): Promise<ExtractLlm[]> {
  const [{ resolveModel, resolveFallbacks, modelLabel }, { createProvider }, { complete }] =
    await Promise.all([
      import("../llm/models.ts"),
      import("../llm/registry.ts"),
      import("../llm/complete.ts"),
    ]);
  const refs = [];
  try {
    refs.push(resolveModel(deps.model, env, deps.configModel));
  } catch {
    // no active model: fallbacks only
  }
  const variable = env["CHATCLI_MEMORY_FALLBACK_PROVIDERS"]?.trim()
    ? "CHATCLI_MEMORY_FALLBACK_PROVIDERS"
    : "CHATCLI_FALLBACK_PROVIDERS";
  try {
    refs.push(...resolveFallbacks(env, variable));
  } catch {
    // unusable fallback list: ignore
  }
  const seen = new Set<string>();
  const chain: ExtractLlm[] = [];
  for (const ref of refs) {
    const label = modelLabel(ref);
    if (seen.has(label)) continue;
    seen.add(label);
    try {
      const provider = await createProvider(ref, { fetch: deps.fetch });
      chain.push(async (prompt, signal) => {
        try {
          const r = await complete(
            provider,
            { model: ref.model, system: [], messages: [{ role: "user", content: prompt }] },
            signal,
          );
          deps.onRequest?.(ref, r.usage);
          return r.text;
        } catch (error) {
          deps.onRequest?.(ref, undefined);
          throw error;
        }
      });
    } catch {
      // cannot be instantiated: skipped
    }
  }
  return chain;
}
