/**
 * Hard links to protected files. A hard link is the file itself under another name: a workspace
 * that ships one (a tar or zip checkout can; git cannot) to `~/.ssh/id_rsa` reads the key through
 * any path check. Only a file with more than one link can be reached so, so the rule is precise: a
 * regular file with `st_nlink > 1` whose (device, inode) is that of a protected or hidden file is
 * refused. The set is computed once per run on the host: every file of the deny list (credential
 * stores, CHATCLI_HOME, deny_read; bounded walk) and the files of the hidden HOME a shallow scan
 * reaches (depth 3: ~/.m2/settings.xml, ~/.config/x/y; caches and package stores skipped — pnpm's, bun's and uv's hard links into
 * node_modules and .venv come from there and stay readable). The file tools refuse such a file;
 * the OS sandbox covers each of its links in the workspace with /dev/null (layout.ts).
 */
import { type Dirent, lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { hiddenInHome } from "./home.ts";

/** `dev:ino` of a file, as the walk and the worker both spell it. */
export function inodeKey(st: Pick<Stats, "dev" | "ino">): string {
  return `${st.dev}:${st.ino}`;
}

/** How deep and how wide the scans go (a bounded cost at the start of a run). */
export const DENIED_MAX_ENTRIES = 5000;
export const HOME_MAX_DEPTH = 3;
export const HOME_MAX_ENTRIES = 20000;

/** Directories of HOME the scan does not enter: caches and package stores, big and secret-free. */
const STORES = new Set([
  ".cache",
  ".npm",
  ".pnpm-store",
  ".bun",
  ".yarn",
  ".rustup",
  ".nvm",
  ".pyenv",
  ".conda",
  ".vscode-server",
  "node_modules",
  "go",
  "snap",
  "Library",
]);
/** Under ~/.local/share: package stores (pnpm's store, uv's cache, pipx) are not entered. */
const SHARE_STORES = new Set(["pnpm", "uv", "pipx", "virtualenvs", "Trash", "containers"]);

export interface LinkedSet {
  /** `dev:ino` of the protected or hidden files that have more than one link. */
  keys: string[];
  /** Entries looked at (for the dev note's numbers). */
  scanned: number;
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function statOr(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function lstatOr(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The (dev, ino) of every protected file with more than one link: each entry of `denied` (a file,
 * or a directory walked to DENIED_MAX_ENTRIES), and with `home` the hidden files of HOME a scan of
 * depth HOME_MAX_DEPTH reaches (stores skipped).
 */
export function linkedProtected(
  denied: readonly string[],
  home?: { home: string; homes: string[]; visible: string[] },
): LinkedSet {
  const keys = new Set<string>();
  let scanned = 0;
  const consider = (st: Stats | undefined) => {
    if (st?.isFile() && st.nlink > 1) keys.add(inodeKey(st));
  };
  for (const root of new Set(denied)) {
    let budget = DENIED_MAX_ENTRIES;
    const walk = (path: string, depth: number) => {
      // a deny-listed entry that is itself a link (~/.ssh -> /secure/ssh) is followed; nothing inside is
      const st = depth === 0 ? statOr(path) : lstatOr(path);
      scanned++;
      if (--budget <= 0 || !st) return;
      if (!st.isDirectory()) return consider(st);
      if (depth > 8) return;
      for (const e of entries(path)) walk(join(path, e.name), depth + 1);
    };
    walk(root, 0);
  }
  if (home) {
    let budget = HOME_MAX_ENTRIES;
    const walk = (dir: string, depth: number) => {
      for (const e of entries(dir)) {
        if (--budget <= 0) return;
        scanned++;
        const path = join(dir, e.name);
        // shown to the run (readable anyway); a directory on the way to a shown path is entered
        if (!hiddenInHome(home, path) && !e.isDirectory()) continue;
        if (home.visible.some((v) => path === v || path.startsWith(`${v}/`))) continue;
        if (e.isFile()) consider(lstatOr(path));
        else if (e.isDirectory() && depth < HOME_MAX_DEPTH) {
          if (STORES.has(e.name) || (dir.endsWith("/.local/share") && SHARE_STORES.has(e.name)))
            continue;
          walk(path, depth + 1);
        }
      }
    };
    walk(home.home, 1);
  }
  return { keys: [...keys], scanned };
}

/**
 * The paths under `root` (a workspace) that are links to one of `keys`: a stat walk of every
 * regular file with more than one link, done only when some key lies on the workspace's device.
 */
export function linksInside(root: string, keys: readonly string[]): string[] {
  const st = lstatOr(root);
  if (!st || keys.length === 0) return [];
  const wanted = new Set(keys);
  if (!keys.some((k) => k.startsWith(`${st.dev}:`))) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of entries(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        const s = lstatOr(path);
        if (s && s.nlink > 1 && wanted.has(inodeKey(s))) out.push(path);
      }
    }
  };
  walk(root);
  return out;
}
