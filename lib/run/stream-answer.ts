import { ERROR_TABLE, ProviderError } from "../llm/errors.ts";
import { addUsage, emptyUsage, type LlmRequest, type Provider, type Usage } from "../llm/types.ts";
import type { Reporter } from "../output/reporter.ts";

export interface StreamedAnswer {
  text: string;
  usage: Usage;
  apiMs: number;
}

/**
 * Streams one text answer to the reporter. `onOverflow` is called once on a context-length error
 * raised before any output; it returns a smaller request to retry with (or undefined to give up).
 * In json mode nothing reaches stdout before the envelope, so a retryable failure mid-answer (a stalled
 * or broken stream) asks once more from the start instead of failing with half an answer.
 */
export async function streamAnswer(
  provider: Provider,
  request: LlmRequest,
  options: {
    reporter: Reporter;
    signal: AbortSignal;
    onOverflow?: (request: LlmRequest, error: ProviderError) => Promise<LlmRequest | undefined>;
  },
): Promise<StreamedAnswer> {
  const { reporter } = options;
  let text = "";
  let usage = emptyUsage();
  let apiMs = 0;
  let current = request;
  let restarted = false;
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      for await (const event of provider.stream(current, options.signal)) {
        if (event.type === "text") {
          text += event.text;
          reporter.text(event.text);
          if (reporter.stdoutClosed) break;
        } else if (event.type === "reasoning") {
          // never part of the answer; stream-json carries it only with --show-reasoning
          if (current.showReasoning) reporter.event("reasoning.delta", { text: event.text });
        } else if (event.type === "usage") {
          usage = addUsage(usage, event.usage);
        } else if (event.type === "done" && event.stop === "max_tokens") {
          reporter.warn(
            "max_tokens",
            "the answer was cut at the output token limit (--max-tokens)",
          );
        }
      }
      return { text, usage, apiMs: apiMs + Date.now() - started };
    } catch (error) {
      apiMs += Date.now() - started;
      if (
        error instanceof ProviderError &&
        ERROR_TABLE[error.kind].retry &&
        text !== "" &&
        !restarted &&
        reporter.format === "json" &&
        !options.signal.aborted
      ) {
        restarted = true;
        reporter.endText();
        reporter.warn(
          "answer_restarted",
          `${error.message} after part of the answer; asked again from the start`,
        );
        text = "";
        continue;
      }
      const overflow = error instanceof ProviderError && error.kind === "context_length";
      if (!overflow || text !== "" || attempt > 0 || !options.onOverflow) {
        throw Object.assign(error as object, { partial: { text, usage, apiMs } });
      }
      const smaller = await options.onOverflow(current, error as ProviderError);
      if (!smaller) throw error;
      current = smaller;
    }
  }
}

/** What was streamed before a failure (attached to the thrown error by streamAnswer). */
export function partialOf(error: unknown): StreamedAnswer | undefined {
  return (error as { partial?: StreamedAnswer } | null)?.partial;
}
