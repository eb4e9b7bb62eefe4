/**
 * Path resolution for chatcli's own file tools that a concurrent process cannot redirect: an
 * openat-style walk, one component at a time, each directory held open as a descriptor and the next
 * component opened relative to it (`/proc/self/fd/N/name`, which the kernel resolves through the open
 * directory itself, never through its path again) with O_NOFOLLOW. A link is expanded by the walk,
 * not by the kernel, so every step is checked: a path inside the workspace never leaves it through a
 * link (`sub -> /outside`, `sub -> ../..`), and no step lands on a protected path. A link swapped in
 * between the check and the use changes nothing: the use goes through the descriptors of the check.
 *
 * Bun and Node have no openat(2) or openat2(RESOLVE_BENEATH); `/proc/self/fd/N/name` gives the same
 * guarantee on Linux (inside bwrap too: the sandbox mounts its own /proc). Without /proc (macOS) the
 * same walk runs on path strings: every link is still checked, but a swap between two steps is not
 * excluded there — on macOS the Seatbelt sandbox is what holds.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  type Stats,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { hiddenInHome } from "./home.ts";

/** What the walk enforces (plain data: it crosses the pipe to the sandboxed worker). */
export interface FileGuard {
  /** The workspace as the run names it, and with links resolved. */
  workspace: string;
  workspaceReal: string;
  /** bypass mode: links are followed anywhere and nothing is refused. */
  bypass: boolean;
  /** Absolute paths no read or write reaches (credential stores, CHATCLI_HOME, deny_read). */
  denied: string[];
  /** Regex sources of paths no read reaches whatever the pid (`/proc/<pid>/environ`). */
  patterns: string[];
  /**
   * HOME by allowlist (home.ts): under `homes` only `visible` (and the directories on the way to
   * it) is read. Absent when HOME is not hidden (bypass, or the workspace is HOME).
   */
  home?: { homes: string[]; visible: string[] };
  /**
   * `dev:ino` of the protected and hidden files that have other links (hardlinks.ts): a file in the
   * workspace that is one of them is refused, read or written.
   */
  linked?: string[];
}

/** A refusal the model can act on (the tool returns it as its error). */
export class Refusal extends Error {}

export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const MAX_HOPS = 40;
/** How often one step is retried when the entry changed between its lstat and its open. */
const MAX_RETRIES = 1000;

let procUsable: boolean | undefined;
/** Whether `/proc/self/fd/N/name` resolves through descriptors here (Linux with /proc mounted). */
export function procFdUsable(): boolean {
  if (procUsable !== undefined) return procUsable;
  try {
    const fd = openSync("/", DIR_FLAGS & ~constants.O_NOFOLLOW);
    try {
      procUsable = lstatSync(`/proc/self/fd/${fd}/.`).isDirectory();
    } finally {
      closeSync(fd);
    }
  } catch {
    procUsable = false;
  }
  return procUsable;
}

/** An open directory: its descriptor and its logical path (links expanded, so it is exact). */
export interface Dir {
  fd: number;
  path: string;
}

/** The path to hand a syscall for `name` inside `dir` (through the descriptor where possible). */
export function at(dir: Dir, name: string): string {
  return procFdUsable() ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.path, name);
}

/** An entry a walk ended on, inside the directory that holds it (kept open until `close`). */
export interface Entry {
  dir: Dir;
  /** "." when the path is the directory itself (the workspace, or a path ending in `..`). */
  name: string;
  path: string;
  /** lstat of the entry; undefined when it does not exist. */
  stat: Stats | undefined;
  close(): void;
}

export interface WalkOptions {
  /** A write: the path must stay inside the workspace and off git internals and protected files. */
  write: boolean;
  /** Create missing parent directories (write_file). */
  createParents?: boolean;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

function openDirFd(path: string): number | undefined {
  try {
    return openSync(path, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // a link or a file swapped in since the lstat, or the entry gone: the step is tried again
    if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") return undefined;
    throw error;
  }
}

const compiled = new Map<string, RegExp>();

/** Why a read of `path` is refused, in words the model can act on; undefined when it is not. */
export function readRefusal(guard: FileGuard, path: string): string | undefined {
  if (guard.home && !guard.bypass && hiddenInHome(guard.home, path))
    return `${path} is in your home directory, which this run hides except the workspace, the toolchain set and the paths you allow; pass --allow-read ${path} (or add it to sandbox.allow_read in ~/.chatcli/config.json) to let the run read it`;
  if (readRefused(guard, path))
    return `${path} is a protected path; it is not read in any mode but bypass`;
  return undefined;
}

/** Whether a read of `path` is refused (credential stores, chatcli's home, another process's env, a hidden HOME). */
export function readRefused(guard: FileGuard, path: string): boolean {
  if (guard.bypass) return false;
  if (guard.home && hiddenInHome(guard.home, path)) return true;
  // the walk's paths are absolute and normalised: a prefix test is exact (and cheap per step)
  for (const d of guard.denied)
    if (path === d || path.startsWith(d.endsWith(sep) ? d : d + sep)) return true;
  return guard.patterns.some((p) => {
    let re = compiled.get(p);
    if (!re) {
      re = new RegExp(p);
      compiled.set(p, re);
    }
    return re.test(path);
  });
}

const linkedSets = new WeakMap<FileGuard, Set<string>>();

/** Whether `st` is a hard link to a protected or hidden file (the guard's `linked`). */
export function linkedRefused(guard: FileGuard, st: Stats | undefined): boolean {
  if (guard.bypass || !guard.linked?.length || !st?.isFile() || st.nlink < 2) return false;
  let set = linkedSets.get(guard);
  if (!set) {
    set = new Set(guard.linked);
    linkedSets.set(guard, set);
  }
  return set.has(`${st.dev}:${st.ino}`);
}

/** The refusal of a hard link to a protected file (the same words for every tool). */
export function linkedRefusal(path: string): Refusal {
  return new Refusal(
    `${path} is a hard link to a protected file (a credential store, or a file in your home directory this run hides); it is not read or written in any mode but bypass`,
  );
}

/** Why a write to `path` is refused: git internals, the project's chatcli config, a protected path. */
function writeRefusal(guard: FileGuard, path: string): string | undefined {
  if (guard.bypass) return undefined;
  if (path.split(sep).includes(".git") || /\/\.chatcli\/config\.json$/.test(path))
    return `${path} is protected (git internals and .chatcli/config.json are not written by tools)`;
  if (readRefused(guard, path)) return `${path} is a protected path; it is not written`;
  return undefined;
}

/** Whether `path` (lexically) lies in the workspace, by either of its names; the part inside it. */
function insideWorkspace(guard: FileGuard, path: string): string | undefined {
  for (const root of [guard.workspaceReal, guard.workspace]) {
    if (path === root) return "";
    if (path.startsWith(root.endsWith(sep) ? root : root + sep)) return relative(root, path);
  }
  return undefined;
}

/**
 * Resolves `abs` to the entry it names, one component at a time (see the file's comment). A path in
 * the workspace is walked from the workspace and may not leave it; another path (a read of
 * /usr/include/…) is walked from `/`. Throws Refusal for a path the guard refuses; returns an entry
 * without `stat` when it does not exist.
 */
export function resolveEntry(abs: string, guard: FileGuard, opts: WalkOptions): Entry {
  const inside = guard.bypass ? undefined : insideWorkspace(guard, abs);
  if (opts.write && inside === undefined && !guard.bypass)
    throw new Refusal(`${abs} is outside the workspace ${guard.workspace}`);
  const anchor = inside === undefined ? "/" : guard.workspaceReal;
  const beneath = inside !== undefined;
  const chain: Dir[] = [{ fd: openSync(anchor, DIR_FLAGS & ~constants.O_NOFOLLOW), path: anchor }];
  const top = () => chain[chain.length - 1] as Dir;
  const closeFrom = (keep: number) => {
    while (chain.length > keep) closeSync((chain.pop() as Dir).fd);
  };
  const finish = (name: string, stat: Stats | undefined): Entry => {
    const dir = chain.pop() as Dir;
    closeFrom(0);
    const path = name === "." ? dir.path : join(dir.path, name);
    return { dir, name, path, stat, close: () => closeSync(dir.fd) };
  };
  let via: { link: string; target: string } | undefined;
  const outside = () =>
    new Refusal(
      via
        ? `${via.link} is a symbolic link to ${via.target}, outside the workspace; it is not followed (replace the link with a file, or name the target itself)`
        : `${abs} leads outside the workspace`,
    );
  const queue = (beneath ? (inside as string) : abs).split(sep).filter((c) => c && c !== ".");
  let hops = 0;
  let retries = 0;
  try {
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (name === "..") {
        if (chain.length > 1) closeFrom(chain.length - 1);
        else if (beneath) throw outside();
        continue;
      }
      const dir = top();
      const here = join(dir.path, name);
      const st = lstatOrUndefined(at(dir, name));
      if (st?.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(at(dir, name));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== "EINVAL" && code !== "ENOENT") throw error;
          // no longer a link (swapped back since the lstat): look again
          if (++retries > MAX_RETRIES) throw new Refusal(`${here} keeps changing; try again`);
          queue.unshift(name);
          continue;
        }
        if (++hops > MAX_HOPS) throw new Refusal(`${abs}: too many levels of symbolic links`);
        via = { link: here, target };
        const parts = target.split(sep).filter((c) => c && c !== ".");
        if (target.startsWith(sep)) {
          if (beneath) {
            const rest = insideWorkspace(guard, target);
            if (rest === undefined) throw outside();
            closeFrom(1);
            queue.unshift(...rest.split(sep).filter((c) => c && c !== "."));
          } else {
            closeFrom(1);
            queue.unshift(...parts);
          }
        } else queue.unshift(...parts);
        continue;
      }
      if (queue.length === 0) {
        checkFinal(guard, here, opts);
        if (linkedRefused(guard, st)) throw linkedRefusal(here);
        return finish(name, st);
      }
      if (!st) {
        if (!opts.createParents) return finish(name, undefined);
        checkFinal(guard, here, opts);
        try {
          mkdirSync(at(dir, name));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
        queue.unshift(name);
        continue;
      }
      if (!st.isDirectory()) {
        const error = new Error(`${here} is not a directory`) as NodeJS.ErrnoException;
        error.code = "ENOTDIR";
        throw error;
      }
      const fd = openDirFd(at(dir, name));
      const now = fd === undefined ? undefined : fstatSync(fd);
      if (fd === undefined || now?.ino !== st.ino || now.dev !== st.dev) {
        // changed between lstat and open: look again (a link now is expanded and checked)
        if (fd !== undefined) closeSync(fd);
        if (++retries > MAX_RETRIES) throw new Refusal(`${here} keeps changing; try again`);
        queue.unshift(name);
        continue;
      }
      chain.push({ fd, path: here });
      const refused = opts.write ? undefined : readRefusal(guard, here);
      if (refused) throw new Refusal(refused);
    }
    // the path is a directory the walk stands in (the workspace itself, or it ended in `..`)
    const dir = top();
    checkFinal(guard, dir.path, opts);
    return finish(".", fstatSync(dir.fd));
  } catch (error) {
    closeFrom(0);
    throw error;
  }
}

function checkFinal(guard: FileGuard, path: string, opts: WalkOptions): void {
  if (opts.write) {
    const refusal = writeRefusal(guard, path);
    if (refusal) throw new Refusal(refusal);
  } else {
    const refused = readRefusal(guard, path);
    if (refused) throw new Refusal(refused);
  }
}

/**
 * Resolves `abs` and, when it names a link (swapped in after the walk looked), resolves again: the
 * entry returned is never a link. `use` runs on it; the entry is closed afterwards.
 */
export function withEntry<T>(
  abs: string,
  guard: FileGuard,
  opts: WalkOptions,
  use: (entry: Entry) => T | "retry",
): T {
  for (let i = 0; ; i++) {
    const entry = resolveEntry(abs, guard, opts);
    try {
      const out = use(entry);
      if (out !== "retry") return out;
    } finally {
      entry.close();
    }
    if (i >= MAX_RETRIES) throw new Refusal(`${abs} keeps changing; try again`);
  }
}
