import { expect, test } from "bun:test";
import { decide, type PermissionPolicy } from "../../../lib/policy/permissions.ts";

const policy = (
  mode: PermissionPolicy["mode"],
  allow: string[] = [],
  deny: string[] = [],
): PermissionPolicy => ({
  mode,
  allow,
  deny,
  onAsk: "deny",
  workspaceRoot: "/w",
  cwd: "/w",
});
const mcp = {
  tool: "mcp__gh__list_issues",
  kind: "network" as const,
  subject: '{"repo":"x"}',
};

test("an MCP tool is closed in read-only and edit without an allow rule, open with one, open in auto", () => {
  for (const mode of ["read-only", "edit"] as const) {
    const d = decide(policy(mode), mcp);
    expect(d.verdict).toBe("ask");
    expect(d.reason).toContain("mcp__gh__list_issues is an outbound channel");
    expect(d.suggestion).toStartWith(
      "--allow-tool 'mcp__gh__list_issues' (or --allow-tool 'mcp__gh__*')",
    );
    expect(decide(policy(mode, ["mcp__gh__list_issues"]), mcp).verdict).toBe("allow");
    expect(decide(policy(mode, ["mcp__gh__*"]), mcp).verdict).toBe("allow");
    expect(decide(policy(mode, ["mcp__other__*"]), mcp).verdict).toBe("ask");
  }
  expect(decide(policy("auto"), mcp).verdict).toBe("allow");
  expect(decide(policy("auto", [], ["mcp__gh__*"]), mcp).verdict).toBe("deny");
  // web_fetch is the same kind of channel: closed without a rule naming its host
  const fetch = {
    tool: "web_fetch",
    kind: "network" as const,
    subject: "https://x.test/",
    host: "x.test",
  };
  expect(decide(policy("read-only"), fetch).verdict).toBe("ask");
  expect(decide(policy("read-only", ["web_fetch(domain:x.test)"]), fetch).verdict).toBe("allow");
});
