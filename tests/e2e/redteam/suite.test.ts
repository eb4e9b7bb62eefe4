/**
 * The red-team suite as a whole (no runs): every case id is unique and stable-looking, the suite
 * holds at least 480 cases, every known-broken id names a case and says why, and every class file
 * carries a control (a run the harness must see break).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { envIds } from "./cases/env.ts";
import { exfilIds } from "./cases/exfil.ts";
import { filesIds } from "./cases/files.ts";
import { gitIds } from "./cases/git.ts";
import { homeIds } from "./cases/home.ts";
import { limitsIds } from "./cases/limits.ts";
import { memoryIds } from "./cases/memory.ts";
import { persistIds } from "./cases/persist.ts";
import { redosIds } from "./cases/redos.ts";
import { termIds } from "./cases/term.ts";
import { transcriptIds } from "./cases/transcript.ts";
import { workspaceIds } from "./cases/workspace.ts";
import { KNOWN_BROKEN } from "./known-broken.ts";

const CLASSES: Record<string, () => string[]> = {
  home: homeIds,
  env: envIds,
  exfil: exfilIds,
  git: gitIds,
  ws: workspaceIds,
  memory: memoryIds,
  term: termIds,
  limits: limitsIds,
  files: filesIds,
  redos: redosIds,
  transcript: transcriptIds,
  persist: persistIds,
};

describe("the red-team suite", () => {
  const all = Object.values(CLASSES).flatMap((f) => f());

  test("at least 480 cases, ids unique and of the form class.what.how", () => {
    expect(all.length).toBeGreaterThanOrEqual(480);
    expect(new Set(all).size).toBe(all.length);
    for (const id of all) expect(id).toMatch(/^[a-z]+\.[a-z0-9_.-]+$/);
    for (const [name, ids] of Object.entries(CLASSES))
      for (const id of ids()) expect(id.split(".")[0]).toBe(name);
  });

  test("every known-broken id is a case, with a one-line reason", () => {
    const ids = new Set(all);
    for (const [id, why] of Object.entries(KNOWN_BROKEN)) {
      expect(`${id}: ${ids.has(id)}`).toBe(`${id}: true`);
      expect(why.length).toBeGreaterThan(20);
      expect(why).not.toContain("\n");
    }
  });

  test("every class file has a control (REDTEAM_CONTROLS=1) that must come out broken", () => {
    const files = readdirSync(import.meta.dir).filter(
      (f) => f.endsWith(".test.ts") && f !== "suite.test.ts",
    );
    expect(files.length).toBe(Object.keys(CLASSES).length);
    for (const f of files) {
      const src = readFileSync(join(import.meta.dir, f), "utf8");
      expect(`${f}: ${src.includes("settleControls(")}`).toBe(`${f}: true`);
    }
  });
});
