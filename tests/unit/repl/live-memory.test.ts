import { describe, expect, test } from "bun:test";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { createReplMemory } from "../../../lib/repl/live-memory.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";

const turn: ChatMessage[] = [
  { role: "user", content: "hi" },
  { role: "assistant", content: "hello" },
];

describe("REPL memory: cron-style compaction in long sessions", () => {
  test("a turn checks whether compaction is due (then at most every 10 minutes)", async () => {
    await using home = await tempDir();
    const clock = { now: new Date("2026-08-02T12:00:00Z").getTime() };
    const env = { CHATCLI_HOME: home.path };
    const ctx = { ...testCtx({ env, cwd: home.path, now: () => new Date(clock.now) }) };
    // The detached `chatcli memory compact --if-due` is replaced by a no-op program.
    const selfArgv = ["/bin/true"];
    const mem = createReplMemory({
      ctx: { ...ctx, selfArgv },
      env,
      workspace: home.path,
      command: async () => "",
    });
    const state = join(home.path, "memory", "chatcli_memory_state.json");
    mem.nudge(turn);
    await mem.stop();
    expect(JSON.parse(await readFile(state, "utf8")).last_compaction_check).toBe(
      "2026-08-02T12:00:00Z",
    );
    // Within 10 minutes no check at all (not even the state file is read or written).
    await rm(state);
    clock.now += 9 * 60_000;
    mem.nudge(turn);
    await mem.stop();
    expect(await Bun.file(state).exists()).toBe(false);
    clock.now += 2 * 60_000;
    mem.nudge(turn);
    await mem.stop();
    expect(JSON.parse(await readFile(state, "utf8")).last_compaction_check).toBe(
      "2026-08-02T12:11:00Z",
    );
  });
});
