import { describe, expect, test } from "bun:test";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gitlinkPaths } from "../../../lib/sandbox/gitlinks.ts";
import { nestedGitDirs, protectedInside } from "../../../lib/sandbox/plan.ts";
import { tempDir } from "../../support/ctx.ts";

function git(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
}

describe("gitlinkPaths reads the submodules from the index", () => {
  for (const version of ["2", "3", "4"])
    test(`index version ${version}: gitlinks only, nested paths included`, async () => {
      await using d = await tempDir();
      const ws = d.path;
      git(ws, "init", "-q");
      await mkdir(join(ws, "lib", "deep"), { recursive: true });
      await writeFile(join(ws, "a.txt"), "a");
      await writeFile(join(ws, "lib", "deep", "b.txt"), "b");
      for (const sub of ["vendor/one", "vendor/two"]) {
        git(ws, "init", "-q", sub);
        git(join(ws, sub), "commit", "-q", "--allow-empty", "-m", "x");
      }
      git(ws, "add", "a.txt", "lib", "vendor/one", "vendor/two");
      git(ws, "update-index", "--index-version", version);
      expect(gitlinkPaths(join(ws, ".git", "index")).sort()).toEqual(["vendor/one", "vendor/two"]);
    });

  test("a missing or garbage index is no gitlinks", async () => {
    await using d = await tempDir();
    expect(gitlinkPaths(join(d.path, "index"))).toEqual([]);
    await writeFile(join(d.path, "index"), "DIRC\0\0\0\u0002\0\0\0\u0009garbage");
    expect(gitlinkPaths(join(d.path, "index"))).toEqual([]);
  });
});

describe("protectedInside: what stays read-only in a writable workspace", () => {
  test("default: the whole .git; allow-git-writes: pinned, with hooks, config, config.worktree, commondir read-only", async () => {
    await using d = await tempDir();
    const ws = d.path;
    git(ws, "init", "-q");
    const strict = protectedInside(ws);
    expect(strict.existing).toContain(join(ws, ".git"));
    expect(strict.pinned).toEqual([]);
    expect(strict.missingFiles).toEqual([]);
    const open = protectedInside(ws, true);
    expect(open.pinned).toEqual([join(ws, ".git")]);
    expect(open.existing).not.toContain(join(ws, ".git"));
    for (const p of ["hooks", "config"]) expect(open.existing).toContain(join(ws, ".git", p));
    // a missing config.worktree gets an empty stand-in, so no command can create one
    expect(open.missingFiles).toContainEqual({
      path: join(ws, ".git", "config.worktree"),
      content: "",
    });
    expect(open.missingFiles).toContainEqual({
      path: join(ws, ".git", "commondir"),
      content: ".\n",
    });
  });

  test("every gitlink the index records: its .git, its empty directory, or the first missing directory on its path", async () => {
    await using d = await tempDir();
    const ws = d.path;
    git(ws, "init", "-q");
    for (const sub of ["populated", "empty", "gone/deep/sub", "linked", "disabled"]) {
      git(ws, "init", "-q", sub);
      git(join(ws, sub), "commit", "-q", "--allow-empty", "-m", "x");
      git(ws, "add", sub);
    }
    await rm(join(ws, "empty", ".git"), { recursive: true });
    await rename(join(ws, "disabled", ".git"), join(ws, "disabled", ".git.chatcli-disabled"));
    await rm(join(ws, "gone"), { recursive: true });
    await rm(join(ws, "linked"), { recursive: true });
    await symlink(d.path, join(ws, "linked"));
    const p = protectedInside(ws);
    expect(p.existing).toContain(join(ws, "populated", ".git"));
    expect(p.existing).toContain(join(ws, "empty"));
    expect(p.missingDirs).toContain(join(ws, "gone"));
    // files but no .git (chatcli renamed it): an empty read-only .git, so none can reappear
    expect(p.missingDirs).toContain(join(ws, "disabled", ".git"));
    // a link on the way is not followed (git does not look through it either)
    expect([...p.existing, ...p.missingDirs].some((x) => x.startsWith(join(ws, "linked")))).toBe(
      false,
    );
  });

  test("nested repositories already there: their .git (dir or gitfile), never through a link or a link itself", async () => {
    await using d = await tempDir();
    const ws = d.path;
    await mkdir(join(ws, "a", ".git"), { recursive: true });
    await mkdir(join(ws, "b"));
    await writeFile(join(ws, "b", ".git"), "gitdir: ../x\n");
    await mkdir(join(ws, "c"));
    await symlink(join(ws, "a", ".git"), join(ws, "c", ".git"));
    await symlink(join(ws, "a"), join(ws, "l"));
    expect(nestedGitDirs(ws, ["a", "b", "c", "l", "gone", "../a", "a/.git"])).toEqual([
      join(ws, "a", ".git"),
      join(ws, "b", ".git"),
    ]);
  });
});
