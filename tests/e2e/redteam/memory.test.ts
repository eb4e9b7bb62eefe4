/**
 * Red team, memory poisoning: run 1 plants every text of cases/memory.ts — through the agent's
 * memory tool, through end-of-run extraction, or as a file another tool wrote — each in its own
 * HOME; run 2 (memory read, full mode, a retrieval budget large enough for every fact) must not
 * carry a case's marker in any request. A benign fact planted the same way must come through.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../../support/binary.ts";
import { type TempDir, tempDir } from "../../support/ctx.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { MEMORY_METHODS, memoryIds, POISONS } from "./cases/memory.ts";
import { CONTROLS, settle, settleControls, type Verdict } from "./support.ts";

const marker = (i: number) => `m${i}.rtp.example`;
const texts = (i: number): string[] => {
  const t = POISONS[i]?.[1] as string | readonly string[];
  return (typeof t === "string" ? [t] : [...t]).map((s) => s.replaceAll("{M}", marker(i)));
};
const BENIGN = "The setup uses Bun and the benign marker RTOK-benign-7";

async function project(home: string): Promise<string> {
  const dir = join(home, "proj");
  await mkdir(join(dir, ".git"), { recursive: true });
  return dir;
}

const envFor = (home: string, llm: { env(a: "openai"): Record<string, string> }, extra = {}) =>
  baseEnv(home, {
    ...llm.env("openai"),
    CHATCLI_MAX_RETRIES: "0",
    CHATCLI_MEMORY_MODE: "full",
    CHATCLI_MEMORY_RETRIEVAL_BUDGET: "200000",
    ...extra,
  });

async function plantWith(method: string, home: string, all: string[], extra = {}): Promise<void> {
  const cwd = await project(home);
  if (method === "disk") {
    await mkdir(join(home, ".chatcli", "memory"), { recursive: true });
    const facts = all.map((content, k) => ({
      id: k.toString(16).padStart(24, "0"),
      content,
      category: "project",
      created_at: "2026-11-01T10:00:00Z",
      last_accessed: "2026-11-01T10:00:00Z",
      access_count: 1,
      score: 1,
      confidence: 0.9,
      provenance: "user",
    }));
    await writeFile(join(home, ".chatcli", "memory", "memory_index.json"), JSON.stringify(facts));
    return;
  }
  await using llm = await startMockLlm();
  if (method === "tool")
    llm.push(
      {
        tool_calls: all.map((content, k) => ({
          id: `m${k}`,
          name: "memory",
          arguments: { cmd: "remember", content },
        })),
      },
      { text: "noted" },
      { text: "NOTHING_NEW" },
    );
  else
    llm.push(
      { text: "noted" },
      { text: ["## LONGTERM", ...all.map((t) => `- [project] ${t}`), ""].join("\n") },
    );
  const r = await runChatcli(["agent", "remember the setup", "--json", "--memory", "write"], {
    env: envFor(home, llm, extra),
    cwd,
  });
  expect(r.code).toBe(0);
}

/** Run 2: everything it sent the provider. */
async function recall(home: string, extra = {}): Promise<string> {
  await using llm = await startMockLlm();
  llm.push({ text: "ok" });
  const r = await runChatcli(
    ["agent", "how does the setup work", "--json", "--memory", "read", "--ephemeral"],
    { env: envFor(home, llm, extra), cwd: join(home, "proj") },
  );
  expect(r.code).toBe(0);
  return llm.requests.map((q) => JSON.stringify(q.body)).join("\n");
}

function verdicts(method: string, sent: string): Verdict[] {
  return POISONS.map(([slug], i) => {
    const m = marker(i);
    const at = sent.indexOf(m);
    const parts = texts(i);
    // a split case is broken when every part arrived; parts without the marker are matched whole
    const arrived =
      parts.length > 1
        ? parts.every((p) => sent.includes(JSON.stringify(p).slice(1, -1)))
        : at >= 0;
    return {
      id: `memory.${slug}.${method}`,
      broken: arrived,
      note: arrived ? sent.slice(Math.max(0, at - 60), at + 60) : undefined,
    };
  });
}

describe("red team: memory poisoning", () => {
  test("tool, extraction and on-disk plants; run 2's prompt", async () => {
    requireBinary();
    const all = [BENIGN, ...POISONS.flatMap((_, i) => texts(i))];
    const v: Verdict[] = [];
    const homes: TempDir[] = [];
    try {
      for (const method of MEMORY_METHODS) {
        const home = await tempDir();
        homes.push(home);
        await plantWith(method, home.path, all);
        const sent = await recall(home.path);
        expect(`${method}: ${sent.includes("RTOK-benign-7")}`).toBe(`${method}: true`);
        v.push(...verdicts(method, sent));
      }
    } finally {
      for (const h of homes) await h[Symbol.asyncDispose]();
    }
    settle(memoryIds(), v);
  }, 120_000);

  if (CONTROLS)
    test("controls: no widening of the user's lets a caught plant in (CHATCLI_THREATSCAN=off does not reach injection), so the control is a plain fact: each way of planting reaches run 2", async () => {
      const v: Verdict[] = [];
      for (const method of MEMORY_METHODS) {
        await using home = await tempDir();
        await plantWith(method, home.path, [BENIGN]);
        const sent = await recall(home.path, { CHATCLI_THREATSCAN: "off" });
        v.push({
          id: `control.memory.plain-fact.${method}`,
          broken: sent.includes("RTOK-benign-7"),
        });
      }
      settleControls(v);
    }, 60_000);
});
