import { expect, test } from "bun:test";
import {
  clearingGain,
  paysForItself,
  requestsLeft,
  rewriteTokens,
  waitIsCheaper,
} from "../../../lib/history/microcompact-cost.ts";
import { messageTokens } from "../../../lib/history/tokens.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { call, result, user } from "./build.ts";

const pace = { paceFactor: 1, floorTurns: 2, warmupTurns: 4 };

test("requests expected: the floor while the run is young, then its pace, never past --max-turns", () => {
  expect(requestsLeft({ ...pace, turnIndex: 0 })).toBe(2);
  expect(requestsLeft({ ...pace, turnIndex: 6 })).toBe(2);
  expect(requestsLeft({ ...pace, turnIndex: 7 })).toBe(3);
  expect(requestsLeft({ ...pace, turnIndex: 30 })).toBe(26);
  expect(requestsLeft({ ...pace, turnIndex: 30, maxTurns: 40 })).toBe(10);
  expect(requestsLeft({ ...pace, turnIndex: 39, maxTurns: 40 })).toBe(1);
  expect(requestsLeft({ ...pace, turnIndex: 5, maxTurns: 6 })).toBe(1);
});

test("a clearing pays when reading what it frees on the requests left costs more than the rewrite", () => {
  // Anthropic prices: reads 0.1×, writes 1.25× — the rewrite premium is 1.15 per token
  expect(clearingGain(10_000, 1000, 2)).toBeCloseTo(2000 - 1150);
  expect(paysForItself(10_000, 1000, 2)).toBe(true);
  expect(paysForItself(5000, 5000, 11)).toBe(false);
  expect(paysForItself(5000, 5000, 12)).toBe(true);
  // waiting a turn to rewrite a small round instead of a large one, when a next request is expected
  expect(waitIsCheaper(5000, 200, 4000, 5)).toBe(true);
  expect(waitIsCheaper(5000, 200, 60_000, 5)).toBe(false);
  expect(waitIsCheaper(5000, 200, 4000, 1)).toBe(false);
});

test("the rewrite starts at the latest cache entry at or before the cut within the 20-block lookback", () => {
  const history: ChatMessage[] = [user("task")];
  for (let t = 0; t < 12; t++)
    history.push(call(`c${t}`, "read_file", {}), result(`c${t}`, "x".repeat(4000)));
  // earlier requests ended before each assistant message
  const entries = history.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
  const tokens = (from: number, to: number) =>
    history.slice(from, to).reduce((n, m) => n + messageTokens(m), 0);
  const sentBefore = history.length - 2;
  // a cut 3 rounds back: the entry just before the cut is read, the rest written again
  const near = rewriteTokens({ after: history, cut: history.length - 5, sentBefore, entries });
  expect(near).toBe(tokens(history.length - 6, sentBefore));
  // a cut 11 rounds back (22 blocks): no entry in reach, everything after the system prompt
  const far = rewriteTokens({ after: history, cut: 2, sentBefore, entries });
  expect(far).toBe(tokens(0, sentBefore));
  // an entry that is no longer a prefix (not in `entries`) is not read
  const stale = rewriteTokens({ after: history, cut: history.length - 5, sentBefore, entries: [] });
  expect(stale).toBe(tokens(0, sentBefore));
});
