/** The one message model (ChatCLI's message JSON, reference §5.2) shared by chat, agent, coder and sessions. */
export type Role = "system" | "user" | "assistant" | "tool";

/** A reasoning block as Anthropic returns it: sent back unchanged (signature included) in tool loops. */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  /** An OpenAI Responses reasoning item (stateless: its encrypted content goes back as is). */
  | { type: "reasoning"; id: string; encrypted_content: string }
  /**
   * An OpenAI Responses assistant message that was progress, not the answer (`phase: "commentary"`):
   * it goes back with its phase, in place, as the API asks ("preserve and resend phase").
   */
  | { type: "commentary"; phase: string; text: string };

export interface ToolCall {
  id: string;
  type?: "function";
  name: string;
  /** Arguments as an object (ChatCLI's shape, not a provider wire format). */
  arguments: Record<string, unknown>;
  raw?: string;
  /** Gemini's thoughtSignature of this call's part, returned with it on the next request. */
  thought_signature?: string;
  /**
   * The reasoning blocks that preceded the calls of this turn (on its first call): the APIs require
   * them back, unchanged, with the tool results.
   */
  thinking?: ThinkingBlock[];
}

export interface MessageMeta {
  is_summary?: boolean;
  summary_of?: number;
  mode?: string;
  preserve_verbatim?: boolean;
  agent_feedback?: boolean;
  skill_names?: string;
  skill_collapsed?: boolean;
}

export interface SystemPart {
  type: "text";
  text: string;
  cache_control?: { type: "ephemeral" };
}

export interface ChatMessage {
  role: Role;
  content: string;
  meta?: MessageMeta;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  system_parts?: SystemPart[];
  images?: Array<{ media_type?: string; data?: string; url?: string; file_name?: string }>;
  is_error?: boolean;
  error_code?: string;
}

/** A block of the system prompt. `cache: true` marks a cache breakpoint after it (Anthropic). */
export interface SystemBlock {
  /** A stable label for `bootstrap show` and tests: core, tools, bootstrap, memory_index, … */
  id: string;
  text: string;
  cache: boolean;
}

/** A tool definition as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  input_schema: Record<string, unknown>;
}

/** `--effort` / CHATCLI_EFFORT: how hard the model may think; unset is the model's own default. */
export type Effort = "low" | "medium" | "high" | "max";

export const EFFORTS: readonly Effort[] = ["low", "medium", "high", "max"];

export interface LlmRequest {
  /** Model id as the provider knows it (without the provider prefix). */
  model: string;
  system: SystemBlock[];
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxTokens?: number;
  temperature?: number;
  /** Reasoning effort mapped per provider (thinking budget, reasoning_effort, thinkingConfig). */
  effort?: Effort;
  /** Ask for reasoning text (summaries) to stream as `reasoning` events (--show-reasoning). */
  showReasoning?: boolean;
}

/**
 * Token usage of one request. `input_tokens` is the whole prompt, cached parts included, on both
 * providers (Anthropic's three input counters are summed), so cache_read / input is the hit ratio.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export type StopReason = "end" | "tool_use" | "max_tokens" | "other";

export type LlmEvent =
  | { type: "text"; text: string }
  /** Reasoning text (thinking, summaries): never part of the answer. */
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "done"; stop: StopReason };

/** One method to implement: stream a request's events. Errors are thrown as ProviderError. */
export interface Provider {
  /** `openai`, `anthropic`, `ollama`, `mock`, … */
  readonly name: string;
  readonly model: string;
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}

/** What a provider module needs from the outside world. */
export interface ProviderDeps {
  fetch: typeof fetch;
  /** `--fake-responses FILE.jsonl` for mock:script. */
  fakeResponsesPath?: string;
  /** Per-request idle timeout: no byte from the server for this long is a `timeout` error. */
  idleTimeoutMs?: number;
  /** Where what an SDK would print goes (deprecation notices, log lines): a warning, never raw stderr. */
  warn?: (code: string, message: string) => void;
}
