import type { Env } from "../core/ctx.ts";

/**
 * Microcompact knobs (seed 001 §6, reference §6.10; docs/compaction.md). A result becomes *eligible*
 * for head + tail after TRUNCATE_TURNS turns and for a summary line after SUMMARIZE_TURNS, when it is
 * at least MIN_CONTENT chars. Eligible results are rewritten only at a clearing, and a clearing
 * happens only when it pays for itself (lib/history/microcompact-cost.ts): what it frees, read on
 * every request still expected, outweighs rewriting the cached prefix after its cut point. Then
 * every due rewrite happens at once, oldest first. CLEAR_AT_LEAST=0 is the seed's eager behaviour
 * (rewrite as soon as a result is eligible, whatever the cache).
 */
export interface MicrocompactConfig {
  /** CHATCLI_MICROCOMPACT=off (or 0, false): the history goes out as it is. */
  enabled: boolean;
  truncateTurns: number;
  summarizeTurns: number;
  headChars: number;
  tailChars: number;
  minContent: number;
  /** Estimated tokens one clearing must free at least (0 = eager: the seed's rewrite every turn). */
  clearAtLeast: number;
  /** A new result of at least this many chars, identical to an earlier one, becomes a pointer (0 = off). */
  dedupMinChars: number;
  /** Requests expected after N requests: about paceFactor × N more (the run's own pace). */
  paceFactor: number;
  /** Requests always expected still, this one included (the conservative floor). */
  floorTurns: number;
  /** Requests a run makes before its pace counts. */
  warmupTurns: number;
  /**
   * The default (`strict`): clear only with what pointers and recipes already saved in writes, so a
   * run never writes (or sends uncached) more than it would without microcompact, whatever its
   * length. CHATCLI_MICROCOMPACT=cost drops the budget: a clearing only has to pay for itself in cost.
   */
  writeBudget: boolean;
}

/** The defaults shipped (docs/compaction.md justifies them); the seed's MIN_CONTENT was 3000. */
export const MICROCOMPACT_DEFAULTS: MicrocompactConfig = {
  enabled: true,
  truncateTurns: 2,
  summarizeTurns: 2,
  headChars: 2000,
  tailChars: 500,
  minContent: 1000,
  clearAtLeast: 500,
  dedupMinChars: 400,
  paceFactor: 1,
  floorTurns: 2,
  warmupTurns: 4,
  writeBudget: true,
};

function positive(env: Env, name: string, fallback: number): number {
  const n = Number.parseInt(env[name] ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

function nonNegative(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim() ?? "";
  const n = /^\d+$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** Reads the CHATCLI_MICROCOMPACT* variables. */
export function microcompactConfig(env: Env): MicrocompactConfig {
  const d = MICROCOMPACT_DEFAULTS;
  const mode = env["CHATCLI_MICROCOMPACT"]?.trim().toLowerCase() ?? "";
  return {
    ...d,
    enabled: !["off", "0", "false", "no"].includes(mode),
    writeBudget: mode !== "cost",
    truncateTurns: positive(env, "CHATCLI_MICROCOMPACT_TRUNCATE_TURNS", d.truncateTurns),
    summarizeTurns: positive(env, "CHATCLI_MICROCOMPACT_SUMMARIZE_TURNS", d.summarizeTurns),
    headChars: positive(env, "CHATCLI_MICROCOMPACT_HEAD_CHARS", d.headChars),
    tailChars: positive(env, "CHATCLI_MICROCOMPACT_TAIL_CHARS", d.tailChars),
    minContent: positive(env, "CHATCLI_MICROCOMPACT_MIN_CONTENT", d.minContent),
    clearAtLeast: nonNegative(env, "CHATCLI_MICROCOMPACT_CLEAR_AT_LEAST", d.clearAtLeast),
    dedupMinChars: nonNegative(env, "CHATCLI_MICROCOMPACT_DEDUP_MIN_CHARS", d.dedupMinChars),
  };
}
