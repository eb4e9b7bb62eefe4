import { expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatError, toChatcliError } from "../../../lib/core/errors.ts";
import { run, tempDir } from "../../support/ctx.ts";
import { startMockLlm } from "../../support/mock-llm.ts";

test("a memory store that cannot be written after the answer: a warning, the run still succeeds", async () => {
  await using llm = await startMockLlm();
  await using home = await tempDir();
  const memory = join(home.path, ".chatcli", "memory");
  await mkdir(memory, { recursive: true });
  await writeFile(join(memory, "pending"), "a file where the queue directory should be");
  // The answer, then every extraction attempt fails, so the segment must be queued — and cannot be.
  llm.push({ text: "the answer" });
  for (let i = 0; i < 6; i++) llm.push({ error: { status: 500, message: "down" } });
  const r = await run(["ask", "--memory", "write", "--json", "hi"], {
    env: { HOME: home.path, ...llm.env("openai"), CHATCLI_MAX_RETRIES: "0" },
    cwd: home.path,
  });
  const envelope = JSON.parse(r.out);
  expect(r.code).toBe(0);
  expect(envelope.status).not.toBe("error");
  expect(envelope.result).toBe("the answer");
  expect(envelope.warnings).toEqual([
    {
      code: "memory_failed",
      message: expect.stringContaining(`memory: facts from this run not saved: EEXIST`),
    },
  ]);
  expect(r.err).toContain(`chatcli: warning: memory: facts from this run not saved: `);
  expect(r.err).toContain(join(memory, "pending"));
});

test("mkdir over a file: the hint says a file is in the way", () => {
  const error = Object.assign(new Error("EEXIST: file already exists, mkdir '/h/m/pending'"), {
    code: "EEXIST",
    syscall: "mkdir",
    path: "/h/m/pending",
  });
  expect(formatError(toChatcliError(error))).toBe(
    "chatcli: EEXIST: file already exists, mkdir '/h/m/pending'\n" +
      "hint: a file stands where a directory is expected: move it aside\n",
  );
});

test("an unreadable memory store before the answer: a memory_failed warning, the answer, exit 0", async () => {
  await using home = await tempDir();
  const profile = join(home.path, ".chatcli", "memory", "user_profile.json");
  await mkdir(profile, { recursive: true }); // a directory where a JSON file should be
  const r = await run(["ask", "-m", "mock:echo", "--json", "hi"], {
    env: { HOME: home.path },
    cwd: home.path,
  });
  expect(r.code).toBe(0);
  const envelope = JSON.parse(r.out);
  expect(envelope.result).toContain('"content":"hi"');
  expect(envelope.warnings).toEqual([
    {
      code: "memory_failed",
      message: `memory: not loaded: EISDIR: illegal operation on a directory, read '${profile}'`,
    },
  ]);
  expect(r.err).toBe(
    `chatcli: warning: memory: not loaded: EISDIR: illegal operation on a directory, read '${profile}'\n`,
  );
});
