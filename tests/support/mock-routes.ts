/**
 * The mock LLM's routes beyond OpenAI Chat Completions and Anthropic Messages: the Gemini API
 * (mock-gemini.ts), the OpenAI Responses API (mock-responses.ts) and Bedrock's
 * InvokeModelWithResponseStream (mock-bedrock.ts). Each takes one scripted reply per model request.
 */
import type { ScriptReply } from "../../lib/llm/providers/script-format.ts";
import { bedrockRoute } from "./mock-bedrock.ts";
import { geminiRoute } from "./mock-gemini.ts";
import type { CacheSimulator, Json, WireUsage } from "./mock-llm-wire.ts";
import { responsesRoute } from "./mock-responses.ts";

export interface ExtraRouteContext {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  /** The parsed JSON body (or its text). */
  body: Json;
  signal: AbortSignal;
  cache: CacheSimulator;
  /** The next scripted reply (after its delay_ms). */
  next(): Promise<ScriptReply>;
  /** The reply's usage over a cache-simulation base (chars/4 estimates unless the reply overrides). */
  usage(
    reply: ScriptReply,
    base: { input: number; cacheRead: number; cacheCreation?: number },
  ): WireUsage;
  /** An SSE response sending `frames` one per pull; stalls after `stallAfter` frames when set. */
  sse(frames: string[], stallAfter?: number): Response;
  /** A binary streamed response (one chunk per pull). */
  bytes(chunks: Uint8Array[], contentType: string, stallAfter?: number): Response;
}

/**
 * Thrown by `next()` when the queued reply is a verbatim one (`pushRaw`): the route that asked for a
 * reply answers with these exact bytes instead of building its own.
 */
export class RawAnswer {
  constructor(readonly response: Response) {}
}

/** The first extra route that answers `ctx`, or undefined (a 404 from the caller). */
export async function extraRoute(ctx: ExtraRouteContext): Promise<Response | undefined> {
  for (const route of ROUTES) {
    try {
      const response = await route(ctx);
      if (response) return response;
    } catch (error) {
      if (error instanceof RawAnswer) return error.response;
      throw error;
    }
  }
  return undefined;
}

const ROUTES: Array<(ctx: ExtraRouteContext) => Promise<Response | undefined>> = [
  geminiRoute,
  responsesRoute,
  bedrockRoute,
];
