/** Placeholder until this protocol lands. */
import { ConfigError } from "../../core/errors.ts";
import type { ModelRef } from "../models.ts";
import type { ProviderDeps } from "../registry.ts";
import type { Provider } from "../types.ts";

export function createProvider(ref: ModelRef, _deps: ProviderDeps): Provider {
  throw new ConfigError(`${ref.provider} (${ref.protocol}) is not available in this build yet`);
}
