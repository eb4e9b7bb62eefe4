/**
 * The mounts of one run's sandbox, turned into a host command line: the bubblewrap argv (or the
 * Seatbelt profile) for a process with a given set of writable paths, the run's private directory
 * (its /tmp, the seccomp program, a masked git config) and the mount points it had to create in the
 * workspace, removed again when nothing runs.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { arch as hostArch } from "node:process";
import type { Env } from "../core/ctx.ts";
import { userHome } from "../core/paths.ts";
import { bwrapArgv, splitLoaderEnv, toolDirsUnderEmptied, underEmptied } from "./bwrap.ts";
import { gitConfigFiles, gitConfigSecrets, isUnder } from "./deny.ts";
import type { Detected } from "./detect.ts";
import { linkedProtected, linksInside } from "./hardlinks.ts";
import { type HomeView, homeView, within } from "./home.ts";
import { cleanHomeGitConfigs, homeGitBinds } from "./home-git.ts";
import { hooksPathConfigs, hooksPathDirs } from "./hooks-path.ts";
import {
  existingDenied,
  nestedGitDirs,
  protectedHome,
  protectedInside,
  realPathOrSelf,
} from "./plan.ts";
import { seatbeltProfile } from "./seatbelt.ts";
import { sandboxFilter } from "./seccomp.ts";

export interface LayoutOptions {
  env: Env;
  workspaceRoot: string;
  detected: Detected;
  /** Paths no process reads (credential stores …). */
  denied: readonly string[];
  network: boolean;
  allowUnixSockets: boolean;
  allowGitWrites: boolean;
  /** `--allow-read` + `sandbox.allow_read`, absolute: shown in the otherwise empty HOME. */
  allowRead?: readonly string[];
  arch?: string;
  /** `dev:ino` of the protected files with other links (hardlinks.ts), when the caller has them. */
  protectedLinks?: () => readonly string[];
}

/** A wrapped command line: what to start on the host, with which env and seccomp program. */
export interface Wrapped {
  argv: string[];
  env: Record<string, string>;
  fd3Path?: string;
}

export class Layout {
  private privateTmp: string | undefined;
  /** Empty mount points bwrap created in the workspace (a missing .chatcli/), removed when idle. */
  private readonly createdMountPoints = new Set<string>();
  /** Files chatcli created as mount points (`.git/commondir`), removed when idle if unchanged. */
  private readonly createdFiles = new Map<string, string>();

  /** Workspace files that are hard links to protected or hidden files (covered by /dev/null). */
  private hardLinks: string[] | undefined;
  /** Nested repositories (relative paths) that were in the work tree before a command: `.git` read-only. */
  readonly nestedRepos = new Set<string>();

  constructor(private readonly o: LayoutOptions) {}

  /** Found once per run: a stat walk of the workspace, only when such a file lies on its device. */
  private linksToProtected(view: HomeView | undefined): string[] {
    this.hardLinks ??= linksInside(
      realPathOrSelf(this.o.workspaceRoot),
      this.o.protectedLinks?.() ?? linkedProtected(this.o.denied, view).keys,
    );
    return this.hardLinks;
  }

  /**
   * The host command line that runs argv in the sandbox, with `writable` writable (and, inside it,
   * the protected paths read-only). `visible`: paths that must stay visible (chatcli's own binary).
   */
  wrap(
    argv: readonly string[],
    cwd: string,
    env: Record<string, string>,
    writable: string[],
    shown: readonly string[] = [],
  ): Wrapped {
    // chatcli run from source (`bun main.ts`, the tests): the tree main.ts imports from, not main.ts alone
    const visible = shown.map((p) => (isAbsolute(p) && /\.[cm]?[jt]s$/.test(p) ? dirname(p) : p));
    if (this.o.detected.kind === "bubblewrap") {
      const fd3Path = this.seccompFile();
      // bwrap runs on the host: the loader's variables go to the command only (LD_PRELOAD=./evil.so)
      const split = splitLoaderEnv(env);
      const wrapped = this.bwrap(argv, cwd, fd3Path !== undefined, writable, split.inside, visible);
      return { argv: wrapped, env: split.host, fd3Path };
    }
    const tmp = this.tmp();
    const profile = seatbeltProfile(this.seatbeltPlan(tmp, writable, visible));
    return {
      argv: [this.o.detected.program, "-p", profile, "--", ...argv],
      env: { ...env, TMPDIR: tmp },
    };
  }

  /** Removes the mount points created in the workspace and the run's private directory. */
  dispose(): void {
    this.removeMountPoints();
    if (this.privateTmp) rmSync(this.privateTmp, { recursive: true, force: true });
    this.privateTmp = undefined;
  }

  removeMountPoints(): void {
    for (const dir of this.createdMountPoints) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty (something else created it meanwhile) or already gone: left as it is
      }
    }
    this.createdMountPoints.clear();
    for (const [path, content] of this.createdFiles) {
      try {
        if (readFileSync(path, "utf8") === content) unlinkSync(path);
      } catch {
        // already gone
      }
    }
    this.createdFiles.clear();
  }

  /**
   * Copies of the workspace's git config files that hold CI credentials (`config`,
   * `config.worktree`, submodules' and worktrees' configs), with those lines blanked, and the
   * files they include (hidden).
   */
  private maskedGitConfigs(ws: string): {
    overlays: Array<{ src: string; dest: string }>;
    includes: string[];
  } {
    const overlays: Array<{ src: string; dest: string }> = [];
    const includes: string[] = [];
    for (const path of gitConfigFiles(join(ws, ".git"))) {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        continue;
      }
      const found = gitConfigSecrets(text);
      if (!found) continue;
      const copy = join(this.runDir(), `git-config-${overlays.length}`);
      writeFileSync(copy, found.masked, { mode: 0o600 });
      overlays.push({ src: copy, dest: path });
      const base = dirname(path);
      for (const p of found.includes)
        includes.push(
          p.startsWith("~/")
            ? join(userHome(this.o.env), p.slice(2))
            : isAbsolute(p)
              ? p
              : join(base, p),
        );
    }
    return { overlays, includes };
  }

  /** What stays read-only in the writable workspace (plan.ts), core.hooksPath's directory included. */
  private protectedIn(ws: string) {
    const hooks = hooksPathDirs(ws, hooksPathConfigs(ws, this.o.env), this.o.env);
    const out = protectedInside(ws, this.o.allowGitWrites, hooks);
    out.existing.push(...nestedGitDirs(ws, this.nestedRepos));
    return out;
  }

  /** HOME as this run shows it (undefined: the workspace is HOME or holds it). */
  private home(visible: readonly string[]): HomeView | undefined {
    return homeView({
      env: this.o.env,
      allowRead: this.o.allowRead ?? [],
      needed: [this.o.workspaceRoot, ...visible.filter((p) => isAbsolute(p))],
      workspace: this.o.workspaceRoot,
    });
  }

  /**
   * The run's own directory on the host: `tmp/` is the sandbox's /tmp, `seccomp.bpf` sits beside it
   * where no sandboxed process can replace it with a filter of its own.
   */
  private runDir(): string {
    if (!this.privateTmp) {
      const base = this.o.env["TMPDIR"] || "/tmp";
      this.privateTmp = mkdtempSync(join(base, "chatcli-sandbox-"));
      mkdirSync(join(this.privateTmp, "tmp"), { mode: 0o700 });
    }
    return this.privateTmp;
  }

  private tmp(): string {
    return join(this.runDir(), "tmp");
  }

  private seccompFile(): string | undefined {
    if (this.o.allowUnixSockets) return undefined;
    const path = join(this.runDir(), "seccomp.bpf");
    if (!existsSync(path)) {
      const prog = sandboxFilter(this.o.arch ?? hostArch);
      if (!prog) return undefined;
      writeFileSync(path, prog, { mode: 0o400 });
    }
    return path;
  }

  private bwrap(
    argv: readonly string[],
    cwd: string,
    seccomp: boolean,
    writable: string[],
    setenv: Array<readonly [string, string]>,
    visible: readonly string[],
  ): string[] {
    const home = realPathOrSelf(userHome(this.o.env));
    const ws = realPathOrSelf(this.o.workspaceRoot);
    const tools = toolDirsUnderEmptied(this.o.env["PATH"] ?? "", realPathOrSelf);
    // chatcli's own binary (the file worker) stays visible when it lives under /tmp
    const own = visible.filter((p) => isAbsolute(p)).map(realPathOrSelf);
    const view = this.home(visible);
    // what lies in a hidden HOME is bound into its tmpfs (or stays hidden), not re-exposed
    // not the cwd itself: resolved now, a directory a command swaps for a link (`sub -> /tmp/x`)
    // would re-expose the link's target; a cwd in the workspace is visible through it
    const reexpose = [home, ws, ...tools, ...own]
      .filter(underEmptied)
      .filter((p) => !view?.homes.some((h) => within(p, h)));
    const prot = writable.length ? this.protectedIn(ws) : undefined;
    if (prot && isUnder(home, writable)) protectedHome(home, prot);
    const masked = this.maskedGitConfigs(ws);
    const homeGit = view
      ? homeGitBinds(this.o.env, view, () => this.runDir())
      : { binds: [], includes: [] };
    const denied = existingDenied(
      [...this.o.denied, ...masked.includes, ...homeGit.includes],
      [...reexpose, ...writable, ...(view?.visible ?? [])],
      view,
    );
    for (const dir of prot?.missingDirs ?? []) this.createdMountPoints.add(dir);
    const createdFiles: string[] = [];
    for (const f of prot?.missingFiles ?? []) {
      try {
        writeFileSync(f.path, f.content, { flag: "wx", mode: 0o644 });
        this.createdFiles.set(f.path, f.content);
      } catch {
        if (!this.createdFiles.has(f.path)) continue; // appeared meanwhile: not ours to bind
      }
      createdFiles.push(f.path);
    }
    const resolv = realPathOrSelf("/etc/resolv.conf");
    return bwrapArgv(
      {
        bwrap: this.o.detected.program,
        privateTmp: this.tmp(),
        writable,
        pinned: prot?.pinned ?? [],
        protectedPaths: [...(prot?.existing ?? []), ...createdFiles],
        protectedMissingDirs: prot?.missingDirs ?? [],
        deniedDirs: denied.dirs,
        deniedFiles: [...denied.files, ...this.linksToProtected(view)],
        overlays: masked.overlays,
        reexpose: [...new Set(reexpose)],
        ...(view ? { homeTmpfs: view.home, homeBinds: [...view.binds, ...homeGit.binds] } : {}),
        keepUnderRun: this.o.network && resolv.startsWith("/run/") ? [resolv] : [],
        network: this.o.network,
        cwd: realPathOrSelf(cwd),
        seccomp,
        setenv,
      },
      argv,
    );
  }

  private seatbeltPlan(tmp: string, writable: string[], visible: readonly string[] = []) {
    const ws = realPathOrSelf(this.o.workspaceRoot);
    const prot = writable.length ? this.protectedIn(ws) : undefined;
    const home = realPathOrSelf(userHome(this.o.env));
    if (prot && isUnder(home, writable)) protectedHome(home, prot);
    const view = this.home(visible);
    const denied = [
      ...new Set([
        ...this.o.denied.flatMap((d) => [d, realPathOrSelf(d)]),
        ...this.linksToProtected(view),
      ]),
    ];
    return {
      privateTmp: realPathOrSelf(tmp),
      ...(view
        ? {
            home: {
              roots: view.homes,
              visible: [...view.visible, ...cleanHomeGitConfigs(this.o.env)],
            },
          }
        : {}),
      writable,
      protectedPaths: [
        ...(prot?.existing ?? []),
        ...(prot?.missingDirs ?? []),
        ...(prot?.missingFiles.map((f) => f.path) ?? []),
      ],
      denied,
      network: this.o.network,
    };
  }
}
