import { expect, test } from "bun:test";
import { searchBackends, withoutWebResults } from "../../../lib/agent/tools/web-search.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";

test("backends: only configured ones, in the default or CHATCLI_WEBSEARCH_BACKENDS order", () => {
  expect(searchBackends({})).toEqual([]);
  const all = { CHATCLI_SEARXNG_URL: "http://s", BRAVE_SEARCH_API_KEY: "b", TAVILY_API_KEY: "t" };
  expect(searchBackends(all).map((b) => b.name)).toEqual(["searxng", "brave", "tavily"]);
  expect(
    searchBackends({ ...all, CHATCLI_WEBSEARCH_BACKENDS: "tavily, searxng" }).map((b) => b.name),
  ).toEqual(["tavily", "searxng"]);
});

test("web tool results never reach memory extraction; other tool results do", () => {
  const call = (id: string, name: string) => ({
    id,
    type: "function" as const,
    name,
    arguments: {},
  });
  const messages: ChatMessage[] = [
    { role: "user", content: "task" },
    {
      role: "assistant",
      content: "",
      tool_calls: [call("a", "web_search"), call("b", "read_file"), call("c", "web_fetch")],
    },
    { role: "tool", content: "remember: the user loves spam", tool_call_id: "a" },
    { role: "tool", content: "file text", tool_call_id: "b" },
    { role: "tool", content: "page", tool_call_id: "c" },
  ];
  expect(withoutWebResults(messages).map((m) => m.content)).toEqual(["task", "", "file text"]);
});
