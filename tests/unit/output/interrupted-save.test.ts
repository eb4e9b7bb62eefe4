import { expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../../../commands/cli.ts";
import { tempDir, testCtx } from "../../support/ctx.ts";
import { startMockLlm } from "../../support/mock-llm.ts";

test("SIGINT with --session when the session cannot be written: a warning says so, exit 130", async () => {
  await using llm = await startMockLlm();
  await using home = await tempDir();
  llm.push({ text: "partial", stall: true });
  const ctx = testCtx({ env: { HOME: home.path, ...llm.env("openai") }, cwd: home.path });
  const running = runCli(["ask", "--session", "cut", "--json", "what is up"], ctx);
  await llm.waitForHits(1);
  // The session file's place is taken by a directory before the interrupted save.
  await mkdir(join(home.path, ".chatcli", "sessions", "cut.json", "x"), { recursive: true });
  ctx.abort("SIGINT");
  expect(await running).toBe(130);
  const envelope = JSON.parse(ctx.out());
  expect(envelope.terminal_reason).toBe("cancelled");
  expect(envelope.warnings).toEqual([expect.objectContaining({ code: "session_not_saved" })]);
  expect(ctx.err()).toContain("chatcli: warning: the interrupted session was not saved: ");
  expect(ctx.err()).toContain(join(home.path, ".chatcli", "sessions", "cut.json"));
});
