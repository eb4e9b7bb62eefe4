/**
 * Plants in `.git` that the user's next plain git command (run here unsandboxed, after the agent
 * run) would follow: a `config.worktree` with core.fsmonitor, links at COMMIT_EDITMSG, FETCH_HEAD,
 * `logs/`, `objects/xx`, `refs/tags`, a stopped rebase whose todo runs `exec`. In edit and auto the
 * whole `.git` is read-only (Codex's default), so none can be planted; `--allow-git-writes` opens it
 * (hooks and config stay read-only) and a failing `git commit` says so. chatcli itself never renames,
 * deletes or writes through a path outside the workspace (the host-side submodule quarantine is gone).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import {
  agent,
  type Hostile,
  hostile,
  plant,
  runScript,
  sentToProvider,
} from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

/** The user's own git, after the run, outside any sandbox. */
function userGit(h: Hostile, ...args: string[]) {
  const r = Bun.spawnSync(["git", "-c", "user.email=u@u", "-c", "user.name=u", ...args], {
    cwd: h.ws,
    env: h.env,
  });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

/** Every file under `dir` with its bytes (a directory's whole state). */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    out[p.slice(dir.length)] = e.isFile()
      ? await readFile(p, "latin1")
      : e.isSymbolicLink()
        ? "<link>"
        : "<dir>";
  }
  return out;
}

/** Runs `script` as a committed attack.sh in `mode` (the parser cannot see into it). */
async function attack(
  h: Hostile,
  llm: Awaited<ReturnType<typeof startMockLlm>>,
  script: string,
  args: string[] = [],
) {
  await plant(h, script);
  llm.push(runScript, { text: "done" });
  const r = await agent(h, ["--permission-mode", "auto", ...args]);
  expect(r.code).toBe(0);
  return { ...r, sent: sentToProvider(llm) };
}

describe(".git is read-only in edit and auto: nothing for the user's next git to follow", () => {
  live(
    "config.worktree with core.fsmonitor (extensions.worktreeConfig set): the user's git status runs nothing",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      userGit(h, "config", "core.repositoryformatversion", "1");
      userGit(h, "config", "extensions.worktreeConfig", "true");
      const marker = join(h.outside, "fsmonitor-ran");
      await writeFile(join(h.ws, "evil.sh"), `echo pwned > ${marker}\n`);
      const r = await attack(
        h,
        llm,
        `printf '[core]\\n\\tfsmonitor = sh evil.sh\\n' > .git/config.worktree; echo "worktree=$?"`,
      );
      expect(r.sent).toMatch(/worktree=[12]/);
      userGit(h, "status");
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(h.ws, ".git", "config.worktree"))).toBe(false);
    },
    60_000,
  );

  live(
    "links at COMMIT_EDITMSG, logs/, objects/xx and refs/tags: the user's commit and tag write nothing outside",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const before = await tree(h.outside);
      const r = await attack(
        h,
        llm,
        `ln -sf ${h.outside}/victim.txt .git/COMMIT_EDITMSG; echo "editmsg=$?"
       rm -rf .git/logs 2>/dev/null; ln -s ${h.outside} .git/logs; echo "logs=$?"
       for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
         [ -e .git/objects/$a$b ] || ln -s ${h.outside} .git/objects/$a$b 2>/dev/null; done; done
       [ -L .git/objects/00 ] || [ -L .git/objects/ff ]; echo "objects=$?"
       rm -rf .git/refs/tags 2>/dev/null; ln -s ${h.outside} .git/refs/tags; echo "tags=$?"`,
      );
      for (const what of ["editmsg", "logs", "objects", "tags"])
        expect(r.sent).toMatch(new RegExp(`${what}=[12]`));
      await writeFile(join(h.ws, "README.md"), "changed by the user\n");
      expect(userGit(h, "commit", "-qam", "user commit").code).toBe(0);
      expect(userGit(h, "tag", "v1").code).toBe(0);
      expect(await tree(h.outside)).toEqual(before);
    },
    60_000,
  );

  live(
    "a link at FETCH_HEAD: the user's git fetch writes nothing outside",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await using origin = await tempDir();
      Bun.spawnSync(["git", "init", "-q", "--bare", origin.path]);
      userGit(h, "remote", "add", "origin", origin.path);
      expect(userGit(h, "push", "-q", "origin", "HEAD").code).toBe(0);
      const before = await tree(h.outside);
      const r = await attack(
        h,
        llm,
        `ln -sf ${h.outside}/fetched .git/FETCH_HEAD; echo "fetch=$?"`,
      );
      expect(r.sent).toMatch(/fetch=[12]/);
      expect(userGit(h, "fetch", "-q", "origin").code).toBe(0);
      expect(await tree(h.outside)).toEqual(before);
    },
    60_000,
  );

  live(
    "a stopped rebase whose todo runs exec: the user's git status and rebase --continue run nothing",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const marker = join(h.outside, "rebase-ran");
      const r = await attack(
        h,
        llm,
        `d=.git/rebase-merge; mkdir $d 2>/dev/null; echo "rebase=$?"
       git symbolic-ref HEAD > $d/head-name; git rev-parse HEAD > $d/onto; cp $d/onto $d/orig-head
       touch $d/interactive $d/done; echo 'exec echo pwned > ${marker}' > $d/git-rebase-todo`,
      );
      expect(r.sent).toMatch(/rebase=[12]/);
      userGit(h, "status");
      userGit(h, "rebase", "--continue");
      expect(existsSync(marker)).toBe(false);
    },
    60_000,
  );

  live(
    "git commit in edit mode fails inside the sandbox and the result names --allow-git-writes; with it the commit lands",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const commit = {
        tool_calls: [
          {
            name: "run_command",
            arguments: { cmd: "git -c user.email=a@b -c user.name=a commit -qam work" },
          },
        ],
      };
      await writeFile(join(h.ws, "README.md"), "edited\n");
      llm.push(commit, { text: "done" }, commit, { text: "done" });
      const allow = ["--permission-mode", "edit", "--allow-tool", "run_command(git *)"];
      const denied = await agent(h, allow);
      expect(denied.code).toBe(0);
      expect(sentToProvider(llm)).toContain("pass --allow-git-writes");
      expect(userGit(h, "log", "--oneline").out.trim().split("\n")).toHaveLength(1);
      const ok = await agent(h, [...allow, "--allow-git-writes"]);
      expect(ok.code).toBe(0);
      expect(userGit(h, "log", "--format=%s").out.trim().split("\n")[0]).toBe("work");
    },
    60_000,
  );
});

describe("chatcli never acts through a path outside the workspace", () => {
  live(
    "a gitlink a command plants (--allow-git-writes) pointing at a repository outside: that repository stays byte-identical",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const repo = join(h.outside, "repo");
      await mkdir(repo);
      for (const args of [
        ["init", "-q"],
        ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"],
      ])
        Bun.spawnSync(["git", ...args], { cwd: repo });
      // (the outside repository is not visible inside the sandbox: its commit id comes in the script)
      const sha = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: repo })
        .stdout.toString()
        .trim();
      const before = await tree(h.outside);
      const r = await attack(
        h,
        llm,
        `ln -s ${repo} sub; git update-index --add --cacheinfo 160000,${sha},sub 2>&1; echo "gitlink=$?"`,
        ["--allow-git-writes"],
      );
      expect(r.sent).toContain("gitlink=0");
      userGit(h, "status");
      expect(await tree(h.outside)).toEqual(before);
    },
    60_000,
  );
});
