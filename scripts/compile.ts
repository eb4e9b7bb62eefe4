// Compiles main.ts into one self-contained binary for a target (the host by default). The SDKs are split
// out and loaded lazily; commander's two heaviest Node imports are replaced by stand-ins (scripts/stubs/).
// Cross targets: Bun fetches the target's runtime from the npm registry (@oven/bun-<os>-<arch>) and
// caches it (~/.bun/install/cache), so only the npm registry needs to be reachable.
import { resolve } from "node:path";
import { $, type BunPlugin } from "bun";

export const ROOT = resolve(import.meta.dir, "..");

export interface Target {
  /** chatcli's name: linux-x64, darwin-arm64, windows-x64 … (binaries and npm packages). */
  name: string;
  /** Bun's --target. */
  bun: Bun.Build.CompileTarget;
  /** Node's process.platform / process.arch, as npm's `os` / `cpu` fields name them. */
  os: string;
  cpu: string;
  exe: "" | ".exe";
}

export const TARGETS: readonly Target[] = [
  { name: "linux-x64", bun: "bun-linux-x64", os: "linux", cpu: "x64", exe: "" },
  { name: "linux-arm64", bun: "bun-linux-arm64", os: "linux", cpu: "arm64", exe: "" },
  { name: "darwin-x64", bun: "bun-darwin-x64", os: "darwin", cpu: "x64", exe: "" },
  { name: "darwin-arm64", bun: "bun-darwin-arm64", os: "darwin", cpu: "arm64", exe: "" },
  { name: "windows-x64", bun: "bun-windows-x64", os: "win32", cpu: "x64", exe: ".exe" },
];

export function targetByName(name: string): Target {
  const target = TARGETS.find((t) => t.name === name);
  if (!target) throw new Error(`unknown target ${name} (${TARGETS.map((t) => t.name).join(", ")})`);
  return target;
}

/** The host's target name (what `npm run build` makes). */
export function hostTarget(): string {
  return `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
}

/** The commit being built: `git rev-parse HEAD`, `-dirty` with uncommitted changes, else "unknown". */
export async function currentCommit(): Promise<string> {
  try {
    const head = (await $`git rev-parse HEAD`.cwd(ROOT).quiet().text()).trim();
    const dirty = (await $`git status --porcelain`.cwd(ROOT).quiet().text()).trim() !== "";
    return dirty ? `${head}-dirty` : head;
  } catch {
    return "unknown";
  }
}

// Bun resolves node: built-ins before plugins' onResolve, so rewrite commander's imports on load.
const commanderStubs: BunPlugin = {
  name: "commander-stubs",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const stub = (name: string) => JSON.stringify(resolve(import.meta.dir, "stubs", name));
      // ESM (`from 'node:x'`, commander 15) or CommonJS (`require('node:x')`, commander 14).
      const contents = source
        .replace(/from ['"]node:util['"]/, `from ${stub("commander-util.ts")}`)
        .replace(/require\(['"]node:util['"]\)/, `require(${stub("commander-util.ts")})`)
        .replace(/from ['"]node:child_process['"]/, `from ${stub("commander-child-process.ts")}`)
        .replace(
          /require\(['"]node:child_process['"]\)/,
          `require(${stub("commander-child-process.ts")})`,
        );
      if (!contents.includes("commander-child-process.ts"))
        throw new Error("commander's imports changed: update scripts/compile.ts");
      return { contents, loader: "js" };
    });
  },
};

/** Compiles the binary to `outfile` (Bun appends nothing: pass `.exe` for Windows yourself). */
export async function compile(options: {
  outfile: string;
  target?: Target;
  commit: string;
}): Promise<void> {
  const target = options.target ?? targetByName(hostTarget());
  const result = await Bun.build({
    entrypoints: [resolve(ROOT, "main.ts")],
    compile: {
      outfile: options.outfile,
      target: target.bun,
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    define: {
      __CHATCLI_BUILD__: JSON.stringify({ commit: options.commit, target: target.name }),
    },
    minify: true,
    bytecode: true,
    splitting: true,
    format: "esm",
    plugins: [commanderStubs],
  });
  if (!result.success) {
    throw new Error(`compiling for ${target.name} failed:\n${result.logs.join("\n")}`);
  }
}
