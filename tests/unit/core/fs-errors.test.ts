import { expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatError, toChatcliError } from "../../../lib/core/errors.ts";
import { run, tempDir } from "../../support/ctx.ts";

test("an errno error without a path gets the path and a hint; other errors are untouched", () => {
  const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
    path: "/h/.chatcli/sessions/s1.json",
  });
  expect(formatError(toChatcliError(full))).toBe(
    "chatcli: ENOSPC: no space left on device, write '/h/.chatcli/sessions/s1.json'\n" +
      "hint: the disk is full: free some space and retry (files are replaced atomically: nothing was half-written)\n",
  );
  const plain = toChatcliError(new Error("boom"));
  expect(formatError(plain)).toBe("chatcli: boom\n");
});

test("a session file replaced by a directory: one line naming it, a hint, exit 1, no stack", async () => {
  await using home = await tempDir();
  const session = join(home.path, ".chatcli", "sessions", "s1.json");
  await mkdir(session, { recursive: true });
  const r = await run(["ask", "-m", "mock:echo", "--session", "s1", "hi"], {
    env: { HOME: home.path },
  });
  expect(r.code).toBe(1);
  expect(r.out).toBe("");
  expect(r.err).toBe(
    `chatcli: EISDIR: illegal operation on a directory, read '${session}'\n` +
      "hint: a directory stands where a file is expected: move it aside\n",
  );
});

test("~/.chatcli that is a file: the --json envelope carries the path and the hint", async () => {
  await using home = await tempDir();
  await writeFile(join(home.path, ".chatcli"), "not a directory");
  const r = await run(["ask", "-m", "mock:echo", "--session", "s1", "--json", "hi"], {
    env: { HOME: home.path },
  });
  expect(r.code).toBe(1);
  const envelope = JSON.parse(r.out);
  expect(envelope.terminal_reason).toBe("internal_error");
  expect(envelope.error.message).toContain(join(home.path, ".chatcli"));
  expect(envelope.error.hint).toBe("a file stands where a directory is expected: move it aside");
  expect(await readFile(join(home.path, ".chatcli"), "utf8")).toBe("not a directory");
  expect(r.err.split("\n").filter(Boolean)).toHaveLength(2);
});
