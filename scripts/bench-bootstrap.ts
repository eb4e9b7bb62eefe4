/**
 * Bench scenario for `chatcli bootstrap show`: five bootstrap files of 8 KiB each and 20 path rules.
 * `setupBootstrapBench(dir)` lays it out for scripts/bench.ts; run this file directly to time the
 * in-process build (cold cache vs warm cache) as a quick check.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BootstrapCache } from "../lib/bootstrap/cache.ts";
import { buildSystemContext } from "../lib/bootstrap/context.ts";
import { BOOTSTRAP_FILES } from "../lib/bootstrap/files.ts";

export interface BootstrapBench {
  /** HOME for the run (holds `.chatcli/`). */
  home: string;
  /** cwd for the run: two levels below the workspace root. */
  cwd: string;
  workspaceRoot: string;
  env: Record<string, string>;
  /** Arguments for the binary. */
  argv: string[];
  /** Every file it wrote (the job floor reads them: scripts/bench-job-floor.ts). */
  files: string[];
}

function filler(title: string, bytes: number): string {
  const line = `- ${title}: keep changes small, test them, and explain the trade-offs briefly.\n`;
  let text = `# ${title}\n\n`;
  while (text.length + line.length <= bytes) text += line;
  return text.padEnd(bytes, ".");
}

/** Creates the scenario under `dir`: 3 global + 2 workspace files (8 KiB each), 10 + 10 rules. */
export function setupBootstrapBench(dir: string): BootstrapBench {
  const home = join(dir, "home");
  const globalDir = join(home, ".chatcli");
  const workspaceRoot = join(dir, "project");
  const cwd = join(workspaceRoot, "src", "pkg");
  for (const d of [
    join(globalDir, "rules"),
    join(workspaceRoot, ".git"),
    join(workspaceRoot, ".chatcli", "rules"),
    cwd,
  ]) {
    mkdirSync(d, { recursive: true });
  }
  const files: string[] = [];
  BOOTSTRAP_FILES.forEach((name, i) => {
    const target = i < 3 ? globalDir : workspaceRoot;
    files.push(join(target, name));
    writeFileSync(join(target, name), filler(name, 8 * 1024));
  });
  const globs = ['"*.go"', '"src/**"', '"*.ts", "*.tsx"', '"cmd/**"', '"*.sql"'];
  for (let i = 0; i < 20; i++) {
    const target = i < 10 ? join(globalDir, "rules") : join(workspaceRoot, ".chatcli", "rules");
    const front = i % 4 === 3 ? "" : `---\npaths: [${globs[i % globs.length]}]\n---\n\n`;
    files.push(join(target, `rule-${String(i).padStart(2, "0")}.md`));
    writeFileSync(
      join(target, `rule-${String(i).padStart(2, "0")}.md`),
      `${front}${filler(`rule ${i}`, 600)}\n`,
    );
  }
  return {
    home,
    cwd,
    workspaceRoot,
    env: { HOME: home, CHATCLI_MEMORY_ENABLED: "false" },
    argv: ["bootstrap", "show", "main.go"],
    files,
  };
}

if (import.meta.main) {
  const dir = await mkdtemp(join(tmpdir(), "chatcli-bench-bootstrap-"));
  try {
    const bench = setupBootstrapBench(dir);
    const input = {
      env: bench.env,
      cwd: bench.cwd,
      now: new Date(),
      mode: "ask" as const,
      corePrompt: "core",
      touchedPaths: ["main.go"],
    };
    const time = async (label: string, cache: () => BootstrapCache, n = 200) => {
      await buildSystemContext({ ...input, cache: cache() });
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await buildSystemContext({ ...input, cache: cache() });
      console.log(`${label}: ${((performance.now() - t0) / n).toFixed(3)} ms per build`);
    };
    await time("cold (fresh cache, as a one-shot run)", () => new BootstrapCache());
    const warm = new BootstrapCache();
    await time("warm (same cache, as a REPL turn)", () => warm);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
