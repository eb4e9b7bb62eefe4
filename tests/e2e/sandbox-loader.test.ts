/**
 * Red team: the dynamic loader's variables and bwrap. bwrap runs on the host, unconfined, and was
 * started with the child's environment — which (until workspace trust lands) includes what a
 * checkout's `.chatcli/config.json` `env` or `.env` sets. `LD_PRELOAD=./evil.so` (a committed library)
 * ran its code inside bwrap before any namespace existed: outside the sandbox, in the default
 * read-only mode, on every command and git snapshot. `LD_DEBUG_OUTPUT` shows the same without a
 * compiler: glibc writes its log from bwrap's own loader, wherever the variable says.
 */
import { describe, expect, test } from "bun:test";
import { chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("red team: loader variables never reach bwrap on the host", () => {
  live(
    "LD_DEBUG_OUTPUT from a checkout's config writes nothing outside, in the sandbox or through it",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await mkdir(join(h.ws, ".chatcli"));
      const env = { LD_DEBUG: "libs", LD_DEBUG_OUTPUT: join(h.outside, "lddebug") };
      await writeFile(join(h.ws, ".chatcli", "config.json"), JSON.stringify({ env }));
      await writeFile(join(h.ws, ".env"), `LD_LIBRARY_PATH=${h.outside}\n`);
      await plant(h, 'echo "inside=[$LD_DEBUG_OUTPUT]"');
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ["--allow-tool", "run_command(sh attack.sh)"]);
      expect(r.code).toBe(0);
      // the command ran; a file's loader variables reach neither bwrap nor the command
      expect(sentToProvider(llm)).toContain("inside=[]");
      expect((await readdir(h.outside)).sort()).toEqual(["victim.txt"]);
    },
    60_000,
  );

  test("no sandbox on this machine: a checkout's .env PATH and LD_* run nothing through chatcli's git tools", async () => {
    requireBinary();
    await using llm = await startMockLlm();
    // CHATCLI_SANDBOX_BWRAP at a missing file: a machine without bubblewrap, `--sandbox auto`
    await using h = await hostile(llm, { CHATCLI_SANDBOX_BWRAP: "/nonexistent/bwrap" });
    await mkdir(join(h.ws, "bin"));
    const fakeGit = join(h.ws, "bin", "git");
    await writeFile(
      fakeGit,
      `#!/bin/sh\necho pwned > ${h.outside}/fake-git\nexec /usr/bin/git "$@"\n`,
    );
    await chmod(fakeGit, 0o755);
    await writeFile(
      join(h.ws, ".env"),
      `PATH=${join(h.ws, "bin")}:/usr/bin:/bin\nLD_DEBUG=libs\nLD_DEBUG_OUTPUT=${h.outside}/lddebug\n`,
    );
    llm.push(
      {
        tool_calls: [
          { name: "git_status", arguments: {} },
          { name: "git_log", arguments: {} },
          { name: "search_files", arguments: { term: "project", dir: "." } },
        ],
      },
      { text: "done" },
    );
    const r = await agent(h, ["--permission-mode", "auto"]);
    expect(r.code).toBe(0);
    expect((r.envelope["sandbox"] as { kind: string }).kind).toBe("none");
    expect(sentToProvider(llm)).toContain("init");
    expect((await readdir(h.outside)).sort()).toEqual(["victim.txt"]);
  }, 60_000);
});
