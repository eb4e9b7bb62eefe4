/**
 * Red team, plants the user's next git command follows: a committed script tries every plant of
 * cases/git.ts (each in its own subshell) in edit and auto; then, on the host and outside any
 * sandbox, the user runs plain git commands in the workspace. Broken: a planted program ran
 * ($OUT/ran-NAME exists) or git wrote through a planted link ($OUT/NAME exists).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, type Hostile, hostile, plant } from "../sandbox-support.ts";
import { gitIds, PLANTS } from "./cases/git.ts";
import { CONTROLS, settle, settleControls, toolResults, type Verdict } from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const LAST = ["git-dir-swap", "gitfile-redirect"];
const DIR_TARGETS = ["link-logs", "link-objects-dir", "link-refs-tags"];

function git(cwd: string, env: Record<string, string>, ...args: string[]) {
  return Bun.spawnSync(["git", "-c", "user.email=u@u", "-c", "user.name=u", ...args], {
    cwd,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** A repository like a real checkout: an origin, a submodule, extensions.worktreeConfig. */
async function setup(h: Hostile, husky: boolean): Promise<void> {
  const env = { PATH: h.env["PATH"] as string, HOME: h.home };
  const src = join(h.outside, "subsrc");
  await mkdir(src);
  git(src, env, "init", "-q");
  git(src, env, "commit", "-q", "--allow-empty", "-m", "sub");
  git(h.ws, env, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub");
  await writeFile(
    join(h.ws, "evil.sh"),
    `#!/bin/sh\ntouch "${h.outside}/ran-$1"\ncat >/dev/null 2>&1 </dev/null\n`,
  );
  await chmod(join(h.ws, "evil.sh"), 0o755);
  await mkdir(join(h.outside, "hooks"));
  await writeFile(
    join(h.outside, "hooks", "pre-commit"),
    `#!/bin/sh\n"${h.ws}/evil.sh" hook-post-checkout-dir-link\n`,
  );
  await chmod(join(h.outside, "hooks", "pre-commit"), 0o755);
  // directories a planted link points at (a real target would be ~/.ssh, ~/.config …)
  for (const d of DIR_TARGETS) await mkdir(join(h.outside, d));
  git(h.ws, env, "add", "-A");
  git(h.ws, env, "commit", "-qm", "checkout");
  git(h.outside, env, "clone", "-q", "--bare", h.ws, "origin.git");
  git(h.ws, env, "remote", "add", "origin", join(h.outside, "origin.git"));
  git(h.ws, env, "config", "core.repositoryformatversion", "1");
  git(h.ws, env, "config", "extensions.worktreeConfig", "true");
  if (husky) git(h.ws, env, "config", "core.hooksPath", ".husky");
}

function script(h: Hostile, plants: ReadonlyArray<readonly [string, string]>): string {
  const lines = [`E="$PWD/evil.sh"; OUT="${h.outside}"`];
  const ordered = [...plants].sort(
    (a, b) => Number(LAST.includes(a[0])) - Number(LAST.includes(b[0])),
  );
  for (const [slug, cmd] of ordered)
    lines.push(`( ${cmd} ) >/dev/null 2>&1; echo "plant ${slug} rc=$?"`);
  lines.push("echo plants-done");
  return lines.join("\n");
}

/** What the user does next, on the host. */
function userGit(h: Hostile): void {
  const env = { PATH: h.env["PATH"] as string, HOME: h.home, TERM: "dumb" };
  for (const args of [
    ["status"],
    ["diff"],
    ["commit", "--allow-empty", "-qm", "user commit"],
    ["fetch", "-q", "origin"],
    ["fetch", "-q", "evil"],
    ["tag", "user-v1"],
    ["rebase", "--continue"],
    ["reset", "-q"],
    ["submodule", "status"],
    ["status"],
    ["add", "-A"],
    ["status"],
  ])
    git(h.ws, env, ...args);
  // a pager runs only on a terminal: the user's `git log` in one
  Bun.spawnSync(["script", "-qec", "git log -1", "/dev/null"], {
    cwd: h.ws,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function attack(
  mode: string,
  plants: ReadonlyArray<readonly [string, string]>,
  husky: boolean,
  extra: string[] = [],
) {
  requireBinary();
  await using llm = await startMockLlm();
  await using h = await hostile(llm);
  await setup(h, husky);
  await plant(h, script(h, plants));
  llm.push(
    { tool_calls: [{ id: "sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
    { text: "done" },
  );
  await agent(h, [
    "--permission-mode",
    mode,
    "--allow-tool",
    "run_command(sh attack.sh)",
    ...extra,
  ]);
  expect(toolResults(llm.requests).get("sh")).toContain("plants-done");
  userGit(h);
  return plants.map(([slug]): Verdict => {
    const ran = existsSync(join(h.outside, `ran-${slug}`));
    const target = join(h.outside, slug);
    const wrote = DIR_TARGETS.includes(slug) ? readdirSync(target).length > 0 : existsSync(target);
    return {
      id: `git.${slug}.${mode}`,
      broken: ran || wrote,
      note: ran ? "planted program ran" : wrote ? "git wrote through a planted link" : undefined,
    };
  });
}

describe("red team: plants the user's next git command follows", () => {
  live(
    "every plant, edit and auto",
    async () => {
      const verdicts: Verdict[] = [];
      const main = PLANTS.filter(([p]) => p !== "husky-hook");
      const husky = PLANTS.filter(([p]) => p === "husky-hook");
      for (const mode of ["edit", "auto"]) {
        verdicts.push(...(await attack(mode, main, false)));
        verdicts.push(...(await attack(mode, husky, true)));
      }
      settle(gitIds(), verdicts);
    },
    120_000,
  );

  if (CONTROLS)
    live(
      "controls: each plant alone in bypass (no sandbox) reaches the user's git; --allow-git-writes lets a link at COMMIT_EDITMSG through",
      async () => {
        const v: Verdict[] = [];
        for (let i = 0; i < PLANTS.length; i += 4) {
          const batch = PLANTS.slice(i, i + 4);
          const got = await Promise.all(
            batch.map((p) => attack("bypass", [p], p[0] === "husky-hook")),
          );
          for (const [k, [one]] of got.entries())
            v.push({ ...(one as Verdict), id: `control.git.${batch[k]?.[0]}.bypass` });
        }
        const pick = PLANTS.filter(([p]) => p === "link-commit-editmsg");
        const [link] = await attack("edit", pick, false, ["--allow-git-writes"]);
        v.push({ ...(link as Verdict), id: "control.git.link-commit-editmsg.allow-git-writes" });
        settleControls(v);
      },
      240_000,
    );
});
