/**
 * Makes a git repository a command created inside the work tree inert: `<sub>/.git` (a directory, a
 * gitfile or a link — the entry itself, never what it points at) is renamed to
 * `<sub>/.git.chatcli-disabled`. Git then sees `sub` as a plain directory: the user's `git add -A`
 * adds its files, never a gitlink, and no git anywhere obeys a config, hook or fsmonitor the command
 * chose. Runs in the sandboxed file worker (which sees only the run's mounts) or, with no sandbox in
 * force, in chatcli — in both through descriptors: every directory from the workspace down to `sub`
 * is opened with O_NOFOLLOW and the rename is done through `/proc/self/fd/N/`, so a link put in the
 * way (`sub -> /elsewhere`, `vendor -> ../..`) refuses the rename; nothing outside the workspace, and
 * nothing a link leads to inside it, is ever renamed. Never in bypass mode.
 */
import { closeSync, constants, lstatSync, openSync, renameSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { at, DIR_FLAGS, type Dir, type FileGuard, readRefused } from "./walk.ts";

export interface DisableRequest {
  /** The repository's work tree: an absolute path in the workspace. */
  path: string;
}

export type DisableReply =
  | { done: true; from: string; to: string }
  | { done: false; reason: string };

export const DISABLED_NAME = ".git.chatcli-disabled";

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function disableRepository(guard: FileGuard, req: DisableRequest): DisableReply {
  if (guard.bypass) return { done: false, reason: "bypass mode: chatcli changes nothing" };
  const rel = relative(guard.workspaceReal, req.path);
  const fromWs = relative(guard.workspace, req.path);
  const inside = [rel, fromWs].find((r) => r !== "" && !r.startsWith("..") && !r.startsWith(sep));
  if (inside === undefined)
    return { done: false, reason: `${req.path} is not inside the workspace` };
  const parts = inside.split(sep).filter((c) => c && c !== ".");
  if (parts.includes("..") || parts.includes(".git"))
    return { done: false, reason: `${req.path} is not a work tree chatcli renames in` };
  const chain: Dir[] = [];
  try {
    chain.push({
      fd: openSync(guard.workspaceReal, DIR_FLAGS & ~constants.O_NOFOLLOW),
      path: guard.workspaceReal,
    });
    for (const name of parts) {
      const dir = chain[chain.length - 1] as Dir;
      const path = join(dir.path, name);
      if (readRefused(guard, path)) return { done: false, reason: `${path} is a protected path` };
      let fd: number;
      try {
        fd = openSync(at(dir, name), DIR_FLAGS);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR")
          return {
            done: false,
            reason: `${path} is no longer a directory (a link?); nothing was renamed`,
          };
        throw error;
      }
      chain.push({ fd, path });
    }
    const sub = chain[chain.length - 1] as Dir;
    if (!exists(at(sub, ".git"))) return { done: false, reason: "it has no .git entry" };
    let target = DISABLED_NAME;
    for (let i = 2; exists(at(sub, target)); i++) {
      if (i > 100) return { done: false, reason: `${sub.path}: no free name for ${DISABLED_NAME}` };
      target = `${DISABLED_NAME}-${i}`;
    }
    renameSync(at(sub, ".git"), at(sub, target));
    return { done: true, from: join(sub.path, ".git"), to: join(sub.path, target) };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { done: false, reason: `${req.path}: ${e.code ?? e.message}` };
  } finally {
    for (const d of chain) closeSync(d.fd);
  }
}
