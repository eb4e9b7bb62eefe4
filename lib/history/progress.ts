import type { CompactPhase, CompactResult } from "./compact.ts";

/** `toLocaleString("en-US")` for whole numbers, without loading the locale data (~10 ms of start-up). */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = "";
  for (let end = digits.length; end > 0; end -= 3) {
    out =
      end === digits.length
        ? digits.slice(Math.max(0, end - 3), end)
        : `${digits.slice(Math.max(0, end - 3), end)},${out}`;
  }
  return n < 0 ? `-${out}` : out;
}

function tokens(n: unknown): string {
  return `~${grouped(Number(n ?? 0))} tokens`;
}

/** The stderr line for a compaction phase (shared by `chatcli compact`, chat and agent), or undefined. */
export function describePhase(
  phase: CompactPhase,
  info: Record<string, unknown>,
): string | undefined {
  switch (phase) {
    case "start":
      return `📦 Compacting history (${info["messages"]} msgs, ${tokens(info["tokens"])} → target ${tokens(info["budget_tokens"])})`;
    case "trim":
      return info["fits"]
        ? `✓ Trim was enough (${tokens(info["tokens_before"])} → ${tokens(info["tokens_after"])})`
        : `🧹 Trim: stripped reasoning/duplicates (${tokens(info["tokens_before"])} → ${tokens(info["tokens_after"])})`;
    case "summarize":
      return info["chunk"] === undefined
        ? `🧠 Summarizing ${info["messages"]} old messages via LLM (Ctrl+C cancels)…`
        : `🧠 Summarizing part ${info["chunk"]} of ${info["chunks"]}…`;
    case "summary_failed":
      return `⚠ Summarization failed (${info["error"]}) — falling back to truncation`;
    case "summary_applied":
      return `✓ Summary applied (${info["messages"]} msgs, ${tokens(info["tokens"])})`;
    case "truncate":
      return "✂ Emergency truncation — old messages dropped";
    case "cancelled":
      return "⚠ Compaction cancelled by user — history unchanged";
    default:
      return undefined;
  }
}

/** One-line summary of a finished compaction. */
export function describeResult(result: CompactResult): string {
  const levels = result.levelsRun.join(", ");
  if (result.status === "unchanged") {
    return `unchanged: ${result.before.messages} messages, ${tokens(result.before.tokens)} already fit (budget ${tokens(result.budgetTokens)})`;
  }
  return `compacted: ${result.before.messages} → ${result.after.messages} messages, ${tokens(result.before.tokens)} → ${tokens(result.after.tokens)} (levels ${levels}; budget ${tokens(result.budgetTokens)})`;
}

/** The envelope's `compaction` object. */
export function compactionJson(result: CompactResult, extra: Record<string, unknown> = {}) {
  return {
    status: result.status,
    levels_run: result.levelsRun,
    messages_before: result.before.messages,
    messages_after: result.after.messages,
    tokens_before: result.before.tokens,
    tokens_after: result.after.tokens,
    budget_tokens: result.budgetTokens,
    under_budget: result.underBudget,
    summary_error: result.summaryError ?? null,
    // Where compaction's own messages are (formats without `meta` cannot carry it in the messages).
    markers: result.messages.flatMap((m, index) =>
      m.meta?.is_summary && result.status === "compacted"
        ? [
            {
              index,
              kind: m.content.startsWith("[CONTEXT TRUNCATED") ? "truncation" : "summary",
              summary_of: m.meta.summary_of ?? null,
            },
          ]
        : [],
    ),
    ...extra,
  };
}
