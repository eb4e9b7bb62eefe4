/**
 * A link swapped in where chatcli renames a new repository's `.git`: two parallel sub-agents, one
 * runs an allowed command that swaps `box` between a directory and a link to a directory outside the
 * workspace holding repositories of the same names (renameat2 RENAME_EXCHANGE, in a loop); the other
 * makes `box/rK` a new repository (a script: `git init` beside it, one `mv` in) again and again, so after each command chatcli finds `box/rK/` new and
 * renames its `.git`. Whatever the interleaving, no repository outside loses its `.git` (a rename
 * by path string would follow `box` out). Bounded by iterations, never by time.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { toolResults } from "./redteam/support.ts";
import { agent, hostile } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const ROUNDS = 25;

const swapper = (out: string) => `
use Config;
my $nr = $Config{archname} =~ /aarch64/ ? 276 : 316;
my ($a, $b) = ("box", "box-link");
symlink("${out}/box", $b) or die "symlink: $!";
open(my $f, ">", "started") or die; close $f;
my $n = 0;
for my $i (1..5_000_000) {
  last if -e "stop";
  $n++ if syscall($nr, -100, $a, -100, $b, 2) == 0;
  syscall($nr, -100, $a, -100, $b, 2);
}
syscall($nr, -100, $a, -100, $b, 2) if -l $a;
unlink($b);
open(my $g, ">", "stopped") or die; close $g;
print "swapped $n times\\n";
`;
const waiter = (file: string) =>
  `for (1..20_000_000) { last if -e "${file}" } print -e "${file}" ? "go\\n" : "never ${file}\\n";`;

async function race(args: string[]) {
  requireBinary();
  await using llm = await startMockLlm();
  await using h = await hostile(llm, { CHATCLI_AGENT_DELEGATE: "1" });
  await mkdir(join(h.ws, "box"));
  await writeFile(join(h.ws, "swap.pl"), swapper(h.outside));
  await writeFile(join(h.ws, "wait.pl"), waiter("started"));
  // a script: the command parser cannot see the path (only chatcli's rename guard stands)
  // (made beside it and moved in by one rename: git init itself does not survive the swapping)
  await writeFile(join(h.ws, "mk.sh"), 'git init -q "stage/r$1" && mv "stage/r$1" box/\n');
  for (let k = 0; k < ROUNDS; k++)
    await mkdir(join(h.outside, "box", `r${k}`, ".git"), { recursive: true });
  const calls: unknown[] = [{ name: "run_command", arguments: { cmd: "perl wait.pl" } }];
  for (let k = 0; k < ROUNDS; k++)
    calls.push({ name: "run_command", arguments: { cmd: `sh mk.sh ${k}` } });
  calls.push({ name: "write_file", arguments: { file: "stop", content: "stop\n" } });
  llm.push(
    {
      tool_calls: [
        { id: "d1", name: "delegate", arguments: { prompt: "one" } },
        { id: "d2", name: "delegate", arguments: { prompt: "two" } },
      ],
    },
    { tool_calls: [{ id: "s1", name: "run_command", arguments: { cmd: "perl swap.pl" } }] },
    { tool_calls: calls.map((c, k) => ({ id: `g${k}`, ...(c as object) })) as never },
    { text: "sub-agent done" },
    { text: "sub-agent done" },
    { text: "all done" },
  );
  const r = await agent(h, [
    "--permission-mode",
    "edit",
    "--allow-tool",
    "run_command(perl *)",
    "--allow-tool",
    "run_command(sh mk.sh *)",
    ...args,
  ]);
  expect(r.code).toBe(0);
  const results = toolResults(llm.requests);
  // the race really ran: the swapper started, swapped, and was stopped by the last call
  expect(results.get("g0")).toContain("go");
  expect(results.get("s1")).toMatch(/swapped [1-9]\d* times/);
  // (whether chatcli's snapshots caught a new repository under `box` depends on the interleaving;
  // that it renames one at all is tests/e2e/sandbox-nested-repo.test.ts's deterministic case)
  for (let k = 0; k < ROUNDS; k++) {
    const entries = await readdir(join(h.outside, "box", `r${k}`));
    expect(entries).toContain(".git");
    expect(entries.filter((e) => e.startsWith(".git.chatcli"))).toEqual([]);
  }
  if (!existsSync(join(h.ws, "stop")))
    console.error("DIAG", JSON.stringify([...results].slice(-4)), r.stderr.slice(-2000));
  expect(existsSync(join(h.ws, "stop"))).toBe(true);
}

describe("a link swapped in where chatcli renames a new repository's .git", () => {
  live("sandboxed (edit mode): no repository outside loses its .git", () => race([]), 120_000);

  test(
    "no sandbox (--sandbox off): the descriptor walk never follows the swapped link out",
    () => race(["--sandbox", "off"]),
    120_000,
  );
});
