import { expect, test } from "bun:test";
import {
  catalogOf,
  definitionTokens,
  offeredName,
  searchCatalog,
  searchResultText,
  serverLines,
  toolBudget,
} from "../../../lib/extensions/mcp/catalog.ts";

const tool = (
  name: string,
  description = "",
  inputSchema: Record<string, unknown> = { type: "object" },
) => ({ name, description, inputSchema });

test("names: mcp__server__tool (Claude Code's), cleaned, within 64 characters; Go's mcp_tool alias only when unambiguous", () => {
  expect(offeredName("git hub", "list.issues")).toBe("mcp__git_hub__list_issues");
  const long = offeredName(
    "a-very-long-server-name-indeed",
    "and_an_even_longer_tool_name_that_goes_on_and_on",
  );
  expect(long.length).toBe(64);
  expect(long).not.toBe(
    offeredName(
      "a-very-long-server-name-indeed",
      "and_an_even_longer_tool_name_that_goes_on_and_off",
    ),
  );
  const entries = catalogOf([
    { server: "a", tools: [tool("shared"), tool("only_a")] },
    { server: "b", tools: [tool("shared")] },
  ]);
  expect(entries.map((e) => [e.name, e.alias ?? null])).toEqual([
    ["mcp__a__only_a", "mcp_only_a"],
    ["mcp__a__shared", null],
    ["mcp__b__shared", null],
  ]);
});

test("tool_search ranks name over server over description, takes select:, and says when nothing matches", () => {
  const entries = catalogOf([
    {
      server: "github",
      tools: [
        tool("list_issues", "List issues of a repository"),
        tool("create_pull_request", "Open a PR"),
        tool("search_code", "Search code with a query; issues excluded"),
      ],
    },
    { server: "weather", tools: [tool("forecast", "Weather forecast for a city")] },
  ]);
  expect(searchCatalog(entries, "issues", 5).map((e) => e.tool)).toEqual([
    "list_issues",
    "search_code",
  ]);
  expect(searchCatalog(entries, "weather in Paris", 5).map((e) => e.tool)).toEqual(["forecast"]);
  expect(searchCatalog(entries, "pull request", 5)[0]?.tool).toBe("create_pull_request");
  expect(
    searchCatalog(entries, "select:mcp__github__search_code,forecast", 5).map((e) => e.tool),
  ).toEqual(["search_code", "forecast"]);
  expect(searchCatalog(entries, "the a of", 5)).toEqual([]);
  expect(searchCatalog(entries, "issues", 1)).toHaveLength(1);
  expect(searchResultText("zzz", [])).toContain("No MCP tool matches");
  expect(searchResultText("issues", searchCatalog(entries, "issues", 1))).toContain(
    "- mcp__github__list_issues: List issues of a repository",
  );
});

test("the budget: CHATCLI_MCP_TOOL_BUDGET, default 1,000 tokens of definitions (4 chars a token)", () => {
  expect(toolBudget({})).toBe(1000);
  expect(toolBudget({ CHATCLI_MCP_TOOL_BUDGET: "0" })).toBe(0);
  expect(toolBudget({ CHATCLI_MCP_TOOL_BUDGET: "5000" })).toBe(5000);
  const entries = catalogOf([{ server: "s", tools: [tool("t", "x".repeat(396))] }]);
  const chars = JSON.stringify({
    name: "mcp__s__t",
    description: "x".repeat(396),
    input_schema: { type: "object" },
  }).length;
  expect(definitionTokens(entries)).toBe(Math.ceil(chars / 4));
});

test("one line per server for the cached prefix: its description or its first tool names", () => {
  const text = serverLines([
    { server: "gh", tools: 40, hint: "GitHub: issues, PRs and code search", names: [] },
    { server: "db", tools: 8, names: ["a", "b", "c", "d", "e", "f", "g", "h"] },
  ]);
  expect(text).toContain("- gh (40 tools): GitHub: issues, PRs and code search");
  expect(text).toContain("- db (8 tools): a, b, c, d, e, f, …");
  expect(text).toContain("tool_search");
});
