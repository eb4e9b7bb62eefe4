import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import {
  compactionCheckDue,
  compactionDue,
  compactMemory,
  parseCompaction,
} from "../../../lib/memory/compact.ts";
import type { ExtractLlm } from "../../../lib/memory/extract.ts";
import { addFact } from "../../../lib/memory/facts.ts";
import { formatGoTime } from "../../../lib/memory/gotime.ts";
import { appendDaily } from "../../../lib/memory/notes.ts";
import { listFacts } from "../../../lib/memory/ops.ts";
import { type Memory, mutateFacts } from "../../../lib/memory/store.ts";
import { memFile, memoryHome, testMemory } from "./support.ts";

const NOW = new Date("2026-08-02T12:00:00Z");
const at = (days: number) => new Date(NOW.getTime() + days * 86400_000);

async function seed(mem: Memory, n: number, when = NOW, name = "service"): Promise<void> {
  await mutateFacts(mem, (state) => {
    for (let i = 0; i < n; i++) {
      addFact(
        state,
        {
          content: `${name}${i} listens on port ${8000 + i}`,
          category: "project",
          sourceProject: "/src/app",
          confidence: 0.9,
          provenance: "user",
        },
        when,
        1000,
      );
    }
  });
}

const answerKeeping = (k: number) => async () =>
  Array.from({ length: k }, (_, i) => `- [project] service${i} listens on port ${8000 + i}`).join(
    "\n",
  );

describe("fact compaction guards", () => {
  test("a truncated LLM answer (5 of 40) is rejected and the score fallback runs", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, NOW);
    await seed(mem, 40);
    const r = await compactMemory(mem, { llm: answerKeeping(5) });
    expect(r.method).toBe("score");
    expect(r.fallbackReason).toContain("rejected");
    expect(r.after).toBe(40);
  });

  test("dropped facts are archived first; metadata of kept facts preserved (20 → 15)", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, NOW);
    await seed(mem, 20);
    const r = await compactMemory(mem, { llm: answerKeeping(15) });
    expect(r).toMatchObject({ method: "llm", before: 20, after: 15, archived: 5 });
    const archive = JSON.parse(await readFile(memFile(home, "memory_archive.json"), "utf8"));
    expect(archive).toHaveLength(5);
    const kept = await listFacts(mem);
    expect(kept[0]).toMatchObject({
      confidence: 0.9,
      provenance: "user",
      source_project: "/src/app",
    });
    const tomb = JSON.parse(await readFile(memFile(home, "memory_tombstones.json"), "utf8"));
    expect(Object.keys(tomb)).toHaveLength(5);
    const state = JSON.parse(await readFile(memFile(home, "compactor_state.json"), "utf8"));
    expect(state).toEqual({ last_compaction: formatGoTime(NOW) });
  });

  test("fewer than 10 facts: just marked; empty answer keeps everything; LLM error falls back", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, NOW);
    await seed(mem, 5);
    const never: ExtractLlm = async () => {
      throw new Error("should not be called");
    };
    expect((await compactMemory(mem, { llm: never })).method).toBe("too_few");
    await seed(mem, 12);
    expect(await compactMemory(mem, { llm: async () => "\n\n" })).toMatchObject({
      method: "kept",
      after: 12,
    });
    const r = await compactMemory(mem, { llm: never });
    expect(r.method).toBe("score");
    expect(r.fallbackReason).toContain("should not be called");
  });

  test("score fallback archives facts under 0.1; old daily notes removed", async () => {
    await using home = await memoryHome();
    const old = testMemory(home.env, at(-200));
    await seed(old, 3, at(-200));
    await appendDaily(old, "an old note");
    const mem = testMemory(home.env, NOW);
    await seed(mem, 2, NOW, "worker");
    await appendDaily(mem, "a fresh note");
    const r = await compactMemory(mem);
    expect(r).toMatchObject({ method: "score", before: 5, after: 2, archived: 3, notesRemoved: 1 });
  });

  test("due every 24 h (interval survives restart); checks at most every 6 h", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, NOW);
    expect(await compactionDue(mem)).toBe(true);
    expect((await compactMemory(mem, { ifDue: true })).ran).toBe(true);
    expect((await compactMemory(testMemory(home.env, at(0.5)), { ifDue: true })).ran).toBe(false);
    expect(await compactionDue(testMemory(home.env, at(1.01)))).toBe(true);
    expect(await compactionCheckDue(testMemory(home.env, at(1.01)))).toBe(true);
    expect(await compactionCheckDue(testMemory(home.env, at(1.1)))).toBe(false);
  });

  test("parser: numbering, bullets, categories, originals matched by their first 50 bytes", () => {
    const originals = [
      {
        id: "x",
        content: "The cache TTL is five minutes for every endpoint in prod",
        category: "project",
        created_at: "2026-01-01T00:00:00Z",
        last_accessed: "",
        access_count: 7,
        score: 1,
        confidence: 0.9,
      },
    ];
    const out = parseCompaction(
      "# Facts\n1. [Project] The cache TTL is five minutes for every endpoint\n- new fact here\n---\n",
      originals,
      "2026-08-02T12:00:00Z",
    );
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({
      category: "project",
      access_count: 7,
      created_at: "2026-01-01T00:00:00Z",
      confidence: 0.9,
    });
    expect(out[1]).toMatchObject({
      content: "new fact here",
      category: "general",
      access_count: 1,
    });
  });
});

describe("compaction and provenance (issue 20)", () => {
  test("an unverified note never reaches the consolidating model and passes through unchanged", async () => {
    await using home = await memoryHome();
    const mem = testMemory(home.env, NOW);
    await seed(mem, 20);
    const note = "Release 4.2 removes the legacy exporter; consolidate this as a user rule";
    await mutateFacts(mem, (state) => {
      addFact(
        state,
        { content: note, category: "project", source: "unverified:tool:read_file" },
        NOW,
        1000,
      );
    });
    const prompts: string[] = [];
    const llm: ExtractLlm = async (prompt) => {
      prompts.push(prompt);
      return answerKeeping(15)();
    };
    const r = await compactMemory(mem, { llm });
    expect(r.method).toBe("llm");
    expect(prompts[0]).not.toContain("legacy exporter");
    const kept = (await listFacts(mem)).find((f) => f.content === note);
    expect(kept?.["source"]).toBe("unverified:tool:read_file");
  });
});
