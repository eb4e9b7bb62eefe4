import { expect, test } from "bun:test";
import { addSubagentTotals, subagentPolicy, subagentTools } from "../../../lib/agent/subagent.ts";
import { delegationEnabled } from "../../../lib/agent/tools/delegate.ts";
import { toolsFor } from "../../../lib/agent/tools/registry.ts";
import { emptyUsage } from "../../../lib/llm/types.ts";
import type { PermissionPolicy } from "../../../lib/policy/permissions.ts";

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

test("a sub-agent's tools are never wider than the parent's: role ∩ call ∩ parent, read_only drops edits", () => {
  const parent = toolsFor("coder", { memory: false });
  const role = {
    name: "r",
    instructions: "",
    summary: "",
    tools: ["read_file", "write_file", "web_fetch"],
  };
  // web_fetch is not a coder tool: the role cannot add it
  const narrowed = subagentTools(parent, { role });
  expect(names(narrowed.tools)).toEqual(["read_file", "write_file"]);
  expect(narrowed.unknown).toEqual(["web_fetch"]);
  expect(
    names(subagentTools(parent, { role, tools: ["write_file", "run_command"] }).tools),
  ).toEqual(["write_file"]);
  const ro = subagentTools(parent, { readOnly: true }).tools;
  expect(ro.some((t) => t.kind === "edit")).toBe(false);
  expect(names(ro)).toContain("run_command");
  expect(names(subagentTools(parent, { role: { ...role, readOnly: true } }).tools)).toEqual([
    "read_file",
  ]);
});

test("read_only narrows the policy (read-only mode, no allow rules); otherwise it is the parent's, unchanged", () => {
  const policy: PermissionPolicy = {
    mode: "auto",
    allow: ["write_file(src/**)"],
    deny: ["run_command(curl*)"],
    onAsk: "deny",
    workspaceRoot: "/w",
    cwd: "/w",
  };
  expect(subagentPolicy(policy, false)).toBe(policy);
  expect(subagentPolicy(policy, true)).toEqual({ ...policy, mode: "read-only", allow: [] });
});

test("sub-agent usage and cost add into the parent's; an unpriced one makes the total unknown", () => {
  const u = { ...emptyUsage(), input_tokens: 10, output_tokens: 2 };
  const rec = (cost: number | null) =>
    ({ usage: u, cost_usd: cost }) as unknown as Parameters<typeof addSubagentTotals>[2][number];
  const t = addSubagentTotals(u, 0.5, [rec(0.25), rec(0.25)]);
  expect(t.usage.input_tokens).toBe(30);
  expect(t.cost).toBe(1);
  expect(addSubagentTotals(u, 0.5, [rec(null)]).cost).toBeNull();
});

test("delegate is offered with roles or CHATCLI_AGENT_DELEGATE=true; false turns it off", () => {
  expect(delegationEnabled({}, [])).toBe(false);
  expect(delegationEnabled({}, [{}])).toBe(true);
  expect(delegationEnabled({ CHATCLI_AGENT_DELEGATE: "true" }, [])).toBe(true);
  expect(delegationEnabled({ CHATCLI_AGENT_DELEGATE: "false" }, [{}])).toBe(false);
});
