import { cp } from "node:fs/promises";
import { join } from "node:path";
import { type Memory, openMemory } from "../../../lib/memory/store.ts";
import { type TempDir, tempDir } from "../../support/ctx.ts";

export const FIXTURE_HOME = join(import.meta.dir, "../../fixtures/memory/go-home");

/** A temp CHATCLI_HOME, optionally seeded with the Go-format fixture store. */
export async function memoryHome(seed = false): Promise<TempDir & { env: Record<string, string> }> {
  const dir = await tempDir("chatcli-mem-");
  if (seed) await cp(FIXTURE_HOME, dir.path, { recursive: true });
  return Object.assign(dir, { env: { CHATCLI_HOME: dir.path, TZ: "UTC" } });
}

/** A memory handle with a fixed clock and captured warnings. */
export function testMemory(
  env: Record<string, string>,
  now: Date | (() => Date) = new Date("2026-08-02T12:00:00Z"),
  workspace = "/home/ana/src/chatcli",
): Memory & { warnings: string[] } {
  const warnings: string[] = [];
  const mem = openMemory({ env, now, workspace, warn: (l) => warnings.push(l) });
  return Object.assign(mem, { warnings });
}

export const memFile = (home: { path: string }, name: string) => join(home.path, "memory", name);
