// `npm run build`: the binary dist/chatcli for this machine, then what is generated from it: shell
// completions (dist/completions/) and the man page (dist/man/chatcli.1).
import { resolve } from "node:path";
import { $ } from "bun";
import { compile, currentCommit, ROOT } from "./compile.ts";

const outfile = resolve(ROOT, process.argv[2] ?? "dist/chatcli");
try {
  await compile({ outfile, commit: await currentCommit() });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const version = (await $`${outfile} --version`.text()).trim();
console.log(`built ${outfile} (chatcli ${version})`);
