import { costOf } from "../llm/cost.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, SystemBlock } from "../llm/types.ts";
import { addUsage, emptyUsage, type Usage } from "../llm/types.ts";
import type { ContextSummary, CostSummary } from "./services.ts";

/** What a request was for, as `/cost` breaks the session down. */
export type Purpose = "chat" | "agent" | "compaction" | "memory";

interface Tally {
  requests: number;
  usage: Usage;
  /** USD so far; null once a request went to a model without a price. */
  spent: number | null;
}

/**
 * `/cost`: every request the session made — chat turns, agent runs, compaction and the background
 * memory extraction — each priced at the model it went to, with a tally per purpose.
 */
export class UsageMeter {
  private readonly tallies = new Map<Purpose, Tally>();

  private tally(purpose: Purpose): Tally {
    let t = this.tallies.get(purpose);
    if (!t) {
      t = { requests: 0, usage: emptyUsage(), spent: 0 };
      this.tallies.set(purpose, t);
    }
    return t;
  }

  /** One request sent (its usage may follow, or never come when it fails). */
  request(purpose: Purpose = "chat"): void {
    this.tally(purpose).requests++;
  }

  add(ref: ModelRef, usage: Usage, purpose: Purpose = "chat"): void {
    const t = this.tally(purpose);
    t.usage = addUsage(t.usage, usage);
    const cost = costOf(ref, usage);
    t.spent = t.spent === null || cost === null ? null : t.spent + cost;
  }

  summary(): CostSummary {
    let requests = 0;
    let usage = emptyUsage();
    let spent: number | null = 0;
    const byPurpose: NonNullable<CostSummary["byPurpose"]> = [];
    for (const [purpose, t] of this.tallies) {
      requests += t.requests;
      usage = addUsage(usage, t.usage);
      spent = spent === null || t.spent === null ? null : spent + t.spent;
      byPurpose.push({ purpose, requests: t.requests, usage: t.usage, costUsd: t.spent });
    }
    return { requests, usage, costUsd: spent, costIsEstimate: true, byPurpose };
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
