/**
 * Microcompact pays for itself (issue 23), on the wire: `chatcli agent` against the mock LLM, with
 * microcompact on (the default) and off (CHATCLI_MICROCOMPACT=off), the requests the mock recorded
 * priced by the mock's own cache simulation (tests/support/mock-llm-wire.ts): OpenAI-style uncached
 * input and Anthropic cache writes.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { applyDelta, DELTA } from "../../lib/history/microcompact-delta.ts";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { CacheSimulator, type Json } from "../support/mock-llm-wire.ts";

beforeAll(() => {
  requireBinary();
});

interface Bill {
  requests: Json[];
  /** Per request: OpenAI-style uncached input (prompt − cached). */
  uncached: number[];
  /** Per request: Anthropic cache writes. */
  writes: number[];
  /** Anthropic-priced cost in input tokens: reads 0.1×, writes 1.25×. */
  cost: number;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** ~5k-token files (the example): read_file returns ~19.5k chars of numbered lines. */
async function workspace(root: string, files: number): Promise<string> {
  const ws = join(root, "ws");
  await mkdir(ws, { recursive: true });
  for (let i = 0; i < files; i++) {
    const lines = Array.from({ length: 250 }, (_, n) => `f${i} line ${n} ${"v".repeat(62)}`);
    await writeFile(join(ws, `f${i}.txt`), `${lines.join("\n")}\n`);
  }
  return ws;
}

/**
 * Runs `agent` reading `reads` files in order (one per turn), then "done"; returns what the mock
 * recorded, priced by a fresh simulator per API over exactly those requests.
 */
async function run(
  reads: Array<string | { name: string; arguments: Json }>,
  api: "openai" | "anthropic",
  extra: Record<string, string>,
  args: string[] = [],
) {
  await using home = await tempDir();
  await using llm = await startMockLlm({ defaultText: "done" });
  const ws = await workspace(home.path, 40);
  for (const r of reads)
    llm.push({
      tool_calls: [typeof r === "string" ? { name: "read_file", arguments: { file: r } } : r],
    });
  const r = await runChatcli(["agent", "read the files", "--permission-mode", "bypass", ...args], {
    env: baseEnv(home.path, { ...llm.env(api), CHATCLI_MEMORY_ENABLED: "false", ...extra }),
    cwd: ws,
  });
  expect(r.stderr).not.toContain("error");
  expect(r.code).toBe(0);
  const requests = llm.requests.map((q) => q.body as Json);
  expect(requests).toHaveLength(reads.length + 1);
  const sim = new CacheSimulator();
  const bill: Bill = { requests, uncached: [], writes: [], cost: 0 };
  for (const body of requests) {
    if (api === "openai") {
      const u = sim.openai(body);
      bill.uncached.push(u.input - u.cacheRead);
    } else {
      const u = sim.anthropic(body);
      bill.writes.push(u.cacheCreation);
      bill.cost +=
        u.cacheRead * 0.1 + u.cacheCreation * 1.25 + (u.input - u.cacheRead - u.cacheCreation);
    }
  }
  return bill;
}

const OFF = { CHATCLI_MICROCOMPACT: "off" };
/** The pay-for-itself rule without the default's write budget. */
const COST = { CHATCLI_MICROCOMPACT: "cost" };
/** The messages of a request as JSON, without the cache breakpoints (they move to the last block). */
const wire = (body: Json) =>
  JSON.stringify(body["messages"], (k, v) => (k === "cache_control" ? undefined : v));
/** Whether request `i` starts with the whole of request `i - 1` (its prefix was not rewritten). */
const extends_ = (bodies: Json[], i: number) =>
  wire(bodies[i] as Json).startsWith(wire(bodies[i - 1] as Json).slice(0, -1));
const files = (n: number) => Array.from({ length: n }, (_, i) => `f${i}.txt`);
const toolContents = (body: Json) =>
  (body["messages"] as Json[]).flatMap((m) =>
    typeof m["content"] === "string" || m["content"] === null
      ? m["role"] === "tool"
        ? [m["content"] as string]
        : []
      : (m["content"] as Json[])
          .filter((b) => b["type"] === "tool_result")
          .map((b) => JSON.stringify(b["content"])),
  );

describe("microcompact pays for itself", () => {
  test("the issue's short run (7 requests, ~5k-token outputs): no more uncached input or cache writes than off", async () => {
    const reads = files(6);
    const [onO, offO, onA, offA] = await Promise.all([
      run(reads, "openai", {}),
      run(reads, "openai", OFF),
      run(reads, "anthropic", {}),
      run(reads, "anthropic", OFF),
    ]);
    expect(sum(onO.uncached)).toBeLessThanOrEqual(sum(offO.uncached));
    expect(sum(onA.writes)).toBeLessThanOrEqual(sum(offA.writes));
    // request by request too: nothing was cleared, so the wire is the same
    for (const [i, w] of onA.writes.entries())
      expect(w).toBeLessThanOrEqual(offA.writes[i] as number);
    for (const [i, u] of onO.uncached.entries())
      expect(u).toBeLessThanOrEqual(offO.uncached[i] as number);
    expect(onA.requests.map((b) => JSON.stringify(b["messages"]))).toEqual(
      offA.requests.map((b) => JSON.stringify(b["messages"])),
    );
  });

  test("CHATCLI_MICROCOMPACT=cost: a long run clears once it pays: cheaper than off, the prefix changes only at clearings, cleared results byte-stable", async () => {
    const reads = files(30);
    const [on, off, strict] = await Promise.all([
      run(reads, "anthropic", COST),
      run(reads, "anthropic", OFF),
      run(reads, "anthropic", {}),
      run(reads, "anthropic", OFF),
    ]);
    expect(on.cost).toBeLessThan(0.8 * off.cost);
    // the default has nothing to pay a rewrite with (no output repeats): the wire is off's
    expect(strict.requests.map(wire)).toEqual(off.requests.map(wire));
    const rewritten = on.requests.flatMap((_, i) =>
      i > 0 && !extends_(on.requests, i) ? [i] : [],
    );
    expect(rewritten.length).toBeGreaterThan(0);
    expect(rewritten.length).toBeLessThan(on.requests.length / 2);
    // once a result goes out cleared, every later request carries it byte for byte
    const seen = new Map<number, string>();
    for (const body of on.requests) {
      for (const [k, content] of toolContents(body).entries()) {
        const before = seen.get(k);
        if (before?.includes("Old tool result cleared")) expect(content).toBe(before);
        seen.set(k, content);
      }
    }
    expect([...seen.values()].some((c) => c.includes("Old tool result cleared"))).toBe(true);
    // the last two turns' results always go out verbatim
    const last = toolContents(on.requests.at(-1) as Json);
    expect(last.at(-1)).toContain("f29 line 249");
    expect(last.at(-2)).toContain("f28 line 249");
  });

  test("--max-turns: the last requests are never rewritten, a clearing there could not pay back", async () => {
    // 8 requests: going by the run's pace alone, the 8th would clear (3 more requests expected)
    const reads = files(7);
    const [paced, capped, off] = await Promise.all([
      run(reads, "anthropic", COST),
      run(reads, "anthropic", COST, ["--max-turns", "8"]),
      run(reads, "anthropic", OFF),
    ]);
    const rewritesLast = (bill: Bill) => !extends_(bill.requests, bill.requests.length - 1);
    expect(rewritesLast(paced)).toBe(true);
    expect(rewritesLast(capped)).toBe(false);
    expect(sum(capped.writes)).toBe(sum(off.writes));
  });

  test("the same file read again goes out as a pointer; the first read stays verbatim", async () => {
    const reads = ["f0.txt", "f1.txt", "f0.txt", "f2.txt", "f0.txt"];
    const on = await run(reads, "openai", {});
    const last = toolContents(on.requests.at(-1) as Json);
    expect(last[0]).toContain("f0 line 249");
    expect(last[2]).toMatch(
      /^\[Same output as tool call \S+ above \(unchanged\): \d+ lines, \d+ chars\]$/,
    );
    expect(last[4]).toMatch(/^\[Same output as tool call \S+ above \(unchanged\)/);
    const off = await run(reads, "openai", OFF);
    expect(sum(on.uncached)).toBeLessThan(sum(off.uncached));
  });

  test("the file read again after an edit goes out as a recipe built from the first read, rebuilding exactly what read_file returned", async () => {
    const lines = Array.from({ length: 250 }, (_, n) => `f0 line ${n} ${"v".repeat(62)}`);
    lines.splice(100, 0, "a line the agent added");
    const edit = {
      name: "write_file",
      arguments: { file: "f0.txt", content: `${lines.join("\n")}\n` },
    };
    const reads = ["f0.txt", edit, "f0.txt"];
    const [on, off] = await Promise.all([run(reads, "openai", {}), run(reads, "openai", OFF)]);
    const sent = toolContents(on.requests.at(-1) as Json);
    const verbatim = toolContents(off.requests.at(-1) as Json);
    expect(sent[0]).toBe(verbatim[0] as string);
    const recipe = sent[2] as string;
    expect(DELTA.test(recipe)).toBe(true);
    expect(recipe).toContain("a line the agent added");
    expect(recipe.length).toBeLessThan((verbatim[2] as string).length / 5);
    expect(applyDelta(recipe, sent[0] as string)).toBe(verbatim[2] as string);
    expect(sum(on.uncached)).toBeLessThan(sum(off.uncached));
  });

  test("an old call's long arguments go at a clearing (a file written whole): the wire carries a size placeholder, the newest calls as sent", async () => {
    const body = Array.from({ length: 300 }, (_, n) => `new line ${n} ${"w".repeat(50)}`).join(
      "\n",
    );
    const write = { name: "write_file", arguments: { file: "new.txt", content: body } };
    const reads = [write, ...files(24)];
    const [on, off] = await Promise.all([
      run(reads, "anthropic", COST),
      run(reads, "anthropic", OFF),
    ]);
    const inputs = (req: Json) =>
      (req["messages"] as Json[]).flatMap((m) =>
        Array.isArray(m["content"])
          ? (m["content"] as Json[])
              .filter((b) => b["type"] === "tool_use")
              .map((b) => b["input"] as Json)
          : [],
      );
    const last = inputs(on.requests.at(-1) as Json);
    expect(last[0]).toEqual({ file: "new.txt", content: `[cleared — ${body.length} chars]` });
    expect(last.at(-1)).toEqual({ file: "f23.txt" });
    expect(inputs(off.requests.at(-1) as Json)[0]).toEqual(write.arguments);
    expect(on.cost).toBeLessThan(off.cost);
  });

  test("the default (strict): cache writes and uncached input never above off, request by request cumulatively", async () => {
    // re-reads give pointers (writes saved), which the default spends on clearings
    const reads = Array.from({ length: 20 }, (_, i) => (i % 3 === 2 ? "f0.txt" : `f${i + 1}.txt`));
    const strict = {};
    const [onA, offA, onO, offO] = await Promise.all([
      run(reads, "anthropic", strict),
      run(reads, "anthropic", OFF),
      run(reads, "openai", strict),
      run(reads, "openai", OFF),
    ]);
    let w = 0;
    let wOff = 0;
    let u = 0;
    let uOff = 0;
    for (let i = 0; i < onA.writes.length; i++) {
      w += onA.writes[i] as number;
      wOff += offA.writes[i] as number;
      u += onO.uncached[i] as number;
      uOff += offO.uncached[i] as number;
      expect(w).toBeLessThanOrEqual(wOff);
      expect(u).toBeLessThanOrEqual(uOff);
    }
    expect(onA.cost).toBeLessThan(offA.cost);
    // it did clear (paid by the pointers), not only point
    const rewritten = onA.requests.filter((_, i) => i > 0 && !extends_(onA.requests, i));
    expect(rewritten.length).toBeGreaterThan(0);
  });
});
