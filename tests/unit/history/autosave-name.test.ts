import { expect, test } from "bun:test";
import { join } from "node:path";
import { openSession } from "../../../lib/history/session.ts";
import { tempDir } from "../../support/ctx.ts";

test("runs opened in the same second get distinct autosave names, each saved to its own file", async () => {
  await using dir = await tempDir();
  const fixed = new Date("2026-11-29T23:00:00Z");
  const ctx = {
    env: { CHATCLI_HOME: join(dir.path, ".chatcli") },
    cwd: dir.path,
    now: () => fixed,
  };
  const sessions = await Promise.all(
    Array.from({ length: 5 }, () => openSession(ctx, { workspace: dir.path })),
  );
  const names = sessions.map((s) => s.name);
  expect(new Set(names).size).toBe(5);
  for (const [i, s] of sessions.entries()) {
    s.replaceMessages([{ role: "user", content: `task ${i}` }]);
    await s.save();
  }
  for (const [i, name] of names.entries()) {
    const again = await openSession(ctx, { name: name as string });
    expect(again.messages.at(-1)?.content).toBe(`task ${i}`);
  }
});
