import { expect, test } from "bun:test";
import { corePrompt, needsTextTools } from "../../../lib/agent/prompts.ts";
import { offeredTools, toolsFor } from "../../../lib/agent/tools/registry.ts";

const names = (policy: Parameters<typeof offeredTools>[1]) =>
  offeredTools(toolsFor("agent"), policy).map((t) => t.name);
const base = { mode: "read-only" as const, allow: [], deny: [], attended: false };

test("no human to approve a read-only run: the edit tools are not offered", () => {
  const all = toolsFor("agent").map((t) => t.name);
  expect(all).toContain("write_file");
  const ci = names(base);
  expect(ci).not.toContain("write_file");
  expect(ci).not.toContain("patch_file");
  expect(ci).not.toContain("multipatch");
  // what read-only mode can still run stays: reads, read-only commands, the web, memory
  expect(ci).toEqual(all.filter((n) => !["write_file", "patch_file", "multipatch"].includes(n)));
});

test("edit tools stay when they can be allowed: a TTY, an edit mode, or an allow rule naming them", () => {
  expect(names({ ...base, attended: true })).toContain("write_file");
  for (const mode of ["edit", "auto", "bypass"] as const)
    expect(names({ ...base, mode })).toContain("patch_file");
  const ruled = names({ ...base, allow: ["write_file(docs/**)"] });
  expect(ruled).toContain("write_file");
  expect(ruled).not.toContain("patch_file");
  expect(names({ ...base, allow: ["*"] })).toContain("patch_file");
});

test("a bare deny rule removes a tool from the offer; a deny on some arguments does not", () => {
  expect(names({ ...base, mode: "auto", deny: ["web_fetch"] })).not.toContain("web_fetch");
  expect(names({ ...base, mode: "auto", deny: ["run_command(rm *)"] })).toContain("run_command");
});

test("the text tool-call instructions go only where native tool calling may be missing", () => {
  expect(corePrompt("agent").text).toContain("<tool_call");
  expect(corePrompt("agent", { textTools: false }).text).not.toContain("<tool_call");
  expect(needsTextTools("ollama")).toBe(true);
  for (const p of ["openai", "anthropic", "openrouter", "xai", "mock"])
    expect(needsTextTools(p)).toBe(false);
});
