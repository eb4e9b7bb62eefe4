/**
 * The OS sandbox every process the agent starts runs in (CONTRACT §5): bubblewrap on Linux,
 * Seatbelt on macOS. One Sandbox per run: it knows the permission mode, decides what is writable,
 * what is hidden and whether the network exists, and owns the run's private temp dir.
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
import { isAbsolute, join } from "node:path";
import { arch as hostArch, platform as hostPlatform } from "node:process";
import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";
import { userHome } from "../core/paths.ts";
import type { PermissionMode } from "../policy/permissions.ts";
import { bwrapArgv, splitLoaderEnv, toolDirsUnderEmptied, underEmptied } from "./bwrap.ts";
import { deniedReadPaths, gitConfigSecrets, isProcEnviron, isUnder } from "./deny.ts";
import {
  type Detected,
  probe,
  type SandboxKind,
  type SandboxSetting,
  userSandboxConfig,
} from "./detect.ts";
import { gitSafeEnv, scrubEnv, withoutFileInjected } from "./env.ts";
import { populatedGitlinks, quarantineNewGitlinks } from "./gitlinks.ts";
import { existingDenied, protectedHome, protectedInside, realPathOrSelf } from "./plan.ts";
import { seatbeltProfile } from "./seatbelt.ts";
import { sandboxFilter } from "./seccomp.ts";
import { type SpawnOptions, type SpawnResult, spawnCapture } from "./spawn.ts";

/** What the envelope and `session.started` report. */
export interface SandboxInfo {
  kind: SandboxKind;
  available: boolean;
  network: boolean;
}

export interface SandboxOptions {
  /** The process environment (never a workspace's .env: a checkout does not choose its sandbox). */
  env: Env;
  setting: SandboxSetting;
  permissionMode: PermissionMode;
  workspaceRoot: string;
  allowNetwork?: boolean;
  passEnv?: string[];
  platform?: NodeJS.Platform;
  arch?: string;
  signal?: AbortSignal;
}

export class Sandbox {
  readonly info: SandboxInfo;
  /** Set when shell tools must be refused (`auto` and no sandbox): the one line the model and user see. */
  readonly shellRefusal: string | undefined;
  /** Why no sandbox is in force (for the sandbox_off warning and diagnostics). */
  readonly unavailableReason: string | undefined;
  private readonly denied: string[];
  private privateTmp: string | undefined;
  /** Empty mount points bwrap created in the workspace (a missing .chatcli/), removed when idle. */
  private readonly createdMountPoints = new Set<string>();
  /** Files chatcli created as mount points (`.git/commondir`), removed when idle if unchanged. */
  private readonly createdFiles = new Map<string, string>();
  private active = 0;

  private constructor(
    private readonly opts: SandboxOptions,
    private readonly detected: Detected | undefined,
    probeResult: Detected | string,
    denyRead: string[],
    private readonly allowUnixSockets: boolean,
  ) {
    const available = typeof probeResult !== "string";
    this.unavailableReason = typeof probeResult === "string" ? probeResult : undefined;
    const confined = detected !== undefined;
    const network = !confined || (opts.permissionMode === "auto" && opts.allowNetwork === true);
    this.info = { kind: detected?.kind ?? "none", available, network };
    this.shellRefusal =
      !confined && opts.setting === "auto" && opts.permissionMode !== "bypass"
        ? `no sandbox for shell commands: ${this.unavailableReason}; or pass --sandbox off to run them unconfined`
        : undefined;
    this.denied =
      opts.permissionMode === "bypass"
        ? []
        : deniedReadPaths(opts.env, denyRead, [opts.workspaceRoot]);
  }

  /** Detects the OS sandbox and applies `--sandbox`: `required` without one is exit 3. */
  static async create(opts: SandboxOptions): Promise<Sandbox> {
    const platform = opts.platform ?? hostPlatform;
    const signal = opts.signal ?? new AbortController().signal;
    const [found, user] = await Promise.all([
      probe(opts.env, platform, signal, opts.workspaceRoot),
      userSandboxConfig(opts.env),
    ]);
    const use =
      typeof found !== "string" && opts.setting !== "off" && opts.permissionMode !== "bypass"
        ? found
        : undefined;
    if (opts.setting === "required" && typeof found === "string")
      throw new ConfigError(`--sandbox required: ${found}`, {
        hint: "install bubblewrap (Linux) or run where sandbox-exec works (macOS), or use --sandbox auto|off",
      });
    return new Sandbox(opts, use, found, user.denyRead, user.allowUnixSockets);
  }

  /** A sandbox that confines nothing (unit tests, and tools run outside an agent). */
  static none(env: Env, workspaceRoot: string): Sandbox {
    return new Sandbox(
      { env, setting: "off", permissionMode: "bypass", workspaceRoot },
      undefined,
      "not requested",
      [],
      false,
    );
  }

  /**
   * Whether chatcli's own file tools refuse to read `abs`: credential stores, CHATCLI_HOME, environ,
   * and a git config that holds CI credentials (actions/checkout's extraheader).
   */
  refusesRead(abs: string): boolean {
    if (this.opts.permissionMode === "bypass") return false;
    const target = realPathOrSelf(abs);
    if (isProcEnviron(abs) || isProcEnviron(target)) return true;
    if (/\/\.git\/config$/.test(target)) {
      try {
        if (gitConfigSecrets(readFileSync(target, "utf8"))) return true;
      } catch {
        // unreadable: the tool reports it
      }
    }
    return isUnder(abs, this.denied) || isUnder(target, this.denied);
  }

  /** The permission mode the sandbox was opened for. */
  get permissionMode(): PermissionMode {
    return this.opts.permissionMode;
  }

  /** Whether processes run confined (an OS sandbox is in force). */
  get confines(): boolean {
    return this.detected !== undefined;
  }

  /**
   * Whether an unconfined process working under `root` could read a denied path (a search of the
   * home directory): then chatcli uses its own reader, which skips them.
   */
  exposesDeniedUnder(root: string): boolean {
    if (this.detected || this.denied.length === 0) return false;
    const r = realPathOrSelf(root);
    return this.denied.some((d) => isUnder(d, [root, r]) || isUnder(realPathOrSelf(d), [root, r]));
  }

  /**
   * The environment a child gets: scrubbed, `--pass-env` names kept, git's repo programs off, and
   * no code-injecting variable (LD_PRELOAD, PATH, BUN_OPTIONS …) that a file rather than the process
   * environment set.
   */
  childEnv(env: Env): Record<string, string> {
    return gitSafeEnv(scrubEnv(withoutFileInjected(env, this.opts.env), this.opts.passEnv ?? []));
  }

  /**
   * Runs argv inside the sandbox (or unconfined when none is in force) and collects its output.
   * `humanApproved`: a person on the terminal read this exact command and said yes, so in read-only
   * mode it gets edit mode's layout (the workspace writable; still no network, no credentials).
   */
  run(
    argv: readonly string[],
    options: SpawnOptions & { humanApproved?: boolean },
  ): Promise<SpawnResult> {
    const { humanApproved, ...spawnOptions } = options;
    const writable = this.writable(humanApproved === true);
    if (!this.detected) return spawnCapture(argv, spawnOptions);
    if (writable.length > 0) return this.runWritable(argv, spawnOptions, writable);
    return this.runConfined(argv, spawnOptions, writable);
  }

  /** A command that may write the workspace: submodules it registers with a `.git` are moved aside. */
  private async runWritable(
    argv: readonly string[],
    spawnOptions: SpawnOptions,
    writable: string[],
  ): Promise<SpawnResult> {
    const ws = realPathOrSelf(this.opts.workspaceRoot);
    const before = populatedGitlinks(ws);
    const result = await this.runConfined(argv, spawnOptions, writable);
    const notes = quarantineNewGitlinks(ws, before);
    if (notes.length === 0) return result;
    return {
      ...result,
      stderr: `${result.stderr}${result.stderr.endsWith("\n") || !result.stderr ? "" : "\n"}${notes.join("\n")}\n`,
    };
  }

  private runConfined(
    argv: readonly string[],
    options: SpawnOptions,
    writable: string[],
  ): Promise<SpawnResult> {
    const spawnOptions = options;
    if (!this.detected) return spawnCapture(argv, spawnOptions);
    if (this.detected.kind === "bubblewrap") {
      const fd3Path = this.seccompFile();
      // bwrap runs on the host: the loader's variables go to the command only (LD_PRELOAD=./evil.so)
      const env = splitLoaderEnv(spawnOptions.env);
      const wrapped = this.bwrap(argv, options.cwd, fd3Path !== undefined, writable, env.inside);
      this.active++;
      return spawnCapture(wrapped, { ...spawnOptions, env: env.host, fd3Path }).finally(() => {
        if (--this.active === 0) this.removeMountPoints();
      });
    }
    const tmp = this.tmp();
    return spawnCapture(
      [
        this.detected.program,
        "-p",
        seatbeltProfile(this.seatbeltPlan(tmp, writable)),
        "--",
        ...argv,
      ],
      { ...spawnOptions, env: { ...options.env, TMPDIR: tmp } },
    );
  }

  /** Removes the run's private temp dir. */
  dispose(): void {
    this.removeMountPoints();
    if (this.privateTmp) rmSync(this.privateTmp, { recursive: true, force: true });
    this.privateTmp = undefined;
  }

  /** A copy of the workspace's git config with CI credentials blanked, and the files it includes. */
  private maskedGitConfig(ws: string): { copy: string; includes: string[] } | undefined {
    const path = join(ws, ".git", "config");
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
    const found = gitConfigSecrets(text);
    if (!found) return undefined;
    const copy = join(this.runDir(), "git-config");
    writeFileSync(copy, found.masked, { mode: 0o600 });
    const gitDir = join(ws, ".git");
    const includes = found.includes.map((p) =>
      p.startsWith("~/")
        ? join(userHome(this.opts.env), p.slice(2))
        : isAbsolute(p)
          ? p
          : join(gitDir, p),
    );
    return { copy, includes };
  }

  private removeMountPoints(): void {
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

  private writable(humanApproved: boolean): string[] {
    const m = this.opts.permissionMode;
    const ws = m === "edit" || m === "auto" || (m === "read-only" && humanApproved);
    const root = realPathOrSelf(this.opts.workspaceRoot);
    // "/" or a directory above HOME (/home) as the workspace would make the system writable
    const home = realPathOrSelf(userHome(this.opts.env));
    if (root === "/" || (home !== root && isUnder(home, [root]))) return [];
    return ws ? [root] : [];
  }

  /**
   * The run's own directory on the host: `tmp/` is the sandbox's /tmp, `seccomp.bpf` sits beside it
   * where no sandboxed process can replace it with a filter of its own.
   */
  private runDir(): string {
    if (!this.privateTmp) {
      const base = this.opts.env["TMPDIR"] || "/tmp";
      this.privateTmp = mkdtempSync(join(base, "chatcli-sandbox-"));
      mkdirSync(join(this.privateTmp, "tmp"), { mode: 0o700 });
    }
    return this.privateTmp;
  }

  private tmp(): string {
    return join(this.runDir(), "tmp");
  }

  private seccompFile(): string | undefined {
    if (this.allowUnixSockets) return undefined;
    const path = join(this.runDir(), "seccomp.bpf");
    if (!existsSync(path)) {
      const prog = sandboxFilter(this.opts.arch ?? hostArch);
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
    setenv: Array<readonly [string, string]> = [],
  ): string[] {
    const home = realPathOrSelf(userHome(this.opts.env));
    const ws = realPathOrSelf(this.opts.workspaceRoot);
    const tools = toolDirsUnderEmptied(this.opts.env["PATH"] ?? "", realPathOrSelf);
    const reexpose = [home, ws, realPathOrSelf(cwd), ...tools].filter(underEmptied);
    const prot = writable.length ? protectedInside(ws) : undefined;
    if (prot && isUnder(home, writable)) protectedHome(home, prot);
    const masked = this.maskedGitConfig(ws);
    const denied = existingDenied(
      [...this.denied, ...(masked?.includes ?? [])],
      [...reexpose, ...writable],
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
        bwrap: (this.detected as Detected).program,
        privateTmp: this.tmp(),
        writable,
        pinned: prot?.pinned ?? [],
        protectedPaths: [...(prot?.existing ?? []), ...createdFiles],
        protectedMissingDirs: prot?.missingDirs ?? [],
        deniedDirs: denied.dirs,
        deniedFiles: denied.files,
        overlays: masked ? [{ src: masked.copy, dest: join(ws, ".git", "config") }] : [],
        reexpose: [...new Set(reexpose)],
        keepUnderRun: this.info.network && resolv.startsWith("/run/") ? [resolv] : [],
        network: this.info.network,
        cwd: realPathOrSelf(cwd),
        seccomp,
        setenv,
      },
      argv,
    );
  }

  private seatbeltPlan(tmp: string, writable: string[]) {
    const ws = realPathOrSelf(this.opts.workspaceRoot);
    const prot = writable.length ? protectedInside(ws) : undefined;
    const home = realPathOrSelf(userHome(this.opts.env));
    if (prot && isUnder(home, writable)) protectedHome(home, prot);
    const denied = [...new Set(this.denied.flatMap((d) => [d, realPathOrSelf(d)]))];
    return {
      privateTmp: realPathOrSelf(tmp),
      writable,
      protectedPaths: [
        ...(prot?.existing ?? []),
        ...(prot?.missingDirs ?? []),
        ...(prot?.missingFiles.map((f) => f.path) ?? []),
      ],
      denied,
      network: this.info.network,
    };
  }
}
