/**
 * chatcli's own file tools work inside the run's sandbox (a worker with the run's mounts), so what
 * the sandbox keeps read-only or hidden stays so for them too — not only for commands.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

describe("file tools in the sandbox's worker", () => {
  live(
    "edit mode: write_file reaches the workspace but not .chatcli/ (read-only by mount); read-only mode writes only what a rule names",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await mkdir(join(h.ws, ".chatcli"));
      await writeFile(join(h.ws, ".chatcli", "keep.md"), "kept\n");
      llm.push(
        {
          tool_calls: [
            { name: "write_file", arguments: { file: "src/new.ts", content: "export {};\n" } },
            { name: "write_file", arguments: { file: ".chatcli/notes.md", content: "planted\n" } },
          ],
        },
        { text: "done" },
        {
          tool_calls: [
            { name: "write_file", arguments: { file: "REPORT.md", content: "report\n" } },
            { name: "write_file", arguments: { file: "other.md", content: "x\n" } },
          ],
        },
        { text: "done" },
      );
      const edit = await agent(h, ["--permission-mode", "edit"]);
      expect(edit.code).toBe(0);
      expect(await readFile(join(h.ws, "src", "new.ts"), "utf8")).toBe("export {};\n");
      expect(existsSync(join(h.ws, ".chatcli", "notes.md"))).toBe(false);
      expect(sentToProvider(llm)).toContain(".chatcli/notes.md: read-only in this run's sandbox");
      const ro = await agent(h, ["--allow-tool", "write_file(REPORT.md)"]);
      expect(ro.code).toBe(0);
      expect(await readFile(join(h.ws, "REPORT.md"), "utf8")).toBe("report\n");
      expect(existsSync(join(h.ws, "other.md"))).toBe(false);
      // no mount point or worker debris is left in the workspace
      expect(existsSync(join(h.ws, ".chatcli", "notes.md"))).toBe(false);
    },
    60_000,
  );
});
