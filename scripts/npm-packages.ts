// Stages the npm packages (the esbuild / Codex pattern): `chatcli`, a tiny Node launcher whose
// optionalDependencies name one package per platform, and `@chatcli/<target>`, each holding one binary
// and npm's `os`/`cpu` fields so npm installs only the one that fits. No postinstall, no download.
import { chmod, copyFile, cp, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT, TARGETS, type Target } from "./compile.ts";

export const SCOPE = "@chatcli";

export function platformPackageName(target: Target): string {
  return `${SCOPE}/${target.name}`;
}

/** The directory name of a staged package under the output directory. */
export function stagedDir(outDir: string, name: string): string {
  return join(outDir, name.replace("/", "__"));
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes `outDir/chatcli` (the launcher) and `outDir/@chatcli__<target>` for each binary given.
 * The launcher depends on every target's package (a user's npm picks the one for their platform).
 * Returns the staged directories, launcher first.
 */
export async function stagePackages(options: {
  version: string;
  outDir: string;
  binaries: ReadonlyMap<Target, string>;
  /** The man page: npm links it into <prefix>/share/man on a global install (`man chatcli`). */
  manPage?: string;
}): Promise<string[]> {
  const { version, outDir } = options;
  const launcherSrc = join(ROOT, "npm", "chatcli");
  const launcher = stagedDir(outDir, "chatcli");
  await rm(launcher, { recursive: true, force: true });
  await mkdir(join(launcher, "bin"), { recursive: true });
  await cp(join(launcherSrc, "bin", "chatcli.js"), join(launcher, "bin", "chatcli.js"));
  await chmod(join(launcher, "bin", "chatcli.js"), 0o755);
  await cp(join(launcherSrc, "README.md"), join(launcher, "README.md"));
  // `chatcli-ci`: the CI runner the GitLab template calls (the GitHub Action's own script).
  await cp(join(ROOT, "action", "ci.js"), join(launcher, "bin", "chatcli-ci.js"));
  for (const file of ["report.js", "fetch-binary.js", "sandbox.js"])
    await cp(join(ROOT, "action", file), join(launcher, "bin", file));
  await chmod(join(launcher, "bin", "chatcli-ci.js"), 0o755);
  const manifest = JSON.parse(await Bun.file(join(launcherSrc, "package.json")).text());
  manifest.version = version;
  if (options.manPage) {
    await mkdir(join(launcher, "man"), { recursive: true });
    await cp(options.manPage, join(launcher, "man", "chatcli.1"));
    manifest.man = ["man/chatcli.1"];
  }
  manifest.optionalDependencies = Object.fromEntries(
    TARGETS.map((t) => [platformPackageName(t), version]),
  );
  await writeJson(join(launcher, "package.json"), manifest);

  const dirs = [launcher];
  for (const [target, binary] of options.binaries) {
    const name = platformPackageName(target);
    const dir = stagedDir(outDir, name);
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, "bin"), { recursive: true });
    const exe = `chatcli${target.exe}`;
    await copyFile(binary, join(dir, "bin", exe));
    await chmod(join(dir, "bin", exe), 0o755);
    await writeJson(join(dir, "package.json"), {
      name,
      version,
      description: `The chatcli binary for ${target.name} (installed by the chatcli package)`,
      os: [target.os],
      cpu: [target.cpu],
      files: [`bin/${exe}`],
      preferUnplugged: true,
    });
    await writeFile(
      join(dir, "README.md"),
      `# ${name}\n\nThe \`chatcli\` binary for ${target.name}. Install \`chatcli\` instead: it picks this package on ${target.name}.\n`,
    );
    dirs.push(dir);
  }
  return dirs;
}
