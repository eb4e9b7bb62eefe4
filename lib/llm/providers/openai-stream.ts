/**
 * Reading a Chat Completions event stream as OpenAI-compatible servers really send it: `content` as a
 * string or as an array of parts (Mistral), reasoning in side fields (DeepSeek `reasoning_content`,
 * OpenRouter `reasoning`), `refusal` deltas, usage-only final chunks with empty `choices`, error
 * objects in place of a chunk (vLLM), and a stream that simply stops. Pure: chunks in, events out.
 */
import type { StopReason, Usage } from "../types.ts";
import {
  mapFinishReason,
  ToolCallAccumulator,
  type ToolCallDelta,
  usageFromOpenAI,
} from "./openai-format.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text of a part's `text`/`thinking` value, which may itself be a string or nested parts. */
function partText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(partText).join("");
  if (isRecord(value)) return partText(value["text"]);
  return "";
}

/**
 * Splits a delta's `content` into answer text and reasoning: a string is the answer; an array of parts
 * gives `text` parts to the answer and `thinking`/`reasoning` parts to the reasoning; anything else
 * (numbers, objects of unknown shape) is neither, never "[object Object]".
 */
export function splitContent(content: unknown): { text: string; reasoning: string } {
  if (typeof content === "string") return { text: content, reasoning: "" };
  const parts = Array.isArray(content) ? content : isRecord(content) ? [content] : [];
  let text = "";
  let reasoning = "";
  for (const part of parts) {
    if (typeof part === "string") text += part;
    else if (!isRecord(part)) continue;
    else if (part["type"] === "thinking" || part["type"] === "reasoning")
      reasoning += partText(part["thinking"] ?? part["reasoning"] ?? part["text"]);
    else if (part["type"] === "text" || part["type"] === undefined) text += partText(part["text"]);
  }
  return { text, reasoning };
}

/** What one chunk carried that the provider passes on. */
export interface ChunkOutput {
  text: string;
  /** Reasoning this chunk added (never answer text). */
  reasoning?: string;
}

/** An error object sent in place of a chunk (vLLM: `{"object":"error","message":…,"code":400}`). */
export interface ChunkError {
  message: string;
  status?: number;
  type?: string;
}

/** Accumulates one streamed completion; `read` each parsed chunk, then `outcome()`. */
export class OpenAIStreamReader {
  readonly tools = new ToolCallAccumulator();
  private finish: string | undefined;
  private usage: Usage | undefined;
  private refusal = "";
  reasoning = "";

  /** Reads one chunk; returns the answer text it added, or the error it stands for. */
  read(chunk: unknown): ChunkOutput | { error: ChunkError } {
    if (!isRecord(chunk)) return { text: "" };
    if (
      chunk["object"] === "error" ||
      (typeof chunk["message"] === "string" && !chunk["choices"])
    ) {
      const code = chunk["code"];
      return {
        error: {
          message: typeof chunk["message"] === "string" ? chunk["message"] : "error event",
          status: typeof code === "number" ? code : undefined,
          type: typeof chunk["type"] === "string" ? chunk["type"] : undefined,
        },
      };
    }
    if (isRecord(chunk["usage"])) this.usage = usageFromOpenAI(chunk["usage"]);
    // Groq reports usage in `x_groq.usage` on the last chunk
    const groq = chunk["x_groq"];
    if (!this.usage && isRecord(groq) && isRecord(groq["usage"]))
      this.usage = usageFromOpenAI(groq["usage"]);
    let text = "";
    let reasoning = "";
    const choices = Array.isArray(chunk["choices"]) ? chunk["choices"] : [];
    for (const choice of choices) {
      if (!isRecord(choice)) continue;
      // only the first choice is the answer (n is never set above 1)
      if (typeof choice["index"] === "number" && choice["index"] !== 0) continue;
      const delta = isRecord(choice["delta"])
        ? choice["delta"]
        : isRecord(choice["message"])
          ? choice["message"]
          : {};
      const content = splitContent(delta["content"]);
      text += content.text;
      reasoning +=
        content.reasoning + partText(delta["reasoning_content"]) + partText(delta["reasoning"]);
      if (typeof delta["refusal"] === "string") this.refusal += delta["refusal"];
      const calls = delta["tool_calls"];
      if (Array.isArray(calls))
        for (const call of calls) if (isRecord(call)) this.tools.add(call as ToolCallDelta);
      const finish = choice["finish_reason"];
      if (typeof finish === "string" && finish) this.finish = finish;
    }
    this.reasoning += reasoning;
    return reasoning ? { text, reasoning } : { text };
  }

  /** Whether a finish_reason arrived (with `[DONE]`, the only proof the answer is complete). */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  get finishReason(): string | undefined {
    return this.finish;
  }

  /** The refusal the model sent instead of an answer (OpenAI `refusal` deltas), if any. */
  get refusalText(): string {
    return this.refusal.trim();
  }

  get finalUsage(): Usage | undefined {
    return this.usage;
  }

  stopReason(callCount: number): StopReason {
    if (this.finish) return mapFinishReason(this.finish);
    return callCount > 0 ? "tool_use" : "end";
  }
}
