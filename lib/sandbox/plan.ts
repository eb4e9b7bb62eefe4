/** The file-system facts a sandbox plan needs, gathered fresh for each process (links resolved). */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { underEmptied } from "./bwrap.ts";
import { isUnder } from "./deny.ts";
import { gitlinkPaths } from "./gitlinks.ts";
import { type HomeView, hiddenInHome } from "./home.ts";

function kindOf(path: string): "dir" | "file" | "missing" {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

function lstatKind(path: string): "dir" | "file" | "link" | "missing" {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() ? "link" : s.isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

function isEmptyDir(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export interface Protected {
  /** Directories bound onto themselves, so they are mount points: they cannot be renamed or replaced. */
  pinned: string[];
  /** Existing paths bound read-only. */
  existing: string[];
  /** Missing directories covered by an empty read-only tmpfs (bwrap creates the mount point). */
  missingDirs: string[];
  /** Missing files chatcli creates (with this content) and binds read-only, removed afterwards. */
  missingFiles: Array<{ path: string; content: string }>;
}

/**
 * What stays read-only inside a writable workspace. By default the whole git directory (Codex's
 * default): nothing the user's next `git status`, `commit`, `fetch` or `tag` reads or writes there —
 * config, config.worktree, hooks, refs, logs, objects, COMMIT_EDITMSG, FETCH_HEAD, a rebase's todo —
 * can be planted or replaced by a link. With `allowGitWrites` (--allow-git-writes) the git directory
 * is writable but pinned (bound onto itself: `mv .git .git-old && mkdir .git` cannot plant a new
 * config), with its hooks, config, config.worktree (an empty one stands in when missing) and every
 * file that redirects git to another config (`commondir`, submodules' and worktrees' git dirs)
 * read-only. Either way: every submodule the index records keeps its `.git` read-only (or its empty
 * directory, or — when the checkout is missing — the first missing directory on its path), `.chatcli/`
 * is read-only, and a workspace that is not a repository gets an empty read-only `.git`.
 */
export function protectedInside(
  workspace: string,
  allowGitWrites = false,
  hooksDirs: readonly string[] = [],
): Protected {
  const out: Protected = { pinned: [], existing: [], missingDirs: [], missingFiles: [] };
  const gitPath = join(workspace, ".git");
  let kind: "dir" | "file" | "missing" = "missing";
  try {
    kind = lstatSync(gitPath).isDirectory() ? "dir" : "file";
  } catch {
    // not a git work tree
  }
  // `.git` as a file (a worktree or submodule) names the real git dir: it must not be repointed.
  if (kind === "file") out.existing.push(gitPath);
  if (kind === "missing") out.missingDirs.push(gitPath);
  if (kind === "dir" && !allowGitWrites) out.existing.push(gitPath);
  if (kind === "dir" && allowGitWrites) {
    out.pinned.push(gitPath);
    for (const name of ["hooks", "modules", "worktrees"]) {
      const p = join(gitPath, name);
      (kindOf(p) === "missing" ? out.missingDirs : out.existing).push(p);
    }
    out.existing.push(join(gitPath, "config"));
    // read only when `extensions.worktreeConfig` is set — and then it may set core.fsmonitor
    const worktree = join(gitPath, "config.worktree");
    if (kindOf(worktree) === "missing") out.missingFiles.push({ path: worktree, content: "" });
    else out.existing.push(worktree);
    // a `commondir` file would send git to a config of the command's choosing; "." is git's own dir
    const commondir = join(gitPath, "commondir");
    if (kindOf(commondir) === "missing") out.missingFiles.push({ path: commondir, content: ".\n" });
    else out.existing.push(commondir);
  }
  if (kind === "dir") gitlinkCheckouts(workspace, join(gitPath, "index"), out);
  for (const dir of hooksDirs) coverInside(workspace, dir, out);
  const chatcli = join(workspace, ".chatcli");
  (kindOf(chatcli) === "missing" ? out.missingDirs : out.existing).push(chatcli);
  return out;
}

/**
 * A directory git runs code from (core.hooksPath) stays read-only: an existing one is bound
 * read-only; a missing one gets an empty read-only directory at the first missing component of its
 * path (removed afterwards), so nothing can be created there; a link on the way is not looked
 * through (git would follow it, but its target outside the workspace is read-only anyway, and one
 * inside is named by its own path when git resolves it).
 */
function coverInside(workspace: string, target: string, out: Protected): void {
  const rel = relative(workspace, target);
  if (!rel || rel.startsWith("..")) return;
  let dir = workspace;
  for (const part of rel.split("/")) {
    dir = join(dir, part);
    const k = lstatKind(dir);
    if (k === "dir") continue;
    if (k === "missing") out.missingDirs.push(dir);
    else out.existing.push(dir);
    return;
  }
  out.existing.push(dir);
}

/**
 * A submodule's `.git` (a dir, or a file naming one) is config the user's `git status` obeys — it
 * recurses into every populated submodule the index records. Each one's `.git` stays read-only; an
 * unpopulated one's empty directory stays read-only (so no `.git` appears in it and git still sees
 * an unpopulated submodule); a missing checkout gets an empty read-only directory at the first
 * missing component of its path (removed afterwards), and a checkout with files but no `.git` an
 * empty read-only `.git`, so no repository can be made there either.
 */
function gitlinkCheckouts(workspace: string, index: string, out: Protected): void {
  for (const rel of gitlinkPaths(index)) {
    const parts = rel.split("/");
    if (parts.some((c) => c === ".." || c === "." || c === "")) continue;
    let dir = workspace;
    let covered = false;
    for (const part of parts) {
      dir = join(dir, part);
      const k = lstatKind(dir);
      if (k === "dir") continue;
      // a link or a file on the way: git does not look through it; nothing to cover
      if (k === "missing") out.missingDirs.push(dir);
      covered = true;
      break;
    }
    if (covered) continue;
    const dotGit = join(dir, ".git");
    const k = lstatKind(dotGit);
    if (k === "missing" && isEmptyDir(dir)) out.existing.push(dir);
    // files but no `.git` (one chatcli renamed to .git.chatcli-disabled): no `.git` may appear
    else if (k === "missing") out.missingDirs.push(dotGit);
    else if (k === "dir" || k === "file") out.existing.push(dotGit);
  }
}

/**
 * The `.git` (a directory or a gitfile, never a link; no link on the way) of each nested repository
 * that was in the work tree before a command (`rels`, relative to `workspace`): kept read-only, so a
 * command cannot give a repository the user already had a config or hook that their next git obeys.
 */
export function nestedGitDirs(workspace: string, rels: Iterable<string>): string[] {
  const out: string[] = [];
  for (const rel of rels) {
    const parts = rel.split("/");
    if (parts.some((c) => c === ".." || c === "." || c === "" || c === ".git")) continue;
    let dir = workspace;
    let ok = true;
    for (const part of parts) {
      dir = join(dir, part);
      if (lstatKind(dir) !== "dir") {
        ok = false;
        break;
      }
    }
    const dotGit = join(dir, ".git");
    const k = ok ? lstatKind(dotGit) : "missing";
    if (k === "dir" || k === "file") out.push(dotGit);
  }
  return out;
}

/** Files under HOME that later run code outside the sandbox (shell start-up, user config, PATH dirs). */
const HOME_STARTUP = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".gitconfig",
  ".config",
  ".local",
  ".cargo",
  ".bun",
  ".pam_environment",
  ".xprofile",
  ".xsessionrc",
];
/** Missing ones whose empty stand-in changes nothing (an empty .profile would: bash skips others). */
const EMPTY_IS_NEUTRAL = new Set([".bashrc", ".zshrc", ".gitconfig"]);
const DIRS = new Set([".config", ".local", ".cargo", ".bun"]);

/**
 * When the writable workspace is the home directory (or holds it), the files a shell or git reads
 * at start-up stay read-only: a command must not leave code for the user's next terminal.
 */
export function protectedHome(home: string, out: Protected): void {
  for (const name of HOME_STARTUP) {
    const p = join(home, name);
    if (kindOf(p) !== "missing") out.existing.push(p);
    else if (DIRS.has(name)) out.missingDirs.push(p);
    else if (EMPTY_IS_NEUTRAL.has(name)) out.missingFiles.push({ path: p, content: "" });
  }
}

/**
 * Denied paths that exist, split into directories and files, with links resolved (a mount covers
 * the target). Paths that are hidden anyway (under an emptied dir and not re-exposed, or in the
 * empty HOME and not shown) are skipped.
 */
export function existingDenied(
  denied: readonly string[],
  visible: readonly string[],
  home?: Pick<HomeView, "homes" | "visible">,
): { dirs: string[]; files: string[] } {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const p of denied) {
    const target = real(p);
    const kind = kindOf(target);
    if (kind === "missing") continue;
    if (underEmptied(target) && !isUnder(target, visible)) continue;
    if (home && hiddenInHome(home, target)) continue;
    (kind === "dir" ? dirs : files).add(target);
  }
  return { dirs: [...dirs], files: [...files] };
}

export { real as realPathOrSelf };
