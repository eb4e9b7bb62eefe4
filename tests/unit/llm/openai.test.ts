import { describe, expect, test } from "bun:test";
import { complete } from "../../../lib/llm/complete.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { collect, mockRef, provider, request } from "./_helpers.ts";

describe("openai provider against the mock server", () => {
  test("streams text, then usage and done", async () => {
    await using llm = await startMockLlm();
    llm.push({ text: "Hello there, friend" });
    const p = await provider(mockRef("openai", llm.url));
    const events = await collect(p.stream(request(), new AbortController().signal));
    const text = events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
    expect(text).toBe("Hello there, friend");
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(events.at(-1)).toEqual({ type: "done", stop: "end" });
    expect(events.at(-2)?.type).toBe("usage");
    expect(llm.requests[0]?.path).toBe("/v1/chat/completions");
    expect(llm.requests[0]?.headers["authorization"]).toBe("Bearer sk-test");
  });
});
