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
  outbound: true,
};

test("an MCP tool is closed in read-only and edit without an allow rule, open with one, open in auto", () => {
  for (const mode of ["read-only", "edit"] as const) {
    const d = decide(policy(mode), mcp);
    expect(d.verdict).toBe("ask");
    expect(d.reason).toContain("outbound channel (MCP server gh)");
    expect(d.suggestion).toBe("--allow-tool 'mcp__gh__list_issues' (or 'mcp__gh__*')");
    expect(decide(policy(mode, ["mcp__gh__list_issues"]), mcp).verdict).toBe("allow");
    expect(decide(policy(mode, ["mcp__gh__*"]), mcp).verdict).toBe("allow");
    expect(decide(policy(mode, ["mcp__other__*"]), mcp).verdict).toBe("ask");
  }
  expect(decide(policy("auto"), mcp).verdict).toBe("allow");
  expect(decide(policy("auto", [], ["mcp__gh__*"]), mcp).verdict).toBe("deny");
  // the same kind without the flag (web_fetch today) is unchanged
  expect(decide(policy("read-only"), { ...mcp, outbound: undefined }).verdict).toBe("allow");
});
