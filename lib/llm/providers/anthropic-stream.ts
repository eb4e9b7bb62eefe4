/**
 * The Messages API event stream → chatcli events, for Anthropic and for Anthropic models served
 * elsewhere (Bedrock): text, thinking (streamed as reasoning, kept with its signature for the tool
 * loop), tool_use blocks, cumulative usage; a stream that ends without message_stop is cut off
 * (`truncated`), `stop_reason: "refusal"` is `refused` with the provider's explanation.
 */
import { ProviderError } from "../errors.ts";
import type { LlmEvent, StopReason, ThinkingBlock, ToolCall } from "../types.ts";
import { type AnthropicUsageWire, mapStopReason, usageFromAnthropic } from "./anthropic-format.ts";
import { parseToolArguments } from "./openai-format.ts";

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  thinking: string;
  signature: string;
  data: string;
}

// biome-ignore lint/suspicious/noExplicitAny: SDK stream events are read structurally
type StreamEvent = any;

/** Consumes the SDK's event stream; `touch` restarts the idle clock after each delta. */
export async function* anthropicEvents(
  stream: AsyncIterable<StreamEvent>,
  provider: string,
  touch: () => void,
  signal?: AbortSignal,
): AsyncIterable<LlmEvent> {
  const blocks = new Map<number, OpenBlock>();
  const calls: ToolCall[] = [];
  const thinking: ThinkingBlock[] = [];
  let thinkingChars = 0;
  let usage: AnthropicUsageWire = {};
  let stop: StopReason | undefined;
  let stopReason: string | undefined;
  let stopDetails: unknown;
  let finished = false;
  for await (const event of stream) {
    if (event.type === "message_start") {
      usage = { ...event.message?.usage };
    } else if (event.type === "content_block_start") {
      const block = event.content_block ?? {};
      blocks.set(event.index, {
        type: block.type,
        id: block.id ?? "",
        name: block.name ?? "",
        json: "",
        thinking: block.thinking ?? "",
        signature: block.signature ?? "",
        data: block.data ?? "",
      });
    } else if (event.type === "content_block_delta") {
      const delta = event.delta ?? {};
      const open = blocks.get(event.index);
      if (delta.type === "text_delta" && delta.text) {
        yield { type: "text", text: delta.text };
        touch();
      } else if (delta.type === "thinking_delta" && delta.thinking) {
        if (open) open.thinking += delta.thinking;
        thinkingChars += delta.thinking.length;
        yield { type: "reasoning", text: delta.thinking };
        touch();
      } else if (delta.type === "signature_delta" && open) {
        open.signature += delta.signature ?? "";
      } else if (delta.type === "input_json_delta" && open) {
        open.json += delta.partial_json ?? "";
      }
    } else if (event.type === "content_block_stop") {
      const open = blocks.get(event.index);
      blocks.delete(event.index);
      if (open?.type === "tool_use") {
        calls.push({
          id: open.id,
          type: "function",
          name: open.name,
          ...parseToolArguments(open.json),
        });
      } else if (open?.type === "thinking") {
        thinking.push({ type: "thinking", thinking: open.thinking, signature: open.signature });
      } else if (open?.type === "redacted_thinking") {
        thinking.push({ type: "redacted_thinking", data: open.data });
      }
    } else if (event.type === "message_delta") {
      stopReason = event.delta?.stop_reason ?? undefined;
      stopDetails = event.delta?.stop_details;
      stop = mapStopReason(stopReason ?? null);
      for (const [key, value] of Object.entries(event.usage ?? {})) {
        if (typeof value === "number") (usage as Record<string, number>)[key] = value;
      }
    } else if (event.type === "message_stop") {
      finished = true;
      // the last event: a connection a proxy keeps open afterwards must not become a stall
      break;
    }
  }
  // the SDKs end a stream quietly when it is aborted: that is a cancel or a stall, not an answer
  if (signal?.aborted) throw signal.reason;
  if (!finished) {
    throw new ProviderError(
      "truncated",
      `${provider}: the stream ended without message_stop (the connection dropped mid-answer)`,
      { provider, hint: "the answer is incomplete; ask again" },
    );
  }
  const total = usageFromAnthropic(usage);
  // the API counts thinking inside output_tokens without a separate figure: estimate it (chars/4)
  total.reasoning_tokens = Math.min(total.output_tokens, Math.ceil(thinkingChars / 4));
  if (stopReason === "refusal") {
    // a refused answer is still billed (output tokens up to the refusal)
    yield { type: "usage", usage: total };
    throw new ProviderError("refused", `${provider}: ${refusalText(stopDetails)}`, { provider });
  }
  const first = calls[0];
  if (first && thinking.length) first.thinking = thinking;
  for (const call of calls) yield { type: "tool_call", call };
  yield { type: "usage", usage: total };
  yield { type: "done", stop: stop ?? (calls.length > 0 ? "tool_use" : "end") };
}

/** The refusal's explanation from `stop_details` ({type: "refusal", category, explanation}), if sent. */
function refusalText(details: unknown): string {
  const d = (typeof details === "object" && details !== null ? details : {}) as Record<
    string,
    unknown
  >;
  const explanation = typeof d["explanation"] === "string" ? d["explanation"].trim() : "";
  const category = typeof d["category"] === "string" ? d["category"] : "";
  const head = `the model refused to answer (stop_reason refusal${category ? `, category ${category}` : ""})`;
  return explanation ? `${head}: ${explanation}` : head;
}
