import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  circles,
  folderGraph,
  type Graph,
  importGraph,
  inversions,
} from "../support/import-graph.ts";

const ROOT = resolve(import.meta.dir, "../..");

async function sources(dir: string): Promise<string[]> {
  const glob = new Bun.Glob("**/*.ts");
  const out: string[] = [];
  for await (const f of glob.scan({ cwd: join(ROOT, dir) })) out.push(join(dir, f));
  return out;
}

test("lib/ never imports commands/ and lib/core imports nothing else of lib", async () => {
  const offenders: string[] = [];
  for (const file of await sources("lib")) {
    const text = await readFile(join(ROOT, file), "utf8");
    if (/from ["'](\.\.\/)+commands\//.test(text)) offenders.push(file);
    if (file.startsWith("lib/core/") && /from ["']\.\.\/(?!core\/)[a-z]+\//.test(text))
      offenders.push(file);
  }
  expect(offenders).toEqual([]);
});

test("only lib/llm/providers/ imports the SDKs", async () => {
  const offenders: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      if (file.startsWith("lib/llm/providers/")) continue;
      const text = await readFile(join(ROOT, file), "utf8");
      if (
        /from ["'](openai|@anthropic-ai\/(?:sdk|bedrock-sdk)|@google\/genai|@aws-sdk\/[a-z-]+)(\/[^"']*)?["']/.test(
          text,
        )
      )
        offenders.push(file);
    }
  }
  expect(offenders).toEqual([]);
});

/** Static value imports of a file (type-only imports are erased at build time), resolved. */
function staticImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^import (?!type )[^;]*?from\s*["']([^"']+)["']/gms)) {
    const spec = m[1] as string;
    out.push(spec.startsWith(".") ? join(file, "..", spec) : spec);
  }
  return out;
}

test("the MCP SDK is imported only in lib/extensions/mcp/, and only by modules loaded on demand", async () => {
  const texts = new Map<string, string>();
  for (const dir of ["lib", "commands"])
    for (const file of await sources(dir))
      texts.set(file, await readFile(join(ROOT, file), "utf8"));
  const offenders: string[] = [];
  for (const [file, text] of texts)
    if (
      /["']@modelcontextprotocol\/sdk(\/[^"']*)?["']/.test(text) &&
      !file.startsWith("lib/extensions/mcp/")
    )
      offenders.push(file);
  expect(offenders).toEqual([]);
  // every module that loads the SDK when it is itself loaded, following static imports backwards
  const heavy = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [file, text] of texts) {
      if (heavy.has(file)) continue;
      const deps = staticImports(file, text);
      if (deps.some((d) => d.startsWith("@modelcontextprotocol/sdk") || heavy.has(d))) {
        heavy.add(file);
        grew = true;
      }
    }
  }
  expect(heavy.has("lib/extensions/mcp/connect.ts")).toBe(true); // not vacuous
  // the run's entry points reach the SDK only through `await import()`
  for (const light of ["lib/extensions/open.ts", "lib/extensions/mcp/manager.ts"])
    expect(heavy.has(light)).toBe(false);
  expect([...heavy].filter((f) => !f.startsWith("lib/extensions/mcp/"))).toEqual([]);
});

test("no source file is over 500 lines", async () => {
  const big: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      const lines = (await readFile(join(ROOT, file), "utf8")).split("\n").length;
      if (lines > 500) big.push(`${file} (${lines})`);
    }
  }
  expect(big).toEqual([]);
});

test("process is touched only by main.ts", async () => {
  const offenders: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      const text = await readFile(join(ROOT, file), "utf8");
      if (/\bprocess\.(env|argv|exit|stdout|stderr|stdin|cwd)\b/.test(text)) offenders.push(file);
    }
  }
  expect(offenders).toEqual([]);
});

describe("the layers of ARCHITECTURE.md", () => {
  const graph = importGraph(ROOT);

  test("no import runs back up a layer (main → commands → repl → run → agent → … → core)", () => {
    expect(inversions(graph)).toEqual([]);
  });

  test("no folder-level circle", () => {
    expect(circles(folderGraph(graph))).toEqual([]);
  });

  test("at most one file-level circle: the completion command walks the tree that loads it", () => {
    // commands/program.ts loads each command lazily; `chatcli completion` needs the whole tree.
    expect(circles(graph)).toEqual([["commands/completion.ts", "commands/program.ts"]]);
  });

  test("the checks fail on a graph that breaks them", () => {
    const bad: Graph = new Map([
      ["lib/core/a.ts", ["lib/llm/b.ts"]],
      ["lib/llm/b.ts", ["lib/core/a.ts"]],
      ["lib/agent/c.ts", ["lib/run/d.ts"]],
      ["lib/run/d.ts", ["lib/agent/c.ts"]],
      ["lib/nowhere/e.ts", []],
      ["lib/policy/f.ts", ["lib/nowhere/e.ts", "lib/sandbox/g.ts"]],
    ]);
    expect(inversions(bad)).toEqual([
      "lib/core/a.ts -> lib/llm/b.ts",
      "lib/agent/c.ts -> lib/run/d.ts",
      "lib/policy/f.ts -> lib/nowhere/e.ts",
      "lib/policy/f.ts -> lib/sandbox/g.ts",
    ]);
    expect(circles(bad)).toHaveLength(2);
    expect(circles(folderGraph(bad))).toHaveLength(2);
    // the real graph with one upward import added fails too
    const inverted: Graph = new Map(graph);
    inverted.set("lib/llm/models.ts", [
      ...(graph.get("lib/llm/models.ts") ?? []),
      "lib/history/tokens.ts",
    ]);
    expect(inversions(inverted)).toEqual(["lib/llm/models.ts -> lib/history/tokens.ts"]);
  });
});
