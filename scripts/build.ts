// Builds the single self-contained binary dist/chatcli (SDKs split out and loaded lazily).
import { $ } from "bun";

const outfile = process.argv[2] ?? "dist/chatcli";
await $`bun build main.ts --compile --minify --bytecode --splitting --format=esm --outfile ${outfile}`.quiet();
const version = (await $`${outfile} --version`.text()).trim();
console.log(`built ${outfile} (chatcli ${version})`);
