/**
 * Check-then-use races against chatcli's own file tools. Two parallel sub-agents: one runs an allowed
 * command that swaps `sub` between a directory and links out of the workspace (to a directory
 * outside, and to ~/.ssh) in a loop; the other calls write_file, patch_file, multipatch and read_file
 * on `sub/…` again and again. Whatever interleaving the machine produces, nothing outside the
 * workspace is created or changed and no canary reaches the provider. Bounded by iterations (the
 * swapper stops when the file calls are done, or after SWAPS swaps), never by time.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, CANARY, type Hostile, hostile, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const ROUNDS = 60;
const SWAPS = 5_000_000;

/**
 * Swaps `sub` with a link to OUT, then with a link to SSH, and back, until `stop` appears (or SWAPS
 * swaps) — renameat2(RENAME_EXCHANGE), so `sub` is always there, either the directory or a link. The
 * targets are inside the script, where the command parser cannot see them: only the file tools'
 * own guard stands.
 */
const swapper = (out: string, ssh: string) => `
use Config;
my $nr = $Config{archname} =~ /aarch64/ ? 276 : 316;
my ($out, $ssh, $max) = ("${out}", "${ssh}", ${SWAPS});
my ($sub, $l1, $l2) = ("sub", "link-out", "link-ssh");
symlink($out, $l1) or die "symlink: $!";
symlink($ssh, $l2) or die "symlink: $!";
open(my $f, ">", "started") or die; close $f;
my $n = 0;
for my $i (1..$max) {
  last if -e "stop";
  my $l = $i % 2 ? $l1 : $l2;
  $n++ if syscall($nr, -100, $sub, -100, $l, 2) == 0;
  syscall($nr, -100, $sub, -100, $l, 2);
}
for my $l ($l1, $l2) { syscall($nr, -100, $sub, -100, $l, 2) if -d $l && !-l $l; }
unlink($l1, $l2) if -d $sub && !-l $sub;
print "swapped $n times\n";
`;

/** Waits (by iterations) until the swapper has started. */
const WAITER = `for (1..20_000_000) { last if -e "started" } print -e "started" ? "go\\n" : "never started\\n";`;

async function scene(h: Hostile): Promise<void> {
  await mkdir(join(h.ws, "sub"));
  await writeFile(join(h.ws, "sub", "x"), "hello inside\n");
  await writeFile(join(h.ws, "sub", "y"), "hello y\n");
  await writeFile(join(h.ws, "sub", "id_rsa"), "not a key\n");
  await writeFile(join(h.ws, "swap.pl"), swapper(h.outside, join(h.home, ".ssh")));
  await writeFile(join(h.ws, "wait.pl"), WAITER);
  // the files a raced call would reach outside
  await writeFile(join(h.outside, "x"), `hello outside ${CANARY}-outside\n`);
  await writeFile(join(h.outside, "y"), `hello outside y ${CANARY}-outside-y\n`);
  await writeFile(join(h.outside, "id_rsa"), `${CANARY}-outside-key\n`);
}

function fileCalls(): unknown[] {
  const calls: unknown[] = [{ name: "run_command", arguments: { cmd: "perl wait.pl" } }];
  for (let i = 0; i < ROUNDS; i++) {
    calls.push(
      { name: "read_file", arguments: { file: "sub/x" } },
      { name: "read_file", arguments: { file: "sub/id_rsa" } },
      { name: "list_directory", arguments: { dir: "sub" } },
      ...(i % 10 === 0 ? [{ name: "search_files", arguments: { term: "hello", dir: "sub" } }] : []),
      { name: "write_file", arguments: { file: "sub/x", content: `hello written ${i}\n` } },
      { name: "write_file", arguments: { file: `sub/new-${i}`, content: "created\n" } },
      {
        name: "write_file",
        arguments: { file: "sub/id_rsa", content: "overwritten\n", append: i % 2 === 0 },
      },
      { name: "patch_file", arguments: { file: "sub/x", search: "hello", replace: "hello!" } },
      {
        name: "multipatch",
        arguments: {
          edits: [
            { file: "sub/x", search: "hello", replace: "hello?" },
            { file: "sub/y", search: "hello", replace: "hello?" },
          ],
        },
      },
    );
  }
  calls.push({ name: "write_file", arguments: { file: "stop", content: "stop\n" } });
  return calls.map((c, k) => ({ id: `f${k}`, ...(c as object) }));
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort())
    out[name] = await readFile(join(dir, name), "utf8").catch(() => "<dir>");
  return out;
}

async function race(args: string[]) {
  requireBinary();
  await using llm = await startMockLlm();
  await using h = await hostile(llm, { CHATCLI_AGENT_DELEGATE: "1" });
  await scene(h);
  const outsideBefore = await snapshot(h.outside);
  const sshBefore = await snapshot(join(h.home, ".ssh"));
  llm.push(
    {
      tool_calls: [
        { id: "d1", name: "delegate", arguments: { prompt: "one" } },
        { id: "d2", name: "delegate", arguments: { prompt: "two" } },
      ],
    },
    // the two sub-agents' first requests take these in whichever order they arrive
    {
      tool_calls: [
        {
          id: "s1",
          name: "run_command",
          arguments: { cmd: "perl swap.pl" },
        },
      ],
    },
    { tool_calls: fileCalls() as never },
    { text: "sub-agent done" },
    { text: "sub-agent done" },
    { text: "all done" },
  );
  const r = await agent(h, [
    "--permission-mode",
    "edit",
    "--allow-tool",
    "run_command(perl *)",
    ...args,
  ]);
  expect(r.code).toBe(0);
  const sent = sentToProvider(llm);
  // the race really ran: the swapper started, swapped, and was stopped by the last file call
  expect(sent).toContain("go");
  expect(sent).toMatch(/swapped [1-9]\d* times/);
  expect(await snapshot(h.outside)).toEqual(outsideBefore);
  expect(await snapshot(join(h.home, ".ssh"))).toEqual(sshBefore);
  expect(sent).not.toContain(CANARY);
  // and the tools do work in this run: the last call (outside the swapped directory) wrote its file
  expect(await readFile(join(h.ws, "stop"), "utf8")).toBe("stop\n");
}

describe("file tools under a link-swapping race", () => {
  live(
    "sandboxed (edit mode): nothing outside is created, changed or sent to the provider",
    () => race([]),
    120_000,
  );

  test(
    "no sandbox (--sandbox off): the openat-style walk never follows a swapped link out of the workspace",
    () => race(["--sandbox", "off"]),
    120_000,
  );
});
