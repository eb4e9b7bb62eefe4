/** core.hooksPath: which directories of the workspace stay read-only in edit and auto. */
import { describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hooksPathDirs, hooksPathValues } from "../../../lib/sandbox/hooks-path.ts";
import { protectedInside } from "../../../lib/sandbox/plan.ts";
import { tempDir } from "../../support/ctx.ts";

describe("core.hooksPath", () => {
  test("read from any spelling of the key in [core], quoted or not, comments dropped", () => {
    expect(hooksPathValues("[core]\n\thooksPath = .husky/_\n")).toEqual([".husky/_"]);
    expect(hooksPathValues('[CORE]\n  HOOKSPATH="my hooks" ; note\n')).toEqual(["my hooks"]);
    expect(hooksPathValues("[core] hookspath = hooks # x\n")).toEqual(["hooks"]);
    expect(hooksPathValues("[alias]\n\thooksPath = nope\n")).toEqual([]);
  });

  test("relative to the work tree, ~ to HOME; husky's `_` brings its parent; outside the workspace is not ours", async () => {
    await using dir = await tempDir();
    const ws = join(dir.path, "ws");
    await mkdir(join(ws, ".git"), { recursive: true });
    const local = join(ws, ".git", "config");
    await writeFile(local, "[core]\n\thooksPath = .husky/_\n");
    const global = join(dir.path, "gitconfig");
    await writeFile(
      global,
      `[core]\n\thooksPath = ${ws}/tools/hooks\n[core]\n\thooksPath = /etc/hooks\n`,
    );
    const dirs = hooksPathDirs(ws, [global, local, join(ws, "missing")], { HOME: dir.path });
    expect(dirs.sort()).toEqual(
      [join(ws, ".husky"), join(ws, ".husky", "_"), join(ws, "tools", "hooks")].sort(),
    );
    // a fresh clone: .husky/ exists, core.hooksPath not set yet (husky's prepare sets it later)
    const fresh = join(dir.path, "fresh");
    await mkdir(join(fresh, ".husky"), { recursive: true });
    expect(hooksPathDirs(fresh, [], { HOME: dir.path })).toEqual([join(fresh, ".husky")]);
  });

  test("the plan: an existing hooks dir is bound read-only; a missing one is covered at its first missing component", async () => {
    await using dir = await tempDir();
    const ws = dir.path;
    await mkdir(join(ws, ".git"));
    await mkdir(join(ws, ".husky", "_"), { recursive: true });
    await mkdir(join(ws, "tools"));
    const p = protectedInside(ws, true, [
      join(ws, ".husky", "_"),
      join(ws, ".husky"),
      join(ws, "tools", "git", "hooks"),
    ]);
    expect(p.existing).toContain(join(ws, ".husky", "_"));
    expect(p.existing).toContain(join(ws, ".husky"));
    expect(p.missingDirs).toContain(join(ws, "tools", "git"));
    expect(p.missingDirs).not.toContain(join(ws, "tools", "git", "hooks"));
  });
});
