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
 * unpopulated directory, is read-only: lib/sandbox/gitlinks.ts). A command that registers a new
 * gitlink itself — `git init sub && git add sub` (the index is writable in edit/auto) — is caught
 * after it ends: the new submodule's `.git` is renamed aside and the command's output says so.
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
    "the user's plain git status after the run does not run a program a command planted in a submodule",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      const marker = join(h.outside, "fsmonitor-ran");
      await plant(
        h,
        `git init -q sub && git -C sub -c user.email=a@b -c user.name=a commit -q --allow-empty -m x
         git -C sub config core.fsmonitor "sh -c 'echo pwned > ${marker}'"
         git add sub 2>/dev/null; echo planted`,
      );
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ["--permission-mode", "auto"]);
      expect(r.code).toBe(0);
      Bun.spawnSync(["git", "status"], { cwd: h.ws, env: { ...h.env } });
      expect(existsSync(marker)).toBe(false);
      // the model is told, and the repository is kept aside, not deleted
      expect(sentToProvider(llm)).toContain("registered as a submodule, was renamed");
      const kept = await readdir(join(h.ws, "sub"));
      expect(kept.some((n) => n.startsWith(".git.chatcli-quarantine"))).toBe(true);
    },
    60_000,
  );
});
