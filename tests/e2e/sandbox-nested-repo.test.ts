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
 * elsewhere (`git init sub`) is one git at the root never enters; chatcli names it after the command
 * (warning nested_git_repository) and leaves it as it is — nothing is renamed.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
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

  live(
    "a command cannot register the repository it planted as a submodule; the user's plain git status runs nothing, and the run names it",
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
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      expect(sent).toMatch(/add=(1|128)/);
      for (const args of [["status"], ["commit", "-qam", "x"], ["status", "--porcelain"]])
        Bun.spawnSync(["git", "-c", "user.email=u@u", "-c", "user.name=u", ...args], {
          cwd: h.ws,
          env: { ...h.env },
        });
      expect(existsSync(marker)).toBe(false);
      // the model is told, the envelope warns, and the repository is left as the command left it
      expect(sent).toContain("this command created a git repository at sub/");
      const warnings = r.envelope["warnings"] as Array<{ code: string; message: string }>;
      expect(
        warnings.some((w) => w.code === "nested_git_repository" && w.message.includes("sub/")),
      ).toBe(true);
      expect(await readdir(join(h.ws, "sub"))).toEqual([".git"]);
    },
    60_000,
  );
});
