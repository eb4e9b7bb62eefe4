/**
 * The bubblewrap command line for one sandboxed process (Linux). Pure: the facts about the file
 * system (what exists, what is a directory) come in with the plan, so the argv is unit-testable.
 *
 * Layout, in mount order (a later mount covers an earlier one):
 *   /            read-only view of the host
 *   /dev /proc   fresh: minimal devices; the proc of the new pid namespace (no host /proc/N/environ)
 *   /tmp         the run's private temp dir (the only writable place in read-only mode)
 *   /var/tmp /run /dev/shm   empty: host sockets (docker.sock, ssh-agent, dbus) are not reachable
 *   re-exposed   read-only paths that lived under those (the workspace or a tool under /tmp)
 *   HOME         an empty tmpfs, with only the workspace, the toolchain set, the masked git config
 *                and the paths the user allowed bound back read-only (home.ts)
 *   workspace    writable in edit/auto, with .git/hooks, .git/config and .chatcli/ read-only again
 *   denied       credential stores: an empty read-only tmpfs over a directory, /dev/null over a file
 */
export interface BwrapPlan {
  bwrap: string;
  /** The run's private temp dir on the host, bound at /tmp. */
  privateTmp: string;
  /** Paths bound read-write (the workspace in edit/auto). */
  writable: string[];
  /** Directories inside a writable one bound onto themselves (mount points cannot be renamed). */
  pinned: string[];
  /** Existing paths inside a writable one that are bound read-only again. */
  protectedPaths: string[];
  /** Missing directories inside a writable path that must not be created (an empty read-only tmpfs). */
  protectedMissingDirs: string[];
  /** Existing denied paths (links resolved). */
  deniedDirs: string[];
  deniedFiles: string[];
  /** Read-only files shown in place of others (a git config with CI credentials blanked). */
  overlays?: Array<{ src: string; dest: string }>;
  /** Paths to bind read-only again after /tmp, /run … were emptied (HOME, the workspace, cwd). */
  reexpose: string[];
  /** HOME (links resolved), covered by an empty tmpfs before `homeBinds`; unset: HOME as it is. */
  homeTmpfs?: string;
  /** Read-only binds into that tmpfs, parents first (home.ts, and the masked git configs). */
  homeBinds?: Array<{ src: string; dest: string }>;
  /** Host resolv.conf target to keep when the network is on and it lives under /run. */
  keepUnderRun: string[];
  network: boolean;
  cwd: string;
  /** The seccomp program is passed on fd 3 when set. */
  seccomp: boolean;
  /**
   * Variables for the command only, set by bwrap inside the sandbox (`--setenv`): the dynamic
   * loader's (`LD_PRELOAD` …), which bwrap itself must never see — it runs on the host, unconfined.
   */
  setenv?: Array<readonly [string, string]>;
}

/**
 * Variables the host's dynamic loader and C library act on when bwrap starts: `LD_PRELOAD=./evil.so`
 * (a committed library, named by a checkout's `.env`) would run its code inside bwrap before any
 * namespace exists. They reach the command through `--setenv` instead.
 */
const LOADER_ENV =
  /^(LD_|GLIBC_TUNABLES$|GCONV_PATH$|LOCPATH$|NLSPATH$|MALLOC_|HOSTALIASES$|RES_OPTIONS$|LOCALDOMAIN$|TZDIR$)/;

/** Splits an environment into what bwrap may be started with and what only the command gets. */
export function splitLoaderEnv(env: Record<string, string>): {
  host: Record<string, string>;
  inside: Array<readonly [string, string]>;
} {
  const host: Record<string, string> = {};
  const inside: Array<readonly [string, string]> = [];
  for (const [k, v] of Object.entries(env)) {
    if (LOADER_ENV.test(k)) inside.push([k, v]);
    else host[k] = v;
  }
  return { host, inside };
}

/** Directories emptied inside the sandbox (sockets and other users' files live there). */
export const EMPTIED = ["/tmp", "/var/tmp", "/run", "/dev/shm"] as const;

export function underEmptied(path: string): boolean {
  return EMPTIED.some((d) => path === d || path.startsWith(`${d}/`));
}

/**
 * PATH entries that live under a directory the sandbox empties (`/tmp`…) — a project cloned in /tmp
 * with its `node_modules/.bin` (and the `node_modules` those links point into), a toolchain unpacked
 * there — to re-expose read-only, so the commands on the user's own PATH still run. `realpath` resolves
 * links (the caller's, so this stays pure).
 */
export function toolDirsUnderEmptied(path: string, realpath: (p: string) => string): string[] {
  const out: string[] = [];
  for (const entry of path.split(":")) {
    if (!entry.startsWith("/")) continue;
    const real = realpath(entry);
    if (!underEmptied(real) || EMPTIED.some((d) => real === d)) continue;
    out.push(real);
    const parent = real.slice(0, real.lastIndexOf("/"));
    if (real.endsWith("/.bin") && parent.endsWith("/node_modules")) out.push(parent);
  }
  return out;
}

export function bwrapArgv(plan: BwrapPlan, command: readonly string[]): string[] {
  const a: string[] = [plan.bwrap];
  a.push("--die-with-parent", "--new-session");
  a.push("--unshare-all", "--unshare-user", "--disable-userns");
  if (plan.network) a.push("--share-net");
  a.push("--cap-drop", "ALL");
  a.push("--ro-bind", "/", "/");
  a.push("--dev", "/dev", "--proc", "/proc");
  a.push("--tmpfs", "/var/tmp", "--tmpfs", "/run", "--tmpfs", "/dev/shm");
  a.push("--bind", plan.privateTmp, "/tmp");
  for (const p of plan.keepUnderRun) a.push("--ro-bind-try", p, p);
  // bwrap creates the mount points (parents included) inside the private /tmp
  for (const p of plan.reexpose) a.push("--ro-bind-try", p, p);
  if (plan.homeTmpfs) a.push("--tmpfs", plan.homeTmpfs);
  for (const b of plan.homeBinds ?? []) a.push("--ro-bind-try", b.src, b.dest);
  for (const p of plan.writable) a.push("--bind", p, p);
  for (const p of plan.pinned) a.push("--bind", p, p);
  for (const p of plan.protectedPaths) a.push("--ro-bind", p, p);
  for (const p of plan.protectedMissingDirs) a.push("--tmpfs", p, "--remount-ro", p);
  for (const d of plan.deniedDirs) a.push("--tmpfs", d, "--remount-ro", d);
  for (const f of plan.deniedFiles) a.push("--ro-bind", "/dev/null", f);
  for (const o of plan.overlays ?? []) a.push("--ro-bind", o.src, o.dest);
  if (plan.seccomp) a.push("--seccomp", "3");
  for (const [k, v] of plan.setenv ?? []) a.push("--setenv", k, v);
  a.push("--setenv", "TMPDIR", "/tmp");
  a.push("--chdir", plan.cwd);
  a.push("--", ...command);
  return a;
}
