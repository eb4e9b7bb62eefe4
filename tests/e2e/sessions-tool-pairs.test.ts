import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

type Json = Record<string, unknown>;

const goCall = (id: string) => ({
  id,
  type: "function",
  name: "read_file",
  arguments: { file: "main.go" },
});

/** issue 10: a broken call/result pair found on load is repaired (warning history_repaired). */
describe("tool call/result pairs of saved sessions (spawned binary, mock server)", () => {
  for (const [label, doc] of [
    [
      "a v2 session",
      {
        version: 2,
        title: "broken",
        chat_history: [
          { role: "user", content: "read main.go" },
          { role: "assistant", content: "", tool_calls: [goCall("toolu_01"), goCall("toolu_02")] },
          { role: "tool", tool_call_id: "toolu_01", content: "package main" },
          { role: "assistant", content: "It is the entry point." },
          { role: "tool", tool_call_id: "toolu_99", content: "a result without its call" },
        ],
        agent_history: null,
        coder_history: null,
      },
    ],
    [
      "a Go legacy session with agent_history",
      {
        chat_history: [{ role: "user", content: "read main.go" }],
        agent_history: [
          { role: "system", content: "[ACTIVE MODE: /agent]" },
          { role: "assistant", content: "", tool_calls: [goCall("toolu_01"), goCall("toolu_02")] },
          { role: "tool", tool_call_id: "toolu_01", content: "package main" },
          { role: "assistant", content: "It is the entry point." },
          { role: "tool", tool_call_id: "toolu_99", content: "a result without its call" },
        ],
        coder_history: [],
      },
    ],
  ] as const) {
    test(`${label}: repaired on load with a warning; the request and the saved file are valid`, async () => {
      requireBinary();
      await using home = await tempDir();
      await using llm = await startMockLlm({ defaultText: "Sure." });
      const sessions = join(home.path, ".chatcli", "sessions");
      await mkdir(sessions, { recursive: true });
      await writeFile(join(sessions, "broken.json"), JSON.stringify(doc));
      const r = await runChatcli(["ask", "and then?", "--session", "broken", "--json"], {
        env: baseEnv(home.path, llm.env("openai")),
        cwd: home.path,
      });
      expect(r.code).toBe(0);
      const env = JSON.parse(r.stdout) as { warnings: Array<{ code: string; message: string }> };
      expect(env.warnings.map((w) => w.code)).toEqual(["history_repaired"]);
      expect(env.warnings[0]?.message).toContain("1 tool call(s) without a result");
      expect(env.warnings[0]?.message).toContain("1 tool result(s) without their call");
      // OpenAI wire format: the assistant's two calls, then one tool message per call id
      const sent = (llm.requests[0]?.body as Json | undefined)?.["messages"] as Json[];
      const assistant = sent.findIndex((m) => Array.isArray(m["tool_calls"]));
      expect(
        sent.slice(assistant + 1, assistant + 3).map((m) => [m["role"], m["tool_call_id"]]),
      ).toEqual([
        ["tool", "toolu_01"],
        ["tool", "toolu_02"],
      ]);
      expect(JSON.stringify(sent)).not.toContain("toolu_99");
      const saved = await readFile(join(sessions, "broken.json"), "utf8");
      expect(saved).not.toContain("toolu_99");
      expect(saved).toContain("no result was recorded for this tool call");
    });
  }
});
