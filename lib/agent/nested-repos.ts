/**
 * What chatcli does about git repositories a command created inside the work tree (found by
 * shell-changes.ts `newRepositories`). Git at the workspace root never enters an unregistered one,
 * but the user's `git add -A` registers it as a submodule and the next plain `git status` recurses
 * into it and obeys its config (core.fsmonitor, hooks, pager, includes …) outside any sandbox. So,
 * outside bypass mode, each one's `.git` is renamed to `.git.chatcli-disabled` by the run's file
 * worker, inside the sandbox and through descriptors (lib/sandbox/repo-disable.ts), and the model
 * and the user are told exactly that and how to undo it. A repository that was there before the
 * command is never touched; nor is a bare-shaped directory (no `.git` to rename: it is only named).
 */
import { realpathSync } from "node:fs";
import { join, relative } from "node:path";
import type { DisableReply } from "../sandbox/repo-disable.ts";
import { filesOf, sandboxOf } from "./tools/common.ts";
import type { ToolContext, ToolOutcome } from "./types.ts";

interface Contained {
  repo: string;
  reply: DisableReply;
}

function realWorkspace(ctx: ToolContext): string {
  try {
    return realpathSync(ctx.workspaceRoot);
  } catch {
    return ctx.workspaceRoot;
  }
}

/**
 * With --allow-git-writes a command can register the repository it made (`git add sub`); a worker
 * started after that would see `sub/.git` as a registered submodule's, mounted read-only, and could
 * not rename it. So the worker the rename uses is started before the command, with its mounts.
 * Also: the nested repositories already in the work tree are kept read-only for the command.
 */
export async function prepareContainment(
  ctx: ToolContext,
  before: { top: string; entries: Map<string, { code: string }> },
): Promise<void> {
  const sandbox = sandboxOf(ctx);
  // repositories already there (`?? sub/`): the command gets their `.git` read-only
  const here = [...before.entries]
    .filter(([path, e]) => e.code === "??" && path.endsWith("/"))
    .map(([path]) => relative(realWorkspace(ctx), join(before.top, path.slice(0, -1))));
  if (here.length) sandbox.keepRepositories(here.filter((r) => r && !r.startsWith("..")));
  if (!sandbox.gitWritesAllowed) return;
  await filesOf(ctx, ctx.humanApproved === true)
    .read({ path: ctx.workspaceRoot, wholeMax: 0, window: 0, statOnly: true })
    .catch(() => undefined);
}

/** Renames the `.git` of each new repository (where there is one) and says what was done. */
export async function containRepositories(
  ctx: ToolContext,
  top: string,
  outcome: ToolOutcome,
  repos: readonly string[],
): Promise<ToolOutcome> {
  const files = filesOf(ctx, ctx.humanApproved === true);
  const results: Contained[] = [];
  for (const repo of repos) {
    if (repo === ".") {
      results.push({ repo, reply: { done: false, reason: "it has no .git entry" } });
      continue;
    }
    const reply = await files
      .disableRepository({ path: join(top, repo) })
      .catch((e: Error) => ({ done: false as const, reason: e.message }));
    results.push({ repo, reply });
  }
  const { note, warning } = repositoryNotes(top, results);
  return {
    ...outcome,
    output: `${outcome.output.replace(/\n?$/, "\n")}${note}`,
    warnings: [...(outcome.warnings ?? []), { code: "nested_git_repository", message: warning }],
  };
}

/** What the model (note) and the user (warning) are told. */
export function repositoryNotes(
  top: string,
  results: readonly Contained[],
): { note: string; warning: string } {
  const done = results.filter((r) => r.reply.done);
  const kept = results.filter((r) => !r.reply.done);
  const notes: string[] = [];
  const warnings: string[] = [];
  if (done.length) {
    const moves = done.map((r) => {
      const to = r.reply.done ? relative(top, r.reply.to) : "";
      return { from: `${r.repo}/.git`, to };
    });
    const list = moves.map((m) => `${m.from} -> ${m.to}`).join(", ");
    const undoCmd = moves.map((m) => `mv ${m.to} ${m.from}`).join(" && ");
    notes.push(
      `chatcli: this command created a git repository (${done.map((r) => `${r.repo}/`).join(", ")}); a config or hook in it would run wherever git enters it — \`git add -A\` makes it a submodule that the next \`git status\` enters — so chatcli renamed ${list}. It is a plain directory now. If the task needs it as a repository, say so to the user: they can inspect it and undo with \`${undoCmd}\`.`,
    );
    warnings.push(
      `a command created the git repository ${done.map((r) => `${r.repo}/`).join(", ")} in the workspace; so that no git of yours obeys its config (core.fsmonitor, hooks) chatcli renamed ${list} — it is now a plain directory. To keep it as a repository, inspect it (git --git-dir=${moves[0]?.to} config --list --show-origin; ls ${moves[0]?.to}/hooks) and undo: ${undoCmd}`,
    );
  }
  if (kept.length) {
    const list = kept.map((r) => `${r.repo}/`).join(", ");
    const why = kept.map((r) => `${r.repo}/: ${r.reply.done ? "" : r.reply.reason}`).join("; ");
    notes.push(
      `chatcli: this command created a git repository at ${list}; its config can run programs when git runs inside it, and \`git add\` would make it a submodule that the next \`git status\` enters. It was left as it is (${why}): remove it unless the task needs it.`,
    );
    warnings.push(
      `a command created the git repository ${list} in the workspace and chatcli left it as it is (${why}): git at the workspace root does not enter it, but \`git add -A\` would register it as a submodule whose config (core.fsmonitor, hooks) your next git status runs — inspect it (git -C ${kept[0]?.repo} config --list --show-origin) or remove it first`,
    );
  }
  return { note: notes.join("\n"), warning: warnings.join("; ") };
}
