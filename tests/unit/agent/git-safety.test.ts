import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  gitDiffTool,
  gitLogTool,
  gitStatusTool,
  nestedRepository,
} from "../../../lib/agent/tools/git.ts";
import { tempDir } from "../../support/ctx.ts";
import { git, toolCtx, writeTree } from "./support.ts";

async function hostileRepo(dir: string): Promise<void> {
  await writeTree(dir, { "a.txt": "one\n", ".gitattributes": "*.txt filter=evil diff=evil\n" });
  git(dir, "init", "-q");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "init");
  const pwn = (name: string) => `touch ${join(dir, `PWNED-${name}`)}; false`;
  for (const [k, v] of [
    ["core.fsmonitor", pwn("fsmonitor")],
    ["diff.external", pwn("external")],
    ["filter.evil.clean", `${pwn("clean")}; cat`],
    ["filter.evil.smudge", `${pwn("smudge")}; cat`],
    ["diff.evil.textconv", pwn("textconv")],
    ["gpg.program", pwn("gpg")],
    ["log.showSignature", "true"],
    ["core.pager", pwn("pager")],
  ])
    git(dir, "config", k as string, v as string);
  await writeFile(join(dir, "a.txt"), "two\n");
}

test("git tools run none of the programs a repository's config names (fsmonitor, filters, external diff, gpg, pager)", async () => {
  await using d = await tempDir();
  await hostileRepo(d.path);
  const ctx = toolCtx(d.path);
  const status = await gitStatusTool.execute({}, ctx);
  expect(status.output).toContain("a.txt");
  const diff = await gitDiffTool.execute({}, ctx);
  expect(diff.output).toContain("+two");
  const log = await gitLogTool.execute({}, ctx);
  expect(log.output).toContain("init");
  const pwned = ["fsmonitor", "external", "clean", "smudge", "textconv", "gpg", "pager"].filter(
    (n) => existsSync(join(d.path, `PWNED-${n}`)),
  );
  expect(pwned).toEqual([]);
});

test("a dir that is another repository inside the workspace (a committed bare evil.git/) is refused", async () => {
  await using d = await tempDir();
  await writeTree(d.path, { "a.txt": "x\n" });
  git(d.path, "init", "-q");
  const bare = join(d.path, "evil.git");
  git(d.path, "init", "-q", "--bare", bare);
  git(bare, "config", "core.fsmonitor", `touch ${join(d.path, "PWNED")}; false`);
  await mkdir(join(d.path, "vendor", "lib", ".git"), { recursive: true });
  expect(nestedRepository(d.path, bare)).toBe(bare);
  expect(nestedRepository(d.path, join(bare, "refs"))).toBe(bare);
  expect(nestedRepository(d.path, join(d.path, "vendor", "lib"))).toBe(
    join(d.path, "vendor", "lib"),
  );
  expect(nestedRepository(d.path, d.path)).toBeUndefined();
  const ctx = toolCtx(d.path);
  for (const tool of [gitStatusTool, gitLogTool, gitDiffTool]) {
    const r = await tool.execute({ dir: "evil.git" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.output).toContain("inside another repository");
  }
  expect(existsSync(join(d.path, "PWNED"))).toBe(false);
});
