import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../..");
const DOOR = "lib/sandbox/spawn.ts";

/** Every way a TypeScript file under Bun can start a process. */
const SPAWNS = [
  /["'](node:)?child_process["']/,
  /\bBun\s*\.\s*(spawn|spawnSync)\b/,
  /\bBun\s*\.\s*\$/,
  /from\s+["']bun["']/,
  /\bprocess\s*\.\s*(binding|dlopen)\b/,
];

test("one door: no file of lib/ but lib/sandbox/spawn.ts starts a process", async () => {
  const offenders: string[] = [];
  for await (const f of new Bun.Glob("**/*.ts").scan({ cwd: join(ROOT, "lib") })) {
    const file = `lib/${f}`;
    if (file === DOOR) continue;
    const text = await readFile(join(ROOT, file), "utf8");
    const hit = SPAWNS.find((re) => re.test(text));
    if (hit) offenders.push(`${file} (${hit.source})`);
  }
  expect(offenders).toEqual([]);
});

test("the door itself is where child_process is imported (the test above would be vacuous otherwise)", async () => {
  const text = await readFile(join(ROOT, DOOR), "utf8");
  expect(SPAWNS.some((re) => re.test(text))).toBe(true);
});

test("the tools that start processes all go through the sandbox, not the raw door", async () => {
  const raw: string[] = [];
  for await (const f of new Bun.Glob("**/*.ts").scan({ cwd: join(ROOT, "lib") })) {
    const file = `lib/${f}`;
    if (file.startsWith("lib/sandbox/")) continue;
    const text = await readFile(join(ROOT, file), "utf8");
    // spawnCapture unconfined is for the sandbox module; everything else calls sandbox.run
    if (/\bspawnCapture\b/.test(text)) raw.push(file);
  }
  expect(raw).toEqual([]);
});

test("programs the user configured (hooks, MCP servers) start only from lib/extensions", async () => {
  const outside: string[] = [];
  for await (const f of new Bun.Glob("**/*.ts").scan({ cwd: join(ROOT, "lib") })) {
    const file = `lib/${f}`;
    if (file === DOOR || file.startsWith("lib/extensions/")) continue;
    const text = await readFile(join(ROOT, file), "utf8");
    if (/\b(runUserProgram|spawnPiped)\b/.test(text)) outside.push(file);
  }
  expect(outside).toEqual([]);
});
