import { lstatSync } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { gitSafeArgs } from "../sandbox/env.ts";
import { containRepositories, prepareContainment } from "./nested-repos.ts";
import { sandboxOf } from "./tools/common.ts";
import type { FileChange, ToolContext, ToolOutcome } from "./types.ts";

/** The changed and untracked files of a git work tree (relative to its top), with a size+mtime print. */
export interface TreeSnapshot {
  top: string;
  entries: Map<string, { code: string; print: string }>;
}

const MAX_ENTRIES = 5000;
/** The work tree's top per run ("" outside git), asked once. */
const tops = new WeakMap<ToolContext, string>();

/**
 * What `git status` says is changed in the workspace's work tree, so a command's edits (sed -i,
 * formatters, code generators) reach files_changed. Undefined outside git or for huge trees.
 */
export async function snapshotTree(ctx: ToolContext): Promise<TreeSnapshot | undefined> {
  const sandbox = sandboxOf(ctx);
  const git = (args: string[]) =>
    sandbox.run(["git", ...gitSafeArgs(), ...args], {
      cwd: ctx.workspaceRoot,
      env: { ...sandbox.childEnv(ctx.env), GIT_OPTIONAL_LOCKS: "0" },
      timeoutMs: 10_000,
      signal: ctx.signal,
      maxBytes: 4_000_000,
    });
  let root = tops.get(ctx);
  if (root === undefined) {
    const top = await git(["rev-parse", "--show-toplevel"]).catch(() => undefined);
    root = top && top.exitCode === 0 ? top.stdout.trim() : "";
    tops.set(ctx, root);
  }
  if (!root) return undefined;
  const status = await git(["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  if (status.exitCode !== 0 || status.stdout.length >= 3_900_000) return undefined;
  const fields = status.stdout.split("\0");
  if (fields.length > MAX_ENTRIES) return undefined;
  const entries = new Map<string, { code: string; print: string }>();
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    if (code[0] === "R" || code[0] === "C") i++; // the next field is the rename's source
    const path = field.slice(3);
    const s = await stat(join(root, path)).catch(() => undefined);
    entries.set(path, { code, print: s ? `${s.size}:${s.mtimeMs}` : "gone" });
  }
  return { top: root, entries };
}

/** The files whose state differs between two snapshots. */
export function treeChanges(before: TreeSnapshot, after: TreeSnapshot): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, now] of after.entries) {
    const was = before.entries.get(path);
    if (was && was.print === now.print) continue;
    const created = !was && (now.code === "??" || now.code[0] === "A");
    const change = now.print === "gone" ? "deleted" : created ? "created" : "modified";
    out.push({ path: join(after.top, path), change });
  }
  for (const [path, was] of before.entries)
    if (!after.entries.has(path))
      out.push({
        path: join(before.top, path),
        change: was.print === "gone" ? "created" : "modified",
      });
  return out;
}

/**
 * Git repositories a command created inside the work tree: an untracked directory git lists as
 * `?? sub/` (a `.git` directory or gitfile in it — git lists nothing else that way), a directory that
 * gained `HEAD` beside `objects/` and `refs/` (a bare repository), and — with `--allow-git-writes` —
 * a submodule it registered (`A  sub` with a `.git`). Git at the workspace root never enters an
 * unregistered one, but git run inside it obeys its config (core.fsmonitor, hooks), and `git add -A`
 * would register it as a submodule that the next `git status` enters: nested-repos.ts makes it inert.
 */
export function newRepositories(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const out = new Set<string>();
  const exists = (rel: string) => {
    try {
      lstatSync(join(after.top, rel));
      return true;
    } catch {
      return false;
    }
  };
  for (const [path, now] of after.entries) {
    if (before.entries.has(path)) continue;
    if (now.code === "??" && path.endsWith("/")) out.add(path.slice(0, -1));
    else if (now.code[0] === "A" && exists(join(path, ".git"))) out.add(path);
    else if (now.code === "??" && (path === "HEAD" || path.endsWith("/HEAD"))) {
      const dir = path.slice(0, -"HEAD".length).replace(/\/$/, "");
      if (exists(join(dir, "objects")) && exists(join(dir, "refs"))) out.add(dir || ".");
    }
  }
  return [...out].sort();
}

/**
 * size+mtime of every file at or under each path ("gone" for a path that does not exist): the
 * files a command names as its targets (`rm -rf build`, `> out.txt`, `sed -i`), git-ignored or not.
 */
export async function snapshotPaths(paths: readonly string[]): Promise<Map<string, string>> {
  const prints = new Map<string, string>();
  const print = async (path: string) => {
    const s = await stat(path).catch(() => undefined);
    prints.set(path, s ? `${s.size}:${s.mtimeMs}` : "gone");
  };
  for (const path of paths) {
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      await print(path);
      continue;
    }
    const entries = await readdir(path, { recursive: true, withFileTypes: true }).catch(() => []);
    const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    for (const file of files.sort()) {
      if (prints.size >= MAX_ENTRIES) break;
      await print(file);
    }
  }
  return prints;
}

/** The files whose state differs between two snapshotPaths prints. */
export function pathChanges(before: Map<string, string>, after: Map<string, string>): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, now] of after) {
    const was = before.get(path);
    if (was === now) continue;
    if (now === "gone") {
      if (was !== undefined) out.push({ path, change: "deleted" });
    } else out.push({ path, change: was === undefined || was === "gone" ? "created" : "modified" });
  }
  for (const [path, was] of before)
    if (!after.has(path) && was !== "gone") out.push({ path, change: "deleted" });
  return out;
}

/**
 * Runs a command tool and adds the files its command changed to its outcome: those git status
 * sees change, and those at or under the paths the command names as targets (`rm -rf build`).
 */
export async function withTreeChanges(
  ctx: ToolContext,
  run: () => Promise<ToolOutcome>,
  targets: readonly string[] = [],
): Promise<ToolOutcome> {
  const before = await snapshotTree(ctx);
  const named = await snapshotPaths(targets);
  if (before) await prepareContainment(ctx, before);
  const outcome = await run();
  const after = before && (await snapshotTree(ctx));
  const repos = before && after ? newRepositories(before, after) : [];
  const flagged =
    before && repos.length ? await containRepositories(ctx, before.top, outcome, repos) : outcome;
  const changes = [
    ...(before && after ? treeChanges(before, after) : []),
    ...pathChanges(named, await snapshotPaths(targets)),
  ];
  if (changes.length === 0) return flagged;
  const seen = new Set((flagged.filesChanged ?? []).map((c) => c.path));
  const fresh = changes.filter((c) => !seen.has(c.path) && seen.add(c.path));
  return { ...flagged, filesChanged: [...(flagged.filesChanged ?? []), ...fresh] };
}
