/**
 * Parallel CI jobs sharing one HOME (self-hosted runners, `xargs -P`): each agent run keeps its own
 * session, whatever second it started in (built binary, mock:echo).
 */
import { beforeAll, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

test("six agent runs at once: six distinct session_ids, each file holding its own task", async () => {
  await using home = await tempDir();
  const runs = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      runChatcli(["agent", "-m", "mock:echo", `task number ${i}`, "--json"], {
        env: baseEnv(home.path),
        cwd: home.path,
      }),
    ),
  );
  const ids = runs.map((r) => {
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).session_id as string;
  });
  expect(new Set(ids).size).toBe(6);
  for (const [i, id] of ids.entries()) {
    const file = await readFile(join(home.path, ".chatcli", "sessions", `${id}.json`), "utf8");
    expect(file).toContain(`task number ${i}`);
    for (const [j] of ids.entries()) if (j !== i) expect(file).not.toContain(`task number ${j}"`);
  }
});
