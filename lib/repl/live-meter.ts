import { costOf } from "../llm/cost.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, SystemBlock } from "../llm/types.ts";
import { addUsage, emptyUsage, type Usage } from "../llm/types.ts";
import type { ContextSummary, CostSummary } from "./services.ts";

/** `/cost`: the session's requests and usage, each request priced at the model it went to. */
export class UsageMeter {
  private usage = emptyUsage();
  private requests = 0;
  /** USD so far; null once a request went to a model without a price. */
  private spent: number | null = 0;

  /** One request sent (its usage may follow, or never come when it fails). */
  request(): void {
    this.requests++;
  }

  add(ref: ModelRef, usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
    const cost = costOf(ref, usage);
    this.spent = this.spent === null || cost === null ? null : this.spent + cost;
  }

  summary(): CostSummary {
    return {
      requests: this.requests,
      usage: this.usage,
      costUsd: this.spent,
      costIsEstimate: true,
    };
  }
}

/** `/context`: what the next request carries — each system block and the conversation — in tokens. */
export function contextSummary(
  blocks: readonly SystemBlock[],
  messages: readonly ChatMessage[],
  window: number | undefined,
): ContextSummary {
  const parts = blocks.map((b) =>
    part(`system: ${b.id}${b.cache ? " (cached)" : ""}`, b.text.length),
  );
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
  parts.push(part("conversation", chars));
  return { parts, messages: messages.length, window };
}

function part(label: string, chars: number) {
  return { label, chars, tokens: Math.ceil(chars / 4) };
}
