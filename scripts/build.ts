// `npm run build`: the binary dist/chatcli for this machine, then what is generated from it: shell
// completions (dist/completions/) and the man page (dist/man/chatcli.1), from its own commands and help.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { $ } from "bun";
import { compile, currentCommit, ROOT } from "./compile.ts";
import { collectHelp, helpToMan } from "./manpage.ts";

const outfile = resolve(ROOT, process.argv[2] ?? "dist/chatcli");
try {
  await compile({ outfile, commit: await currentCommit() });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const version = (await $`${outfile} --version`.text()).trim();

// A clean environment: no user config, sessions or terminal width leak into generated files.
const home = await mkdtemp(join(tmpdir(), "chatcli-build-"));
const env = { PATH: process.env["PATH"] ?? "", HOME: home, CHATCLI_HOME: join(home, ".chatcli") };
try {
  const dist = dirname(outfile);
  await mkdir(join(dist, "completions"), { recursive: true });
  for (const [shell, file] of [
    ["bash", "chatcli.bash"],
    ["zsh", "_chatcli"],
    ["fish", "chatcli.fish"],
  ] as const) {
    await writeFile(
      join(dist, "completions", file),
      await $`${outfile} completion ${shell}`.env(env).text(),
    );
  }
  await mkdir(join(dist, "man"), { recursive: true });
  const pages = await collectHelp(outfile, env);
  // The date of the commit built (reproducible), not of today.
  const date =
    (await $`git log -1 --format=%cs`.cwd(ROOT).quiet().nothrow().text()).trim() || "1970-01-01";
  await writeFile(join(dist, "man", "chatcli.1"), helpToMan(pages, version, date));
  console.log(
    `built ${outfile} (chatcli ${version}), completions/, man/chatcli.1 (${pages.length} help pages)`,
  );
} finally {
  await rm(home, { recursive: true, force: true });
}
