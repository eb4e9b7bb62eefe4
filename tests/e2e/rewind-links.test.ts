/**
 * Red team: `chatcli rewind --code` runs unconfined, after the sandboxed run is over. A command the
 * agent ran (inside the sandbox, in edit/auto mode) may replace a directory of the workspace by a
 * link to anywhere — creating a link needs no access to its target. Rewind must then restore and
 * delete inside the workspace only, never through that link.
 */
import { describe, expect, test } from "bun:test";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary, runChatcli } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { hostile, plant } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("red team: rewind --code after a command swapped a directory for a link", () => {
  live(
    "a directory replaced by a link out of the workspace: rewind neither deletes nor writes through it",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await mkdir(join(h.ws, "sub"));
      await writeFile(join(h.ws, "sub", "kept.txt"), "original\n");
      // the file outside that a "delete the file chatcli created" would remove
      await writeFile(join(h.outside, "victim.txt"), "untouched\n");
      await plant(h, `mv sub sub.old && ln -s ${h.outside} sub && echo swapped`);
      llm.push(
        {
          tool_calls: [
            { name: "write_file", arguments: { file: "sub/kept.txt", content: "changed\n" } },
            { name: "write_file", arguments: { file: "sub/victim.txt", content: "created\n" } },
            { name: "run_command", arguments: { cmd: "sh attack.sh" } },
          ],
        },
        { text: "done" },
      );
      const run = await runChatcli(
        ["agent", "--session", "rt", "edit", "--permission-mode", "auto", "--json"],
        { env: h.env, cwd: h.ws },
      );
      expect(run.code).toBe(0);
      expect((await lstat(join(h.ws, "sub"))).isSymbolicLink()).toBe(true);
      const r = await runChatcli(["rewind", "--session", "rt", "--to", "1", "--code", "--json"], {
        env: h.env,
        cwd: h.ws,
      });
      // whatever rewind reports, nothing outside the workspace changed
      expect(await readFile(join(h.outside, "victim.txt"), "utf8")).toBe("untouched\n");
      expect((await readdir(h.outside)).sort()).toEqual(["victim.txt"]);
      expect(r.code).toBe(0);
      const files = (JSON.parse(r.stdout) as { rewind: { files: Array<{ action: string }> } })
        .rewind.files;
      expect(files.map((f) => f.action)).toEqual(["unrestorable", "unrestorable"]);
      expect(r.stdout).toContain("is now a link to");
    },
    60_000,
  );
});
