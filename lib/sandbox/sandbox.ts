/**
 * The OS sandbox every process the agent starts runs in (CONTRACT §5): bubblewrap on Linux,
 * Seatbelt on macOS. One Sandbox per run: it knows the permission mode, decides what is writable,
 * what is hidden and whether the network exists, and owns the run's private temp dir.
 */
import { readFileSync } from "node:fs";
import { platform as hostPlatform } from "node:process";
import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";
import { userHome } from "../core/paths.ts";
import type { KnownSecret } from "../core/secrets.ts";
import type { PermissionMode } from "../policy/permissions.ts";
import type { ProtectedPaths } from "../policy/protected-paths.ts";
import {
  deniedReadPaths,
  gitConfigSecrets,
  isGitConfigFile,
  isProcEnviron,
  isUnder,
} from "./deny.ts";
import {
  type Detected,
  probe,
  type SandboxKind,
  type SandboxSetting,
  userSandboxConfig,
} from "./detect.ts";
import {
  type ChildEnvOptions,
  childEnvironment,
  ENV_POLICIES,
  type EnvPolicy,
  gitSafeEnv,
  withoutFileInjected,
} from "./env.ts";
import { directFileOps, type FileOps } from "./file-ops.ts";
import { FileWorkerClient } from "./file-worker.ts";
import { linkedProtected } from "./hardlinks.ts";
import {
  allowReadHint,
  allowReadPaths,
  type HomeView,
  hiddenInHome,
  homeView,
  toolchainSecrets,
} from "./home.ts";
import { Layout } from "./layout.ts";
import type { NetEntry } from "./net-hosts.ts";
import type { NetLookup } from "./net-proxy.ts";
import { type SandboxNetwork, sandboxNetwork, userAllowlist } from "./net-run.ts";
import { realPathOrSelf } from "./plan.ts";
import { type SpawnOptions, type SpawnResult, spawnCapture, spawnWorker } from "./spawn.ts";
import type { FileGuard } from "./walk.ts";

/** What the envelope and `session.started` report. */
export interface SandboxInfo {
  kind: SandboxKind;
  available: boolean;
  /** The whole network (auto + a bare --allow-network, or no sandbox in force). */
  network: boolean;
  /** The hosts commands reach through chatcli's proxy (--allow-network HOST), else null. */
  network_allow: string[] | null;
}

export interface SandboxOptions {
  /** The process environment (never a workspace's .env: a checkout does not choose its sandbox). */
  env: Env;
  setting: SandboxSetting;
  permissionMode: PermissionMode;
  workspaceRoot: string;
  allowNetwork?: boolean;
  /** `--allow-network HOST,…` (parsed); the user config's `sandbox.allow_network` is added. */
  allowNetworkHosts?: readonly NetEntry[];
  /** Values a command's request may not carry (the proxy refuses them in the URL or host). */
  secrets?: readonly KnownSecret[];
  /** A command's connection to a host was refused (once per host:port and run). */
  onNetworkDenied?: (message: string) => void;
  /** Tests: how the proxy resolves names (default: the system resolver). */
  netLookup?: NetLookup;
  passEnv?: string[];
  /** `--env-policy`: core (default) or all; else `sandbox.env_policy` of the user's config. */
  envPolicy?: EnvPolicy;
  platform?: NodeJS.Platform;
  arch?: string;
  signal?: AbortSignal;
  /**
   * argv that starts chatcli itself (ctx.selfArgv): its file tools then do their work in a worker
   * inside the sandbox. Without it (unit tests) they do it in-process, through the same walk.
   */
  selfArgv?: readonly string[];
  /** `--allow-git-writes`: the workspace's `.git` is writable in edit/auto (hooks, config still not). */
  allowGitWrites?: boolean;
  /**
   * `--allow-read PATH` (absolute or `~/…`); the user config's `sandbox.allow_read` is added. HOME
   * shows only the workspace, the toolchain set and these (home.ts).
   */
  allowRead?: readonly string[];
}

/** One line that tells the model which flag lets a command write `.git` (`git commit` failed). */
export const GIT_WRITES_HINT =
  "chatcli: .git is read-only in this run (so a command cannot leave hooks, config or links for your next git); pass --allow-git-writes, or set sandbox.allow_git_writes in ~/.chatcli/config.json, to let commands commit";

export class Sandbox {
  readonly info: SandboxInfo;
  /** Set when shell tools must be refused (`auto` and no sandbox): the one line the model and user see. */
  readonly shellRefusal: string | undefined;
  /** Why no sandbox is in force (for the sandbox_off warning and diagnostics). */
  readonly unavailableReason: string | undefined;
  /** Set when hosts were named but this sandbox cannot hold commands to them (the warning's text). */
  readonly networkUnsupported: string | undefined;
  /** The allowlist proxy, when commands reach only the named hosts. */
  private readonly net: SandboxNetwork | undefined;
  private readonly denied: string[];
  /** The mounts, as host command lines (only when a sandbox is in force). */
  private readonly layout: Layout | undefined;
  /** Processes running in the sandbox now: mount points in the workspace go when none is left. */
  private active = 0;
  /** The run's file workers by layout (read-only, writable), started on first use. */
  private readonly workers = new Map<string, FileWorkerClient>();
  /** The file tools' guard, computed once per run (links of the denied paths resolved). */
  private readonly guards = new Map<ProtectedPaths | undefined, FileGuard>();
  /** What HOME shows this run (undefined: bypass, or the workspace is HOME). */
  private readonly homeShown: HomeView | undefined;
  private linkedKeys: string[] | undefined;

  private constructor(
    private readonly opts: SandboxOptions,
    private readonly detected: Detected | undefined,
    probeResult: Detected | string,
    denyRead: string[],
    allowUnixSockets: boolean,
    private readonly childEnvOptions: ChildEnvOptions = { policy: "core", pass: opts.passEnv },
  ) {
    const available = typeof probeResult !== "string";
    this.unavailableReason = typeof probeResult === "string" ? probeResult : undefined;
    const confined = detected !== undefined;
    const network = !confined || (opts.permissionMode === "auto" && opts.allowNetwork === true);
    const allowlist = sandboxNetwork({
      entries: opts.allowNetworkHosts ?? [],
      wholeNetwork: network,
      kind: detected?.kind,
      selfArgv: opts.selfArgv,
      secrets: opts.secrets ?? [],
      lookup: opts.netLookup,
      onDenied: opts.onNetworkDenied,
    });
    this.net = allowlist.net;
    this.networkUnsupported = allowlist.unsupported;
    this.info = {
      kind: detected?.kind ?? "none",
      available,
      network,
      network_allow: this.net ? this.net.allowed : null,
    };
    this.shellRefusal =
      !confined && opts.setting === "auto" && opts.permissionMode !== "bypass"
        ? `no sandbox for shell commands: ${this.unavailableReason}; or pass --sandbox off to run them unconfined`
        : undefined;
    const allowRead = allowReadPaths(opts.allowRead ?? [], opts.env);
    this.denied =
      opts.permissionMode === "bypass"
        ? []
        : [
            ...deniedReadPaths(opts.env, denyRead, [opts.workspaceRoot], allowRead),
            ...toolchainSecrets(opts.env).filter((p) => !allowRead.includes(p)),
          ];
    this.homeShown =
      opts.permissionMode === "bypass"
        ? undefined
        : homeView({
            env: opts.env,
            allowRead,
            needed: [opts.workspaceRoot, ...(opts.selfArgv ?? []).filter((a) => a.startsWith("/"))],
            workspace: opts.workspaceRoot,
          });
    this.layout = detected
      ? new Layout({
          env: opts.env,
          workspaceRoot: opts.workspaceRoot,
          detected,
          denied: this.denied,
          network,
          allowUnixSockets,
          allowGitWrites: opts.allowGitWrites === true,
          allowRead,
          arch: opts.arch,
          protectedLinks: () => this.protectedLinks(),
        })
      : undefined;
  }

  /** The protected and hidden files with other links (hardlinks.ts), scanned once per run. */
  private protectedLinks(extra: readonly string[] = []): string[] {
    this.linkedKeys ??= linkedProtected(this.denied, this.homeShown).keys;
    const more = extra.filter((p) => !this.denied.includes(p));
    return more.length ? [...this.linkedKeys, ...linkedProtected(more).keys] : this.linkedKeys;
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
    const allowGitWrites = opts.allowGitWrites === true || user.allowGitWrites;
    const allowNetworkHosts = [...(opts.allowNetworkHosts ?? []), ...userAllowlist(user)];
    const policy = opts.envPolicy ?? user.envPolicy ?? "core";
    if (!ENV_POLICIES.includes(policy as EnvPolicy))
      throw new ConfigError(
        `sandbox.env_policy in ~/.chatcli/config.json must be core or all (got ${JSON.stringify(policy)})`,
      );
    const allowRead = [...(opts.allowRead ?? []), ...user.allowRead];
    return new Sandbox(
      { ...opts, allowGitWrites, allowNetworkHosts, allowRead },
      use,
      found,
      user.denyRead,
      user.allowUnixSockets,
      { policy: policy as EnvPolicy, pass: [...(opts.passEnv ?? []), ...user.passEnv] },
    );
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
    if (this.homeRefusal(abs)) return true;
    const target = realPathOrSelf(abs);
    if (isProcEnviron(abs) || isProcEnviron(target)) return true;
    if (isGitConfigFile(target)) {
      try {
        if (gitConfigSecrets(readFileSync(target, "utf8"))) return true;
      } catch {
        // unreadable: the tool reports it
      }
    }
    return isUnder(abs, this.denied) || isUnder(target, this.denied);
  }

  /**
   * Set when `abs` lies in HOME outside what this run shows (the workspace, the toolchain set,
   * --allow-read paths): the refusal, naming the flag that opens it. Commands see the same HOME.
   */
  homeRefusal(abs: string): string | undefined {
    const view = this.homeShown;
    if (!view) return undefined;
    const target = realPathOrSelf(abs);
    if (!hiddenInHome(view, abs) && !hiddenInHome(view, target)) return undefined;
    return allowReadHint(abs, this.opts.env);
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
    if (this.detected) return false;
    const r = realPathOrSelf(root);
    // a search of (or in) a hidden HOME: chatcli's reader shows only what is visible
    const view = this.homeShown;
    if (
      view &&
      !isUnder(r, view.visible) &&
      view.homes.some((h) => isUnder(h, [root, r]) || isUnder(r, [h]))
    )
      return true;
    if (this.denied.length === 0) return false;
    return this.denied.some((d) => isUnder(d, [root, r]) || isUnder(realPathOrSelf(d), [root, r]));
  }

  /**
   * The environment a child gets: scrubbed, `--pass-env` names kept, git's repo programs off, and
   * no code-injecting variable (LD_PRELOAD, PATH, BUN_OPTIONS …) that a file rather than the process
   * environment set.
   */
  childEnv(env: Env): Record<string, string> {
    return gitSafeEnv(
      childEnvironment(withoutFileInjected(env, this.opts.env), this.childEnvOptions).env,
    );
  }

  /** The names of `env` a child does not get (a failed command's result lists them). */
  filteredEnvNames(env: Env): string[] {
    return childEnvironment(withoutFileInjected(env, this.opts.env), this.childEnvOptions).filtered;
  }

  /**
   * Runs argv inside the sandbox (or unconfined when none is in force) and collects its output.
   * `humanApproved`: a person on the terminal read this exact command and said yes, so in read-only
   * mode it gets edit mode's layout (the workspace writable; still no network, no credentials).
   */
  async run(
    argv: readonly string[],
    options: SpawnOptions & { humanApproved?: boolean; network?: boolean },
  ): Promise<SpawnResult & { network?: string[] }> {
    const { humanApproved, network, ...spawnOptions } = options;
    const writable = this.writable(humanApproved === true);
    if (!this.layout) return spawnCapture(argv, spawnOptions);
    // the named hosts, through the bridge and this run's proxy (only for commands that ask for it)
    const net = network && this.net && this.opts.selfArgv ? this.net.forCommand() : undefined;
    const self = this.opts.selfArgv ?? [];
    const command = net && this.net ? this.net.wrap(self, argv) : argv;
    const w = this.layout.wrap(
      command,
      spawnOptions.cwd,
      spawnOptions.env,
      writable,
      net ? self : [],
    );
    this.active++;
    const result = await spawnCapture(w.argv, {
      ...spawnOptions,
      env: w.env,
      fd3Path: w.fd3Path,
      ...(net ? { channel: net.attach } : {}),
    }).finally(() => {
      if (--this.active === 0) this.layout?.removeMountPoints();
    });
    const lines = net?.finish();
    if (lines?.length) Object.assign(result, { network: lines });
    // `git commit` against the read-only .git: say which flag allows it
    if (writable.length > 0 && !this.opts.allowGitWrites && gitWriteRefused(result.stderr))
      return { ...result, stderr: `${result.stderr.replace(/\n?$/, "\n")}${GIT_WRITES_HINT}\n` };
    return result;
  }

  /**
   * Where chatcli's own file tools do their file-system work: a worker inside this sandbox (the same
   * mounts as a command's: credential stores hidden, read-only mode's workspace read-only), or — no
   * sandbox in force — this process, through the same openat-style walk. `write`: an edit tool the
   * policy allowed; in read-only mode only a rule naming the path or a human's yes gets that far, so
   * it gets edit mode's layout, as a command a human approved does.
   */
  files(options: { write: boolean; protect?: ProtectedPaths }): FileOps {
    const selfArgv = this.opts.selfArgv;
    const layout = this.layout;
    const guard = this.guard(options.protect);
    if (!layout || !selfArgv?.length) return directFileOps(guard);
    const writable = this.writable(options.write);
    const key = writable.join("\0");
    let worker = this.workers.get(key);
    if (!worker) {
      worker = new FileWorkerClient((events) => {
        const home = userHome(this.opts.env);
        const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
        const w = layout.wrap([...selfArgv, "__file-worker"], "/", env, writable, selfArgv);
        this.active++;
        let exited = false;
        return spawnWorker(
          w.argv,
          { cwd: "/", env: w.env, fd3Path: w.fd3Path },
          {
            data: events.data,
            exit: (why) => {
              if (!exited && --this.active === 0) layout.removeMountPoints();
              exited = true;
              events.exit(why);
            },
          },
        );
      }, guard);
      this.workers.set(key, worker);
    }
    return worker;
  }

  /**
   * What the file tools' walk enforces in this run (also sent to the worker): the sandbox's denied
   * paths and the policy's protected paths (`protect`, absent in bypass mode).
   */
  private guard(protect?: ProtectedPaths): FileGuard {
    const known = this.guards.get(protect);
    if (known) return known;
    const guard = this.makeGuard(protect);
    this.guards.set(protect, guard);
    return guard;
  }

  private makeGuard(protect?: ProtectedPaths): FileGuard {
    const all = [...this.denied, ...(protect?.paths ?? [])];
    const denied = [...new Set(all.flatMap((d) => [d, realPathOrSelf(d)]))];
    const patterns = [PROC_ENVIRON.source, ...(protect?.patterns.map((p) => p.source) ?? [])];
    const bypass = this.opts.permissionMode === "bypass" && protect === undefined;
    const linked = bypass ? [] : this.protectedLinks(protect?.paths);
    return {
      workspace: this.opts.workspaceRoot,
      workspaceReal: realPathOrSelf(this.opts.workspaceRoot),
      bypass,
      denied,
      patterns: [...new Set(patterns)],
      ...(linked.length ? { linked } : {}),
      ...(this.homeShown && !(this.opts.permissionMode === "bypass" && protect === undefined)
        ? { home: { homes: this.homeShown.homes, visible: this.homeShown.visible } }
        : {}),
    };
  }

  /**
   * Nested repositories (relative to the workspace) a command finds in the work tree before it runs:
   * their `.git` is read-only to it and to every later command (plan.ts `nestedGitDirs`).
   */
  keepRepositories(rels: readonly string[]): void {
    for (const r of rels) this.layout?.nestedRepos.add(r);
  }

  /** Whether commands may write the workspace's `.git` this run (--allow-git-writes, user config). */
  get gitWritesAllowed(): boolean {
    return this.opts.allowGitWrites === true;
  }

  /** Stops the file workers and removes the run's private temp dir. */
  dispose(): void {
    for (const w of this.workers.values()) w.close();
    this.workers.clear();
    this.layout?.dispose();
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
}

/** `/proc/<pid>/environ`: another process's environment (chatcli's own holds the API keys). */
const PROC_ENVIRON = /^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/;

/** Whether a command's stderr says git could not write the read-only `.git` (index.lock, refs …). */
export function gitWriteRefused(stderr: string): boolean {
  return /\.git\/[^\n]*Read-only file system|Read-only file system[^\n]*\.git\//.test(stderr);
}
