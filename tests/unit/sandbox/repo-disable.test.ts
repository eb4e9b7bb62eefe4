/** Renaming a new nested repository's `.git` (lib/sandbox/repo-disable.ts), in-process. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { disableRepository } from "../../../lib/sandbox/repo-disable.ts";
import type { FileGuard } from "../../../lib/sandbox/walk.ts";
import { tempDir } from "../../support/ctx.ts";

async function scene(root: string) {
  const ws = join(root, "ws");
  const out = join(root, "outside");
  for (const d of [
    join(ws, "vendor", "x", ".git"),
    join(ws, "mine", ".git"),
    join(out, "x", ".git"),
  ])
    await mkdir(d, { recursive: true });
  await writeFile(join(ws, "vendor", "x", ".git", "config"), "[core]\n");
  const guard: FileGuard = {
    workspace: ws,
    workspaceReal: ws,
    bypass: false,
    denied: [],
    patterns: [],
  };
  return { ws, out, guard };
}

describe("disableRepository", () => {
  test("renames <sub>/.git to .git.chatcli-disabled (then -2 when that name is taken)", async () => {
    await using d = await tempDir();
    const { ws, guard } = await scene(d.path);
    const r = disableRepository(guard, { path: join(ws, "vendor", "x") });
    expect(r).toEqual({
      done: true,
      from: join(ws, "vendor", "x", ".git"),
      to: join(ws, "vendor", "x", ".git.chatcli-disabled"),
    });
    expect(await readdir(join(ws, "vendor", "x"))).toEqual([".git.chatcli-disabled"]);
    await writeFile(join(ws, "vendor", "x", ".git"), "gitdir: /elsewhere\n");
    const again = disableRepository(guard, { path: join(ws, "vendor", "x") });
    expect(again.done && again.to).toBe(join(ws, "vendor", "x", ".git.chatcli-disabled-2"));
    expect(disableRepository(guard, { path: join(ws, "vendor", "x") })).toEqual({
      done: false,
      reason: "it has no .git entry",
    });
  });

  test("a link anywhere on the way (out of the workspace, or to another repository in it) refuses the rename", async () => {
    await using d = await tempDir();
    const { ws, out, guard } = await scene(d.path);
    await symlink(join(out, "x"), join(ws, "sub"));
    await symlink(out, join(ws, "vend"));
    await symlink("mine", join(ws, "inner"));
    for (const p of ["sub", "vend/x", "inner"]) {
      const r = disableRepository(guard, { path: join(ws, p) });
      expect(r.done).toBe(false);
    }
    expect(existsSync(join(out, "x", ".git"))).toBe(true);
    expect(existsSync(join(ws, "mine", ".git"))).toBe(true);
    expect(existsSync(join(out, "x", ".git.chatcli-disabled"))).toBe(false);
  });

  test("outside the workspace, through .git, or in bypass mode: nothing is renamed", async () => {
    await using d = await tempDir();
    const { ws, out, guard } = await scene(d.path);
    expect(disableRepository(guard, { path: join(out, "x") }).done).toBe(false);
    expect(
      disableRepository(guard, { path: join(ws, "vendor", "..", "..", "outside", "x") }).done,
    ).toBe(false);
    expect(disableRepository(guard, { path: join(ws, "mine", ".git") }).done).toBe(false);
    expect(disableRepository({ ...guard, bypass: true }, { path: join(ws, "mine") }).done).toBe(
      false,
    );
    expect(existsSync(join(out, "x", ".git"))).toBe(true);
    expect(existsSync(join(ws, "mine", ".git"))).toBe(true);
  });
});
