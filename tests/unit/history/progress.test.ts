import { expect, test } from "bun:test";
import { describePhase, grouped } from "../../../lib/history/progress.ts";

test("token counts are grouped as toLocaleString('en-US') groups them", () => {
  for (const n of [0, 7, 999, 1000, 12_345, 1_234_567, -4321, 2 ** 53 - 1, 1.5, Number.NaN]) {
    expect(describePhase("start", { messages: 1, tokens: n, budget_tokens: 25_000 })).toBe(
      `📦 Compacting history (1 msgs, ~${n.toLocaleString("en-US")} tokens → target ~25,000 tokens)`,
    );
    expect(grouped(n)).toBe(n.toLocaleString("en-US")); // compact's summary line (lib/output/progress.ts)
  }
});
