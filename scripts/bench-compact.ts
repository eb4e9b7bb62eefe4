import { compactHistory } from "../lib/history/compact.ts";
import { historyChars } from "../lib/history/tokens.ts";
import type { ChatMessage } from "../lib/llm/types.ts";

export interface CompactBenchRow {
  messages: number;
  megabytes: number;
  ms: number;
  mbPerSecond: number;
}

/** A realistic agent history: user turns, assistant text with reasoning and tool XML, native tool calls and big results. */
export function syntheticHistory(count: number): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: "You are a coding agent. ".repeat(40) }];
  const body = "export function parse(input: string): Date { return new Date(input); }\n".repeat(
    40,
  );
  for (let i = 0; out.length < count; i++) {
    const id = `call_${i}`;
    out.push({
      role: "user",
      content: `step ${i}: please look at src/file${i}.ts and fix the bug`,
    });
    out.push({
      role: "assistant",
      content: `<reasoning>${"thinking about the problem ".repeat(30)}</reasoning>Reading it.\n<tool_call name="@coder" args='{"cmd":"read","args":{"file":"src/file${i}.ts"}}' />`,
      tool_calls: [
        { id, type: "function", name: "read_file", arguments: { file: `src/file${i}.ts` } },
      ],
    });
    out.push({ role: "tool", tool_call_id: id, content: `${body}// file ${i}\n` });
    out.push({
      role: "user",
      content: `The tool '@coder' was executed and returned the following:\n\n<tool_output>\n${body.repeat(3)}\n</tool_output>`,
    });
  }
  return out.slice(0, count);
}

/** Runs levels 1 + 3 (no LLM) on synthetic histories and reports throughput per size. */
export async function benchCompact(
  sizes: readonly number[] = [1_000, 10_000, 100_000],
): Promise<CompactBenchRow[]> {
  const rows: CompactBenchRow[] = [];
  for (const size of sizes) {
    const history = syntheticHistory(size);
    const chars = historyChars(history);
    // One warm-up on a small slice, so JIT warm-up is not charged to the first size.
    await compactHistory(history.slice(0, 200), { budgetTokens: 2_000, maxLevel: 3 });
    const start = performance.now();
    const result = await compactHistory(history, { budgetTokens: 20_000, maxLevel: 3 });
    const ms = performance.now() - start;
    if (!result.levelsRun.includes(3)) throw new Error("bench: level 3 did not run");
    const megabytes = chars / (1024 * 1024);
    rows.push({ messages: size, megabytes, ms, mbPerSecond: megabytes / (ms / 1000) });
  }
  return rows;
}

if (import.meta.main) {
  for (const row of await benchCompact()) {
    console.log(
      `${String(row.messages).padStart(7)} msgs  ${row.megabytes.toFixed(1).padStart(7)} MB  ${row.ms.toFixed(0).padStart(6)} ms  ${row.mbPerSecond.toFixed(0).padStart(5)} MB/s`,
    );
  }
}
