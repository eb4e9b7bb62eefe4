import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { searchBackends } from "../../../lib/agent/tools/web-search.ts";
import {
  bindingOf,
  CREDENTIAL_BINDINGS,
  UNBOUND_ENDPOINT_VARS,
} from "../../../lib/core/credential-bindings.ts";
import { AWS_CREDENTIAL_ENVS, PROVIDER_TABLE } from "../../../lib/llm/provider-table.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const ENDPOINT_LIKE = /^[A-Z][A-Z0-9_]*(URL|ENDPOINT|HOST|URI|API_BASE)[A-Z0-9_]*$/;
const bound = new Set(CREDENTIAL_BINDINGS.flatMap((b) => b.endpoints));

describe("every credential is bound to its endpoints by the table", () => {
  test("each provider of the provider table has its row: its keys and all its endpoints", () => {
    for (const info of PROVIDER_TABLE) {
      const row = bindingOf(info.id);
      if (!row) throw new Error(`provider ${info.id} has no row in CREDENTIAL_BINDINGS`);
      for (const key of info.keyEnvs) expect(row.credentials).toContain(key);
      expect([...row.endpoints].sort()).toEqual([...info.baseUrlEnvs].sort());
    }
    const bedrock = bindingOf("bedrock");
    for (const name of AWS_CREDENTIAL_ENVS) expect(bedrock?.credentials).toContain(name);
  });

  test("each web_search backend's endpoint is bound to its key", () => {
    const env = {
      CHATCLI_SEARXNG_URL: "http://s",
      BRAVE_API_KEY: "b",
      CHATCLI_BRAVE_SEARCH_URL: "http://b",
      TAVILY_API_KEY: "t",
      CHATCLI_TAVILY_URL: "http://t",
    };
    for (const backend of searchBackends(env)) expect(bindingOf(backend.name)).toBeDefined();
    expect(bindingOf("brave")?.endpoints).toContain("CHATCLI_BRAVE_SEARCH_URL");
    expect(bindingOf("tavily")?.endpoints).toContain("CHATCLI_TAVILY_URL");
  });

  test("no source file reads an endpoint-like variable the table does not bind (add a row, or say why it carries no key)", async () => {
    const glob = new Bun.Glob("lib/**/*.ts");
    const unbound: string[] = [];
    let seen = 0;
    for await (const file of glob.scan({ cwd: ROOT })) {
      const text = await readFile(join(ROOT, file), "utf8");
      const names = new Set<string>();
      // reads of the environment anywhere: env["X"], env?.["X"], env.X
      for (const m of text.matchAll(/\benv\??\.?\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g))
        names.add(m[1] as string);
      for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1] as string);
      // and every variable name where requests are made: providers, web tools, extensions
      if (/^lib\/(llm|extensions)\/|^lib\/agent\/tools\/web-/.test(file))
        for (const m of text.matchAll(/["'`]([A-Z][A-Z0-9_]{2,})["'`]/g)) names.add(m[1] as string);
      for (const name of names) {
        if (!ENDPOINT_LIKE.test(name)) continue;
        seen++;
        if (!bound.has(name) && !(name in UNBOUND_ENDPOINT_VARS)) unbound.push(`${file}: ${name}`);
      }
    }
    expect(unbound).toEqual([]);
    // the scan is not vacuous: it finds the providers' own variables
    expect(seen).toBeGreaterThan(10);
  });
});
