import type { Fact } from "./facts.ts";

/** One recall result. */
export interface Hit {
  fact: Fact;
  /** Final rank: relevance × live-score factor × workspace factor. */
  score: number;
  /** Lexical relevance of the query to the fact (0 when there is no query). */
  relevance: number;
  /** The fact's live score (§2.3). */
  live: number;
  /** The fact belongs to another workspace (`(from: …)` annotation). */
  fromOther: boolean;
}
