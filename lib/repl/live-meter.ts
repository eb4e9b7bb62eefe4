import { costOf } from "../llm/cost.ts";
import type { ModelRef } from "../llm/models.ts";
import { addUsage, emptyUsage, type Usage } from "../llm/types.ts";
import type { CostSummary } from "./services.ts";

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
