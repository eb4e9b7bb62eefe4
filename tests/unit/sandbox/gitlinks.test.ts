import { describe, expect, test } from "bun:test";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  gitlinkPaths,
  populatedGitlinks,
  quarantineNewGitlinks,
} from "../../../lib/sandbox/gitlinks.ts";
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

  test("quarantineNewGitlinks moves aside only a .git that appeared under a gitlink", async () => {
    await using d = await tempDir();
    const ws = d.path;
    git(ws, "init", "-q");
    for (const sub of ["old", "new"]) {
      git(ws, "init", "-q", sub);
      git(join(ws, sub), "commit", "-q", "--allow-empty", "-m", "x");
    }
    git(ws, "add", "old");
    const before = populatedGitlinks(ws);
    expect([...before]).toEqual(["old"]);
    git(ws, "add", "new");
    const notes = quarantineNewGitlinks(ws, before);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain("new/.git");
    expect(
      (await readdir(join(ws, "new"))).some((n) => n.startsWith(".git.chatcli-quarantine")),
    ).toBe(true);
    expect(await readdir(join(ws, "old"))).toContain(".git");
  });
});
