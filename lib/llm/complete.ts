import type { LlmRequest, Provider, ToolCall, Usage } from "./types.ts";
import { addUsage, emptyUsage, type StopReason } from "./types.ts";

export interface Completion {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  stop: StopReason;
}

/** Collects a provider's stream into one completion (for summarisers, extractors, non-streaming uses). */
export async function complete(
  provider: Provider,
  request: LlmRequest,
  signal: AbortSignal,
  onText?: (delta: string) => void,
): Promise<Completion> {
  let text = "";
  const toolCalls: ToolCall[] = [];
  let usage = emptyUsage();
  let stop: StopReason = "end";
  for await (const event of provider.stream(request, signal)) {
    if (event.type === "text") {
      text += event.text;
      onText?.(event.text);
    } else if (event.type === "tool_call") toolCalls.push(event.call);
    else if (event.type === "usage") usage = addUsage(usage, event.usage);
    else if (event.type === "done") stop = event.stop;
  }
  return { text, toolCalls, usage, stop };
}
