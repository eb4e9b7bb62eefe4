/**
 * HOME by allowlist (issue 20). In every mode but bypass the sandbox shows an empty home directory
 * (a tmpfs: caches and dotfiles a tool writes there work, and are gone after the command) in which
 * only these are visible, read-only: the workspace (when it lies under HOME), a documented toolchain
 * set, the toolchain directories the process environment names, PATH entries, the user's git config
 * (through the masked views of layout.ts) and every path the user names (`--allow-read PATH`,
 * `sandbox.allow_read` in ~/.chatcli/config.json). Nothing else in HOME exists for a command or for
 * chatcli's own file tools — whatever credential store a tool invents next. The deny list
 * (protected-paths.ts) still covers what a visible directory holds and paths outside HOME.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Env } from "../core/ctx.ts";
import { chatcliHome, expandHome, userHome } from "../core/paths.ts";

/**
 * What real builds read under HOME (relative to it), and never the credentials beside them:
 * `~/.cargo/bin` and its registry, not `~/.cargo/credentials*` or `config.toml`; `~/.m2/repository`,
 * not `settings.xml`; `~/.gradle/jdks`, not `gradle.properties`; `~/.gem/ruby`, not
 * `~/.gem/credentials`; `~/.local/share/uv/python`, not uv's credentials; no `~/.npmrc`,
 * `~/.bunfig.toml`, `~/.pypirc`, `~/.docker`, `~/.config/*`.
 */
export const HOME_TOOLCHAIN: readonly string[] = [
  // Rust
  ".cargo/bin",
  ".cargo/registry",
  ".cargo/git",
  ".rustup",
  // Go (the module cache; builds write their cache to the tmpfs HOME)
  "go/bin",
  "go/pkg/mod",
  "sdk",
  // Node, Bun, Deno
  ".nvm",
  ".volta",
  ".fnm",
  ".local/share/fnm",
  ".bun/bin",
  ".deno/bin",
  // Python
  ".local/bin",
  ".local/lib",
  ".pyenv",
  ".local/share/uv/python",
  ".local/share/uv/tools",
  ".local/share/pipx",
  ".conda/envs",
  ".conda/pkgs",
  "miniconda3",
  "anaconda3",
  "miniforge3",
  // JVM
  ".sdkman/candidates",
  ".sdkman/bin",
  ".sdkman/src",
  ".sdkman/libexec",
  ".m2/repository",
  ".gradle/jdks",
  ".jdks",
  // Ruby
  ".rbenv",
  ".gem/ruby",
  ".local/share/gem",
  // version managers, Nix
  ".asdf",
  ".local/share/mise",
  ".nix-profile",
];

/**
 * Toolchain directories the process environment may move elsewhere (never a workspace's `.env`):
 * which parts of each are bound ("" the whole directory). CARGO_HOME, GRADLE_USER_HOME, BUN_INSTALL
 * and SDKMAN_DIR hold credentials or settings beside the toolchain, so only its parts are shown.
 */
export const TOOLCHAIN_ENV: Readonly<Record<string, readonly string[]>> = {
  CARGO_HOME: ["bin", "registry", "git"],
  RUSTUP_HOME: [""],
  GOPATH: ["bin", "pkg/mod"],
  GOMODCACHE: [""],
  GOROOT: [""],
  NVM_DIR: [""],
  VOLTA_HOME: [""],
  FNM_DIR: [""],
  BUN_INSTALL: ["bin"],
  DENO_INSTALL: ["bin"],
  PYENV_ROOT: [""],
  VIRTUAL_ENV: [""],
  CONDA_PREFIX: [""],
  PIPX_HOME: [""],
  JAVA_HOME: [""],
  SDKMAN_DIR: ["candidates", "bin", "src", "libexec"],
  GRADLE_USER_HOME: ["jdks"],
  M2_HOME: [""],
  MAVEN_HOME: [""],
  RBENV_ROOT: [""],
  GEM_HOME: [""],
  ASDF_DATA_DIR: [""],
  MISE_DATA_DIR: [""],
};

/** Whether `path` is `root` or lies under it (lexically). */
export function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** `--allow-read` / `sandbox.allow_read` entries as absolute paths (`~/x` expanded; others kept). */
export function allowReadPaths(entries: readonly string[], env: Env): string[] {
  const out: string[] = [];
  for (const raw of entries) {
    const p = expandHome(raw.trim(), env);
    if (p && isAbsolute(p)) out.push(resolve(p));
  }
  return [...new Set(out)];
}

export interface HomeInput {
  env: Env;
  /** `--allow-read` + `sandbox.allow_read`, absolute. */
  allowRead: readonly string[];
  /** Paths a run needs visible: the workspace, chatcli's own binary. */
  needed: readonly string[];
}

/**
 * The candidate paths under HOME to show (logical, unresolved): the toolchain set, env-named
 * toolchain dirs, PATH entries, the needed paths and the user's own. A candidate that is HOME itself
 * or holds it (GOROOT=~) is dropped unless the user named it; CHATCLI_HOME stays denied regardless.
 */
export function homeCandidates(input: HomeInput): string[] {
  const home = resolve(userHome(input.env));
  const out: string[] = HOME_TOOLCHAIN.map((p) => join(home, p));
  for (const [name, parts] of Object.entries(TOOLCHAIN_ENV))
    for (const dir of (input.env[name] ?? "").split(":")) {
      const d = dir.trim();
      if (!d || !isAbsolute(expandHome(d, input.env))) continue;
      for (const part of parts) out.push(join(resolve(expandHome(d, input.env)), part));
    }
  for (const entry of (input.env["PATH"] ?? "").split(":"))
    if (isAbsolute(entry)) out.push(resolve(entry));
  out.push(...input.needed.filter(isAbsolute).map((p) => resolve(p)));
  const own = out.filter((p) => within(p, home) && !within(home, p));
  return [...new Set([...own, ...input.allowRead.filter((p) => within(p, home))])];
}

/**
 * Credential files that live inside a shown toolchain directory, added to the deny list: the
 * global npmrc of an nvm prefix (`npm config set --global` puts authTokens there), a virtualenv's
 * or conda's pip.conf and .condarc (index passwords, channel tokens). Only under HOME: the same
 * names in the workspace are the project's own.
 */
export function toolchainSecrets(env: Env): string[] {
  const home = resolve(userHome(env));
  const out: string[] = [];
  const dir = (name: string) => {
    const v = env[name]?.trim();
    return v && isAbsolute(expandHome(v, env)) ? resolve(expandHome(v, env)) : undefined;
  };
  for (const nvm of [dir("NVM_DIR"), join(home, ".nvm")]) {
    if (!nvm) continue;
    const versions = join(nvm, "versions", "node");
    try {
      for (const v of readdirSync(versions)) out.push(join(versions, v, "etc", "npmrc"));
    } catch {
      // no nvm here
    }
  }
  const envs = [dir("VIRTUAL_ENV"), dir("CONDA_PREFIX"), dir("PYENV_ROOT")];
  for (const root of [
    ...envs,
    ...["miniconda3", "anaconda3", "miniforge3"].map((d) => join(home, d)),
  ])
    if (root) out.push(join(root, "pip.conf"), join(root, ".condarc"));
  return [...new Set(out)].filter((p) => within(p, home));
}

/** The user's git config files under HOME (shown through layout.ts's masked views). */
export function homeGitConfigs(env: Env): string[] {
  const home = resolve(userHome(env));
  const xdg = env["XDG_CONFIG_HOME"];
  const gitDir = xdg && isAbsolute(xdg) ? join(xdg, "git") : join(home, ".config", "git");
  const all = [
    join(home, ".gitconfig"),
    ...["config", "ignore", "attributes"].map((f) => join(gitDir, f)),
  ];
  return all.filter((p) => within(p, home));
}

export interface HomeBind {
  src: string;
  dest: string;
}

/** What the sandbox shows of HOME. */
export interface HomeView {
  /** HOME with links resolved: the tmpfs goes here. */
  home: string;
  /** HOME as the environment names it (and `home`). */
  homes: string[];
  /** Read-only binds into the tmpfs, parents before children. */
  binds: HomeBind[];
  /** Every visible path under HOME, by each of its names (for the file tools and Seatbelt). */
  visible: string[];
}

/** HOME values that name the system itself: HOME is then not hidden (the deny list still holds). */
const SYSTEM_DIRS = new Set([
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib64",
  "/media",
  "/mnt",
  "/nix",
  "/opt",
  "/proc",
  "/run",
  "/sbin",
  "/snap",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/var",
  "/var/tmp",
]);

function realOrUndefined(path: string): string | undefined {
  try {
    lstatSync(path);
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** `~/.local/lib` holds `python3.x/`: only those (the brief's `~/.local/lib/python*`). */
function expandLocalLib(p: string, home: string): string[] {
  if (p !== join(home, ".local", "lib")) return [p];
  try {
    return readdirSync(p)
      .filter((n) => n.startsWith("python"))
      .map((n) => join(p, n));
  } catch {
    return [];
  }
}

/**
 * The view for this run: each existing candidate bound from its real path at its logical path
 * (HOME's prefix rewritten to the real HOME, where the tmpfs is) and, when a link inside HOME took
 * it elsewhere in HOME, at its real path too. `undefined` when HOME is not hidden: the workspace is
 * HOME or holds it (then HOME is the workspace, protected as before).
 */
export function homeView(input: HomeInput & { workspace: string }): HomeView | undefined {
  const logical = resolve(userHome(input.env));
  const home = realOrUndefined(logical);
  // no HOME to hide, or one that is a system directory (HOME=/, HOME=/tmp in some CI images)
  if (!home || SYSTEM_DIRS.has(home) || SYSTEM_DIRS.has(logical)) return undefined;
  const ws = realOrUndefined(input.workspace) ?? resolve(input.workspace);
  if (within(home, ws) || within(logical, input.workspace)) return undefined;
  const atReal = (p: string) => (within(p, logical) ? join(home, relative(logical, p)) : p);
  const binds: HomeBind[] = [];
  const visible = new Set<string>();
  for (const cand of homeCandidates(input).flatMap((c) => expandLocalLib(c, logical))) {
    const real = realOrUndefined(cand);
    if (!real) continue;
    const dests = new Set([atReal(cand)]);
    if (within(real, home)) dests.add(real);
    for (const dest of dests) {
      binds.push({ src: real, dest });
      visible.add(dest);
      if (within(dest, home)) visible.add(join(logical, relative(home, dest)));
    }
  }
  // parents first; a child of a bound directory is visible through it already
  binds.sort((a, b) => a.dest.length - b.dest.length);
  const kept: HomeBind[] = [];
  for (const b of binds)
    if (!kept.some((k) => within(b.dest, k.dest) && (b.dest !== k.dest || b.src === k.src)))
      kept.push(b);
  return { home, homes: [...new Set([logical, home])], binds: kept, visible: [...visible] };
}

/**
 * Whether `path` lies in a hidden HOME and outside everything shown: then no command sees it and no
 * file tool reads it. A directory on the way to a visible path (HOME, `~/.cargo`) is not hidden —
 * listing it shows only the visible entries.
 */
export function hiddenInHome(view: Pick<HomeView, "homes" | "visible">, path: string): boolean {
  if (!view.homes.some((h) => within(path, h))) return false;
  return !view.visible.some((v) => within(path, v) || within(v, path));
}

/** The sentence a refusal of a hidden HOME path ends with. */
export function allowReadHint(path: string, env: Env): string {
  const home = resolve(userHome(env));
  const rel = relative(home, path);
  const shown = !within(path, home) ? path : rel ? `~/${rel}` : "~";
  return `${shown} is in your home directory, which this run's sandbox hides except the workspace, the toolchain set and the paths you allow; pass --allow-read ${shown} (or add it to sandbox.allow_read in ~/.chatcli/config.json) to let the run read it`;
}

/** CHATCLI_HOME: never visible, whatever the user allows. */
export function neverVisible(env: Env): string {
  return resolve(chatcliHome(env));
}
