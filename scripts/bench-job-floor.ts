// Job floors for the start-up scenarios (issue 23): binaries compiled like chatcli and the floor
// that do only the job a command cannot skip, nothing else — no settings, no workspace, no checks.
// They say how much of a command's ratio is the runtime doing the work at all, so the budget
// (≤ 1.3× a compiled hello-world) can be read against what the same runtime needs for the job:
//   memory facts: read memory_index.json, JSON.parse, a live score per fact (Date.parse, the
//     decay formula), sort, add live_score, JSON.stringify, write;
//   bootstrap show: read the files it shows (given as arguments), write them with a header each.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { $ } from "bun";

const FACTS_JOB = `import { readFileSync, writeSync } from "node:fs";
const home = process.env.CHATCLI_HOME ?? "";
const facts = JSON.parse(readFileSync(home + "/memory/memory_index.json", "utf8"));
const now = Date.now();
for (const f of facts) {
  const days = Math.max(0, now - Date.parse(f.last_accessed)) / 86400000;
  f.live_score = (1 + Math.log(1 + f.access_count)) * Math.exp((-days * Math.LN2) / 30) * (0.5 + f.confidence);
}
facts.sort((a, b) => b.live_score - a.live_score);
writeSync(1, JSON.stringify(facts) + "\\n");
`;

const FILES_JOB = `import { readFileSync, writeSync } from "node:fs";
const files = process.argv.slice(2);
for (let i = 0; i < files.length; i++) {
  const text = readFileSync(files[i], "utf8");
  writeSync(2, "── " + (i + 1) + "/" + files.length + " " + files[i] + " ──\\n");
  writeSync(1, text + "\\n\\n");
}
`;

async function compileJob(dir: string, name: string, source: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const src = join(dir, `${name}.ts`);
  await writeFile(src, source);
  const out = join(dir, name);
  await $`bun build ${src} --compile --minify --bytecode --format=esm --outfile ${out}`.quiet();
  return out;
}

/** The two job binaries, compiled under `dir`. */
export async function buildJobFloors(dir: string): Promise<{ facts: string; files: string }> {
  return {
    facts: await compileJob(dir, "facts-job", FACTS_JOB),
    files: await compileJob(dir, "files-job", FILES_JOB),
  };
}
