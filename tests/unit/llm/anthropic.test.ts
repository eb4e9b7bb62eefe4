import { describe, expect, test } from "bun:test";
import { complete } from "../../../lib/llm/complete.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { mockRef, provider, request } from "./_helpers.ts";

describe("anthropic provider against the mock server", () => {
  test("streams text and tool calls with arguments split across deltas", async () => {
    await using llm = await startMockLlm();
    llm.push({
      text: "Let me look.",
      tool_calls: [
        { id: "toolu_1", name: "read_file", arguments: { path: "src/a.ts", lines: [1, 20] } },
      ],
    });
    const p = await provider(mockRef("anthropic", llm.url));
    const result = await complete(p, request(), new AbortController().signal);
    expect(result.text).toBe("Let me look.");
    expect(result.toolCalls).toEqual([
      {
        id: "toolu_1",
        type: "function",
        name: "read_file",
        arguments: { path: "src/a.ts", lines: [1, 20] },
      },
    ]);
    expect(result.stop).toBe("tool_use");
    expect(llm.requests[0]?.path).toBe("/v1/messages");
  });
});
