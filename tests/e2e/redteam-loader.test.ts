/**
 * Red team: the dynamic loader's variables and bwrap. bwrap runs on the host, unconfined, and was
 * started with the child's environment — which (until workspace trust lands) includes what a
 * checkout's `.chatcli/config.json` `env` or `.env` sets. `LD_PRELOAD=./evil.so` (a committed library)
 * ran its code inside bwrap before any namespace existed: outside the sandbox, in the default
 * read-only mode, on every command and git snapshot. `LD_DEBUG_OUTPUT` shows the same without a
 * compiler: glibc writes its log from bwrap's own loader, wherever the variable says.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("red team: loader variables never reach bwrap on the host", () => {
  live(
    "LD_DEBUG_OUTPUT from a checkout's config writes nothing outside; the command still gets the variables",
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
      // the command ran, with the variable (inside the sandbox it can write nothing outside)
      expect(sentToProvider(llm)).toContain(`inside=[${env.LD_DEBUG_OUTPUT}]`);
      expect((await readdir(h.outside)).sort()).toEqual(["victim.txt"]);
    },
    60_000,
  );
});
