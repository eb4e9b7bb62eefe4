import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BootstrapCache } from "../../../lib/bootstrap/cache.ts";
import { loadBootstrapFiles } from "../../../lib/bootstrap/files.ts";
import { detectWorkspaceRoot, findProjectDir } from "../../../lib/bootstrap/workspace.ts";
import { tempDir } from "../../support/ctx.ts";
import { dirs, put } from "./helpers.ts";

/** The seed's table: cwd at start, marker, detected workspace, files loaded. */
describe("workspace detection (seed 000 table)", () => {
  async function setup() {
    const dir = await tempDir();
    const home = join(dir.path, "home");
    put(home, ".chatcli/SOUL.md", "global soul\n");
    return { dir, home, env: { HOME: home } };
  }

  function soulOf(env: Record<string, string>, cwd: string): string | undefined {
    const root = detectWorkspaceRoot(cwd);
    const { files } = loadBootstrapFiles({ env, workspaceRoot: root, cache: new BootstrapCache() });
    return files.find((f) => f.name === "SOUL.md")?.path;
  }

  test("cwd at the project root with .git → the root; the root's SOUL.md", async () => {
    const { dir, env } = await setup();
    await using _ = dir;
    const root = join(dir.path, "project");
    dirs(root, ".git");
    put(root, "SOUL.md", "project soul\n");
    expect(detectWorkspaceRoot(root)).toBe(root);
    expect(soulOf(env, root)).toBe(join(root, "SOUL.md"));
  });

  test("cwd two levels down → walks up to the .git root", async () => {
    const { dir, env } = await setup();
    await using _ = dir;
    const root = join(dir.path, "project");
    dirs(root, ".git", "src/pkg");
    put(root, "SOUL.md", "project soul\n");
    expect(detectWorkspaceRoot(join(root, "src/pkg"))).toBe(root);
    expect(soulOf(env, join(root, "src/pkg"))).toBe(join(root, "SOUL.md"));
  });

  test("no marker anywhere → the cwd itself; only global files", async () => {
    const { dir, home, env } = await setup();
    await using _ = dir;
    const cwd = dirs(dir.path, "project/src/pkg");
    put(dir.path, "project/SOUL.md", "not a workspace file: no marker\n");
    expect(findProjectDir(cwd)).toBeUndefined();
    expect(detectWorkspaceRoot(cwd)).toBe(cwd);
    expect(soulOf(env, cwd)).toBe(join(home, ".chatcli/SOUL.md"));
  });

  test("monorepo: services/api under a .git root → the monorepo root", async () => {
    const { dir, env } = await setup();
    await using _ = dir;
    const mono = join(dir.path, "monorepo");
    dirs(mono, ".git", "services/api");
    put(mono, "SOUL.md", "mono soul\n");
    expect(detectWorkspaceRoot(join(mono, "services/api"))).toBe(mono);
    expect(soulOf(env, join(mono, "services/api"))).toBe(join(mono, "SOUL.md"));
  });

  test("~/tmp without marker → cwd, global files only", async () => {
    const { dir, home, env } = await setup();
    await using _ = dir;
    const tmp = dirs(dir.path, "tmp");
    expect(detectWorkspaceRoot(tmp)).toBe(tmp);
    expect(soulOf(env, tmp)).toBe(join(home, ".chatcli/SOUL.md"));
  });

  test(".agent marks a workspace, and the nearest marker wins", async () => {
    await using dir = await tempDir();
    dirs(dir.path, "outer/.git", "outer/inner/.agent", "outer/inner/deep");
    expect(detectWorkspaceRoot(join(dir.path, "outer/inner/deep"))).toBe(
      join(dir.path, "outer/inner"),
    );
  });

  test("a .git file (worktree, submodule) is not a marker", async () => {
    await using dir = await tempDir();
    dirs(dir.path, "outer/.git", "outer/wt/src");
    put(dir.path, "outer/wt/.git", "gitdir: ../.git/worktrees/wt\n");
    expect(detectWorkspaceRoot(join(dir.path, "outer/wt/src"))).toBe(join(dir.path, "outer"));
  });
});
