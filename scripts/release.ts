// `npm run release [-- --targets linux-x64,windows-x64] [--out dist/release]`: the binary for each
// target, named by target (chatcli-linux-x64, chatcli-windows-x64.exe …), SHA256SUMS, each binary
// checked for its format (ELF/Mach-O/PE and CPU) and, where it can run here, smoke-tested; then the
// npm packages staged under <out>/npm (publish each directory with `npm publish`).
import { createHash } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { $ } from "bun";
import pkg from "../package.json" with { type: "json" };
import { checkFormat } from "./binary-format.ts";
import { ciBundle } from "./ci-bundle.ts";
import {
  compile,
  currentCommit,
  hostTarget,
  ROOT,
  TARGETS,
  type Target,
  targetByName,
} from "./compile.ts";
import { collectHelp, helpToMan } from "./manpage.ts";
import { stagePackages } from "./npm-packages.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { targets: { type: "string" }, out: { type: "string" } },
});
const targets = values.targets ? values.targets.split(",").map(targetByName) : [...TARGETS];
const outDir = resolve(ROOT, values.out ?? "dist/release");
const started = performance.now();
const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;

async function sha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
}

/** Runs a host binary: `--version --json` names the target, and a mock ask answers. */
async function smokeTest(binary: string, target: Target, commit: string): Promise<void> {
  const info = JSON.parse(await $`${binary} --version --json`.text());
  if (info.version !== pkg.version || info.target !== target.name || info.commit !== commit) {
    throw new Error(`${binary} --version --json: ${JSON.stringify(info)}`);
  }
  const answer = await $`${binary} ask -m mock:echo "release smoke test" --json`
    .cwd(outDir)
    .env({ PATH: process.env["PATH"] ?? "", HOME: outDir, CHATCLI_HOME: join(outDir, ".home") })
    .quiet()
    .text();
  const envelope = JSON.parse(answer);
  if (envelope.status !== "success" || !String(envelope.result).includes("release smoke test")) {
    throw new Error(`${binary} ask -m mock:echo: ${answer}`);
  }
}

await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
const commit = await currentCommit();
const binaries = new Map<Target, string>();
for (const target of targets) {
  const t0 = performance.now();
  const binary = join(outDir, `chatcli-${target.name}${target.exe}`);
  await compile({ outfile: binary, target, commit });
  const format = await checkFormat(binary, target);
  let check = `${format.format} ${format.arch}`;
  if (target.name === hostTarget()) {
    await smokeTest(binary, target, commit);
    check += ", smoke-tested";
  }
  binaries.set(target, binary);
  console.log(`${basename(binary)}: ${check} (${seconds(t0)})`);
}

// the CI script the GitLab template runs from a release (the GitHub Action runs it from its checkout)
const ciScript = join(outDir, "chatcli-ci.cjs");
await writeFile(ciScript, await ciBundle(ROOT));
// the man page, from the binary this machine runs (`man chatcli` once installed: README)
const host = [...binaries].find(([t]) => t.name === hostTarget())?.[1];
const manPage = host ? join(outDir, "chatcli.1") : undefined;
if (host && manPage) {
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOME: outDir,
    CHATCLI_HOME: join(outDir, ".home"),
  };
  const date = (await $`git log -1 --format=%cs`.cwd(ROOT).quiet().nothrow().text()).trim();
  await writeFile(
    manPage,
    helpToMan(await collectHelp(host, env), pkg.version, date || "1970-01-01"),
  );
}
const sums: string[] = [];
for (const file of [...binaries.values(), ciScript, ...(manPage ? [manPage] : [])])
  sums.push(`${await sha256(file)}  ${basename(file)}`);
await writeFile(join(outDir, "SHA256SUMS"), `${sums.join("\n")}\n`);
await stagePackages({ version: pkg.version, outDir: join(outDir, "npm"), binaries, manPage });
await rm(join(outDir, ".home"), { recursive: true, force: true });
console.log(
  `${outDir}: ${binaries.size} binaries, chatcli-ci.cjs, ${manPage ? "chatcli.1, " : ""}SHA256SUMS, npm/ (${seconds(started)})`,
);
