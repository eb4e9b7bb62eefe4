import { expect, test } from "bun:test";
import { ExtractionGate } from "../../../lib/memory/gate.ts";

test("extraction gate: 4 new messages, 2-minute cooldown, breaker after 3 failures, clamp on shrink", () => {
  const g = new ExtractionGate();
  const m = 60_000;
  expect(g.due(3, 0)).toBe(false);
  expect(g.due(4, 0)).toBe(true);
  expect(g.begin()).toBe(0);
  expect(g.due(10, 0)).toBe(false); // running
  g.finish(4, true, 0);
  expect(g.due(8, 1 * m)).toBe(false); // cooldown
  expect(g.due(8, 2 * m)).toBe(true);
  for (let i = 0; i < 3; i++) {
    g.begin();
    g.finish(8 + 4 * (i + 1), false, (2 + 2 * i) * m);
  }
  expect(g.due(40, 9 * m)).toBe(false); // breaker open for 5 minutes from 6m
  expect(g.due(40, 11 * m)).toBe(true);
  expect(g.due(2, 11 * m)).toBe(false); // history shrank: watermark clamped
  expect(g.due(6, 11 * m)).toBe(true);
});
