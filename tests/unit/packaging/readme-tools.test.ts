/** The README's table of tool argument names is what the tools accept (users script mock:script with it). */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { delegateTools } from "../../../lib/agent/tools/delegate.ts";
import { toolsFor } from "../../../lib/agent/tools/registry.ts";

const README = readFileSync(join(resolve(import.meta.dir, "../../.."), "README.md"), "utf8");

test("every tool has a README row naming each argument, the required ones in bold", () => {
  // with the optional tools on: a search backend, and AGENTS.md roles (delegate's `role`)
  const role = { name: "r", instructions: "", summary: "" };
  const deps = { parent: undefined as never, tools: [], roles: [role], records: [] };
  const optional = delegateTools(deps).slice(0, 1);
  for (const tool of [
    ...toolsFor("agent", { env: { CHATCLI_SEARXNG_URL: "http://s" } }),
    ...optional,
  ]) {
    const schema = tool.input_schema as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    const row = README.split("\n").find((l) => l.startsWith(`| \`${tool.name}\` |`));
    expect({ tool: tool.name, row: row !== undefined }).toEqual({ tool: tool.name, row: true });
    const named = [...(row as string).matchAll(/(\*\*)?`([a-z_]+)`\1?/g)]
      .slice(1)
      .map((m) => (m[1] ? `*${m[2]}` : m[2]));
    const required = new Set(schema.required ?? []);
    const want = Object.keys(schema.properties ?? {}).map((k) => (required.has(k) ? `*${k}` : k));
    for (const arg of want)
      expect({ tool: tool.name, arg, listed: named.includes(arg) }).toEqual({
        tool: tool.name,
        arg,
        listed: true,
      });
  }
});
