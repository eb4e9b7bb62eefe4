/**
 * Red team: repositories a sandboxed command creates inside the workspace. The sandbox pins the
 * workspace's `.git` (hooks, config, modules/ read-only), but in edit/auto mode a command could
 * `git init sub` inside a committed submodule's empty directory (or rewrite a populated one's
 * `sub/.git` file to point at a git dir of its own) and give it a `core.fsmonitor`. Nothing runs
 * inside the sandbox (chatcli's git passes core.fsmonitor=false), but the user's next plain
 * `git status` outside it — a CI step that opens a pull request — recurses into the submodule and
 * runs the program, unconfined.
 *
 * Fixed for the submodules the index records when the command starts (their `.git`, or the empty
 * unpopulated directory, is read-only: lib/sandbox/plan.ts). A command cannot register a new one:
 * the whole `.git` (the index included) is read-only in edit and auto. A repository it creates
 * elsewhere (`git init sub`) is one git at the root never enters — but the user's `git add -A` would
 * register it and the next `git status` recurse into it: chatcli renames its `.git` to
 * `.git.chatcli-disabled` after the command, inside the sandbox (the file worker, through
 * descriptors: a link put in the way refuses the rename), and says so (warning nested_git_repository).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);

/** A checkout whose commit records `sub` as a submodule, not populated (an empty directory). */
async function withGitlink(ws: string): Promise<void> {
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: ws });
  git("init", "-q", "sub");
  git("-C", "sub", "commit", "-q", "--allow-empty", "-m", "sub");
  git("add", "sub");
  git("commit", "-qm", "submodule");
  await rm(join(ws, "sub", ".git"), { recursive: true });
}

describe("red team: a nested repository planted by a sandboxed command", () => {
  live(
    "a committed submodule: a command can neither create nor repoint its .git, so git status runs nothing",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await withGitlink(h.ws);
      const marker = join(h.outside, "fsmonitor-ran");
      await mkdir(join(h.ws, "evil-gitdir"));
      await plant(
        h,
        `git init -q sub 2>/dev/null; echo "init=$?"
         git -C sub config core.fsmonitor "sh -c 'echo pwned > ${marker}'" 2>/dev/null; echo "config=$?"
         rmdir sub/.git 2>/dev/null; echo "gitdir: ../evil-gitdir" > sub/.git 2>/dev/null; echo "file=$?"
         git status --porcelain >/dev/null 2>&1; echo "status=$?"`,
      );
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent).toContain("file=");
      expect(sent).toContain("status=0");
      expect(sent).not.toContain("config=0");
      expect(sent).not.toContain("file=0");
      Bun.spawnSync(["git", "status"], { cwd: h.ws, env: { ...h.env } });
      expect(existsSync(marker)).toBe(false);
      // the submodule is still the empty directory the checkout left
      expect(await readdir(join(h.ws, "sub"))).toEqual([]);
    },
    60_000,
  );

  live(
    "a committed submodule whose checkout directory is missing: no repository can be made there, so git status runs nothing",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      await withGitlink(h.ws);
      await rm(join(h.ws, "sub"), { recursive: true });
      const marker = join(h.outside, "fsmonitor-ran");
      await plant(
        h,
        `mkdir -p sub 2>/dev/null; git init -q sub 2>/dev/null; echo "init=$?"
         git -C sub config core.fsmonitor "sh -c 'echo pwned > ${marker}'" 2>/dev/null`,
      );
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      expect(sentToProvider(llm)).toMatch(/init=[1-9]/);
      Bun.spawnSync(["git", "status"], { cwd: h.ws, env: { ...h.env } });
      expect(existsSync(marker)).toBe(false);
      // the empty mount point was removed: the checkout is as missing as before the run
      expect(existsSync(join(h.ws, "sub"))).toBe(false);
    },
    60_000,
  );

  for (const extra of [[], ["--allow-git-writes"]])
    live(
      `a repository a command creates is made inert inside the sandbox${extra.length ? " (--allow-git-writes too)" : ""}: the user's git add -A && git status runs nothing, and the run says what it renamed and how to undo it`,
      async () => {
        requireBinary();
        await using llm = await startMockLlm();
        await using h = await hostile(llm);
        const marker = join(h.outside, "fsmonitor-ran");
        await plant(
          h,
          `git init -q sub && git -C sub -c user.email=a@b -c user.name=a commit -q --allow-empty -m x
           git -C sub config core.fsmonitor "sh -c 'echo pwned > ${marker}'"
           git add sub 2>/dev/null; echo "add=$?"`,
        );
        llm.push(runScript, { text: "done" });
        const r = await agent(h, ["--permission-mode", "auto", ...extra]);
        expect(r.code).toBe(0);
        const sent = sentToProvider(llm);
        // without --allow-git-writes the index is read-only: the command cannot register it itself
        expect(sent).toMatch(extra.length ? /add=0/ : /add=(1|128)/);
        const userGit = (...args: string[]) =>
          Bun.spawnSync(["git", "-c", "user.email=u@u", "-c", "user.name=u", ...args], {
            cwd: h.ws,
            env: { ...h.env },
          });
        for (const args of [["status"], ["add", "-A"], ["status"], ["commit", "-qm", "x"]])
          userGit(...args);
        userGit("status");
        expect(existsSync(marker)).toBe(false);
        // sub is a plain directory now: its .git was renamed, and what git add -A added is files
        expect((await readdir(join(h.ws, "sub"))).sort()).toEqual([".git.chatcli-disabled"]);
        const tree = userGit("ls-tree", "-r", "HEAD").stdout.toString();
        if (extra.length === 0) {
          expect(tree).not.toContain("160000");
          expect(tree).toContain("sub/.git.chatcli-disabled/config");
        } // else the command registered sub itself: the gitlink stays, with no repository behind it
        // the model and the user are told what was done and how to undo it
        expect(sent).toContain("renamed sub/.git -> sub/.git.chatcli-disabled");
        const warnings = r.envelope["warnings"] as Array<{ code: string; message: string }>;
        const w = warnings.find((x) => x.code === "nested_git_repository");
        expect(w?.message).toContain("renamed sub/.git -> sub/.git.chatcli-disabled");
        expect(w?.message).toContain("mv sub/.git.chatcli-disabled sub/.git");
      },
      60_000,
    );

  live(
    "a repository that was there before the command is left as it is (and its .git is read-only to the command); only the one the command created is renamed",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: h.ws });
      git("init", "-q", "mine");
      git("-C", "mine", "config", "user.name", "the user");
      const config = await readFile(join(h.ws, "mine", ".git", "config"), "utf8");
      const marker = join(h.outside, "fsmonitor-ran");
      await plant(
        h,
        `echo work > mine/notes.txt; git init -q new
         git -C mine config core.fsmonitor "sh -c 'echo pwned > ${marker}'" 2>/dev/null; echo "config=$?"
         printf '#!/bin/sh\\necho pwned > ${marker}\\n' > mine/.git/hooks/pre-commit 2>/dev/null; echo "hook=$?"`,
      );
      llm.push(runScript, { text: "done" });
      const r = await agent(h, [
        "--permission-mode",
        "edit",
        "--allow-tool",
        "run_command(sh attack.sh)",
      ]);
      expect(r.code).toBe(0);
      expect(await readFile(join(h.ws, "mine", ".git", "config"), "utf8")).toBe(config);
      expect(existsSync(join(h.ws, "mine", ".git.chatcli-disabled"))).toBe(false);
      expect(existsSync(join(h.ws, "new", ".git"))).toBe(false);
      expect(existsSync(join(h.ws, "new", ".git.chatcli-disabled", "HEAD"))).toBe(true);
      const sent = sentToProvider(llm);
      expect(sent).not.toMatch(/repository (at )?\(?mine\//);
      // its .git is read-only to the command: it cannot be given a config or hook the user's git obeys
      expect(sent).toMatch(/config=[1-9]/);
      expect(sent).toMatch(/hook=[1-9]/);
      expect(await readFile(join(h.ws, "mine", "notes.txt"), "utf8")).toBe("work\n");
      for (const args of [["add", "-A"], ["status"], ["commit", "-qm", "x"]])
        Bun.spawnSync(["git", "-c", "user.email=u@u", "-c", "user.name=u", ...args], {
          cwd: h.ws,
          env: { ...h.env },
        });
      expect(existsSync(marker)).toBe(false);
    },
    60_000,
  );
});
