import type { Protocol } from "./provider-table.ts";

/** A resolved model: everything needed to build a Provider. */
export interface ModelRef {
  /** User-facing provider name: openai, anthropic, google, bedrock, ollama, openrouter, xai, … mock. */
  provider: string;
  protocol: Protocol;
  model: string;
  apiKey?: string;
  /** Anthropic OAuth token (sent as a bearer token). */
  authToken?: string;
  /** SDK base URL (…/v1 for OpenAI-compatible). */
  baseURL?: string;
  /** A full chat-completions URL (ChatCLI's OPENAI_API_URL); wins over baseURL. */
  chatUrl?: string;
  /** ChatCLI's `<PROVIDER>_MAX_TOKENS`: the output cap of requests that set none (--max-tokens wins). */
  maxTokens?: number;
  /** Extra headers the endpoint wants (Copilot's editor headers, GitHub's API version). */
  headers?: Record<string, string>;
  /** AWS region (Bedrock). */
  region?: string;
  /** Static AWS credentials from the env chatcli loaded (Bedrock); else the SDK's chain. */
  aws?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string; profile?: string };
}
