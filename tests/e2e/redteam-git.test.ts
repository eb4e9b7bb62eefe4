/**
 * Red team: repositories a sandboxed command creates inside the workspace. The sandbox pins the
 * workspace's `.git` (hooks, config, modules/ read-only), but in edit/auto mode a command may
 * `git init sub` anywhere in the workspace, give that repository a `core.fsmonitor` (or rewrite a
 * populated submodule's `sub/.git` file to point at such a git dir) and register `sub` as a gitlink
 * in the (writable) index — or the checkout commits the gitlink itself. Nothing runs inside the
 * sandbox (chatcli's git passes core.fsmonitor=false), but the user's next plain `git status`
 * outside it — a CI step that opens a pull request — recurses into the submodule and runs the program,
 * unconfined.
 *
 * Not fixed yet. The fix needs the sandbox to treat every gitlink's `<path>/.git` like the top-level
 * `.git/config` (read-only, or an empty read-only mount when missing; the gitlinks come from the
 * index, so reading it in plan.ts), and, for gitlinks a command adds during its own run, a check
 * after each command that neutralises a `.git` created under a gitlink path (or an index that is
 * read-only in the sandbox). Until then: review `git diff --submodule` / `git ls-files -s | grep
 * ^160000` before running git on what an agent left behind.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { agent, hostile, plant, runScript } from "./sandbox-support.ts";

describe("red team: a nested repository planted by a sandboxed command", () => {
  test.todo("the user's plain git status after the run does not run a program a command planted in a submodule", async () => {
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
  }, 60_000);
});
