import { ProviderError } from "../llm/errors.ts";
import {
  addUsage,
  type ChatMessage,
  type Effort,
  emptyUsage,
  type Provider,
  type SystemBlock,
  type Usage,
} from "../llm/types.ts";

/**
 * Streams one chat answer. On a provider context-length error before any text, `shrink` compacts the
 * history once more (a lower target) and the request is retried once.
 */
export async function streamChatTurn(
  provider: Provider,
  model: string,
  system: SystemBlock[],
  history: ChatMessage[],
  options: {
    effort?: Effort;
    onText: (delta: string) => void;
    onRequest: () => void;
    signal: AbortSignal;
    /** Compacts once more after the provider's context-length error (passed for its words and counts). */
    shrink: (messages: ChatMessage[], error: ProviderError) => Promise<ChatMessage[]>;
  },
): Promise<{ text: string; usage: Usage }> {
  const { signal } = options;
  let messages = history;
  let text = "";
  let usage = emptyUsage();
  for (let attempt = 0; ; attempt++) {
    options.onRequest();
    try {
      const request = {
        model,
        system,
        messages,
        ...(options.effort ? { effort: options.effort } : {}),
      };
      for await (const event of provider.stream(request, signal)) {
        if (signal.aborted) break;
        if (event.type === "text") {
          text += event.text;
          options.onText(event.text);
        } else if (event.type === "usage") usage = addUsage(usage, event.usage);
      }
      return { text, usage };
    } catch (error) {
      const overflow = error instanceof ProviderError && error.kind === "context_length";
      if (!overflow || text !== "" || attempt > 0) throw error;
      messages = await options.shrink(messages, error as ProviderError);
    }
  }
}
