/**
 * The import graph of lib/, commands/ and main.ts, and the two rules ARCHITECTURE.md sets on it:
 * dependencies point down the layer list only, and no circles. Pure functions over a graph, so the
 * architecture test can also prove the rules fail on a graph that breaks them.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * Top to bottom (ARCHITECTURE.md "Layers"). lib/sandbox sits above lib/policy: the sandbox imports
 * the policy's protected paths and its one PermissionMode, and lib/policy depends on lib/core only
 * (issue #21). lib/shell (completion scripts) is a leaf only commands/ uses.
 */
export const LAYERS = [
  "main",
  "commands",
  "repl",
  "run",
  "agent",
  "extensions",
  "output",
  "history",
  "memory",
  "bootstrap",
  "sandbox",
  "policy",
  "llm",
  "shell",
  "core",
] as const;

export type Graph = Map<string, string[]>;

const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\sfrom\s+["'](\.[^"']+)["']/gm;
const DYNAMIC = /import\s*\(\s*["'](\.[^"']+)["']\s*\)/g;

/** Every relative import (static, type-only and dynamic) of every source file, by path from root. */
export function importGraph(root: string): Graph {
  const files = [...new Bun.Glob("{lib,commands}/**/*.ts").scanSync({ cwd: root }), "main.ts"];
  const graph: Graph = new Map();
  for (const file of files.sort()) {
    const text = readFileSync(join(root, file), "utf8");
    const targets = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)]
      .map((m) => relative(root, resolve(root, dirname(file), m[1] as string)))
      .filter((t) => t.endsWith(".ts"));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The layer a file belongs to: main, commands, or lib/<folder>. */
export function layerOf(file: string): string {
  if (file === "main.ts") return "main";
  if (file.startsWith("commands/")) return "commands";
  return file.split("/")[1] ?? "?";
}

/** Imports that run up (or sideways into an unknown folder): `from -> to`. */
export function inversions(graph: Graph, layers: readonly string[] = LAYERS): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = layers.indexOf(layerOf(from));
      const b = layers.indexOf(layerOf(to));
      if (layerOf(from) === layerOf(to)) continue;
      if (a < 0 || b < 0 || b < a) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/** Strongly connected components with more than one node (circles), each sorted. */
export function circles(graph: Graph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const ids = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    ids.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!ids.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, ids.get(w) as number));
    }
    if (low.get(v) !== ids.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!ids.has(v)) visit(v);
  return found;
}

/** The folder-level graph (one node per layer). */
export function folderGraph(graph: Graph): Graph {
  const folders: Graph = new Map();
  for (const [from, targets] of graph) {
    const a = layerOf(from);
    const set = new Set(folders.get(a) ?? []);
    for (const to of targets) if (layerOf(to) !== a) set.add(layerOf(to));
    folders.set(a, [...set]);
  }
  return folders;
}
