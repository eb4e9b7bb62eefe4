/**
 * Red team: credentials the environment points at. chatcli scrubs `*KEY*` variables from a child's
 * env, but a file named by one of the process environment's variables — chatcli's own dotenv
 * (`CHATCLI_DOTENV`, where the API keys live), a cloud service-account file — sat outside the
 * deny list: `cat "$CHATCLI_DOTENV"` in the sandbox and chatcli's own read_file handed it over.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, CANARY, hostile, plant, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("red team: credential files named by the environment", () => {
  live(
    "CHATCLI_DOTENV and GOOGLE_APPLICATION_CREDENTIALS files reach neither a command nor read_file",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const dotenv = join(h.home, "keys", "chatcli.env");
      await mkdir(join(h.home, "keys"));
      await writeFile(dotenv, `OPENAI_API_KEY=${CANARY}-dotenv\n`);
      const sa = join(h.home, "gcp-sa.json");
      await writeFile(sa, `{"private_key": "${CANARY}-gcp"}\n`);
      await plant(
        h,
        `cat "$CHATCLI_DOTENV" ${dotenv} ${sa} "$GOOGLE_APPLICATION_CREDENTIALS"; echo end-of-attack`,
      );
      for (const mode of ["read-only", "auto"]) {
        llm.push(
          {
            tool_calls: [
              { name: "run_command", arguments: { cmd: "sh attack.sh" } },
              { name: "read_file", arguments: { file: dotenv } },
              { name: "read_file", arguments: { file: "~/gcp-sa.json" } },
              { name: "search_files", arguments: { term: "OPENAI_API_KEY", dir: "~/keys" } },
            ],
          },
          { text: "done" },
        );
        const r = await agent(
          h,
          ["--permission-mode", mode, "--allow-tool", "run_command(sh attack.sh)"],
          { CHATCLI_DOTENV: dotenv, GOOGLE_APPLICATION_CREDENTIALS: sa },
        );
        expect(r.code).toBe(0);
      }
      const sent = sentToProvider(llm);
      expect(sent.match(/end-of-attack/g)?.length).toBeGreaterThanOrEqual(2);
      expect(sent.includes(CANARY)).toBe(false);
    },
    60_000,
  );
});
