import { describe, expect, test } from "bun:test";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { COOLDOWN_MS, MemoryWorker } from "../../../lib/repl/memory-worker.ts";

const msgs = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }));

function setup(outcomes: Array<string | undefined | Error>) {
  const clock = { now: 0 };
  const segments: string[][] = [];
  const worker = new MemoryWorker({
    now: () => new Date(clock.now),
    extract: async (segment) => {
      segments.push(segment.map((m) => m.content));
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  });
  return { clock, segments, worker };
}

describe("MemoryWorker", () => {
  test("needs 4 new messages; extracts only the new segment; notices queue up", async () => {
    const { clock, segments, worker } = setup(["memory: +1 fact(s)", undefined]);
    expect(worker.nudge(msgs(3))).toBe(false);
    expect(worker.nudge(msgs(4))).toBe(true);
    await worker.idle();
    expect(worker.drainNotices()).toEqual(["memory: +1 fact(s)"]);
    expect(worker.drainNotices()).toEqual([]);
    clock.now += COOLDOWN_MS;
    expect(worker.nudge(msgs(7))).toBe(false);
    expect(worker.nudge(msgs(8))).toBe(true);
    await worker.idle();
    expect(segments).toEqual([
      ["m0", "m1", "m2", "m3"],
      ["m4", "m5", "m6", "m7"],
    ]);
  });

  test("baseline: an opened conversation's messages are not extracted again", async () => {
    const { segments, worker } = setup([undefined]);
    worker.baseline(10);
    expect(worker.nudge(msgs(13))).toBe(false);
    expect(worker.nudge(msgs(14))).toBe(true);
    await worker.idle();
    expect(segments).toEqual([["m10", "m11", "m12", "m13"]]);
  });

  test("2-minute cooldown after an attempt; one run at a time", async () => {
    const { clock, worker } = setup([undefined, undefined]);
    expect(worker.nudge(msgs(4))).toBe(true);
    expect(worker.nudge(msgs(8))).toBe(false);
    await worker.idle();
    clock.now += COOLDOWN_MS - 1;
    expect(worker.nudge(msgs(8))).toBe(false);
    clock.now += 1;
    expect(worker.nudge(msgs(8))).toBe(true);
    await worker.idle();
  });

  test("a history shorter than the watermark (rewind, compaction) clamps it", async () => {
    const { clock, segments, worker } = setup([undefined, undefined]);
    worker.nudge(msgs(10));
    await worker.idle();
    clock.now += COOLDOWN_MS;
    const rewound = msgs(2);
    expect(worker.nudge(rewound)).toBe(false);
    expect(worker.nudge([...rewound, ...msgs(4)])).toBe(true);
    await worker.idle();
    expect(segments[1]).toEqual(["m0", "m1", "m2", "m3"]);
  });

  test("failures: warned once at 2 in a row, breaker open after 3, reset by a success", async () => {
    const fail = new Error("provider down");
    const { clock, worker } = setup([fail, fail, fail, "memory: +2 fact(s)"]);
    let n = 0;
    const step = async () => {
      n += 4;
      clock.now += COOLDOWN_MS;
      const started = worker.nudge(msgs(n));
      await worker.idle();
      return started;
    };
    await step();
    expect(worker.drainNotices()).toEqual([]);
    await step();
    expect(worker.drainNotices()).toEqual([
      "memory: extraction failing (2 in a row) — recent facts are queued on disk and will be retried automatically",
    ]);
    await step();
    expect(worker.drainNotices()).toEqual([]);
    expect(await step()).toBe(false); // breaker open (5 minutes)
    clock.now += 3 * 60_000;
    expect(await step()).toBe(true);
    expect(worker.drainNotices()).toEqual(["memory: +2 fact(s)"]);
  });

  test("stop cancels a running extraction", async () => {
    let seen: AbortSignal | undefined;
    const worker = new MemoryWorker({
      now: () => new Date(0),
      extract: (_s, signal) => {
        seen = signal;
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      },
    });
    worker.nudge(msgs(4));
    await worker.stop();
    expect(seen?.aborted).toBe(true);
    expect(worker.nudge(msgs(12))).toBe(false);
  });
});
