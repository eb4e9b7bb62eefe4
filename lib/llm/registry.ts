import type { ModelRef } from "./models.ts";
import { credentialSafeFetch } from "./redirects.ts";
import type { Provider, ProviderDeps } from "./types.ts";

export type { ProviderDeps };

/** A provider module: `lib/llm/providers/<protocol>.ts` exports `createProvider`. */
export interface ProviderModule {
  createProvider(ref: ModelRef, deps: ProviderDeps): Provider;
}

// SDKs are loaded only when a request is about to be made, so commands without a model start fast.
const LOADERS: Record<ModelRef["protocol"], () => Promise<ProviderModule>> = {
  openai: () => import("./providers/openai.ts"),
  anthropic: () => import("./providers/anthropic.ts"),
  mock: () => import("./providers/mock.ts"),
  responses: () => import("./providers/openai-responses.ts"),
  google: () => import("./providers/gemini.ts"),
  bedrock: () => import("./providers/bedrock.ts"),
};

/** Builds the Provider for a resolved model, importing its SDK on first use. */
export async function createProvider(ref: ModelRef, deps: ProviderDeps): Promise<Provider> {
  const mod = await LOADERS[ref.protocol]();
  // a redirect never takes the key (or the request body) to another origin
  return mod.createProvider(ref, { ...deps, fetch: credentialSafeFetch(deps.fetch) });
}
