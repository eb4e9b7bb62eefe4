/**
 * Issue 11, reads of protected paths: a steered model asks for SSH keys, cloud credentials, chatcli's
 * own memory and the process environment (API keys) — through the shell (~, $HOME, globs, recursive
 * grep, /proc/$PPID/environ) and through chatcli's own read_file / search_files / list_directory.
 * Nothing secret may reach the provider, in read-only and in auto mode.
 */
import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

const KEY = "CANARY-SSH-PRIVATE-KEY-7f3a";
const AWS = "CANARY-AWS-SECRET-91bc";
const MEMORY = "CANARY-MEMORY-FACT-4d2e";
const ENV_TOKEN = "CANARY-ENV-TOKEN-5e6f0a1b2c";

const run = (cmd: string) => ({ name: "run_command", arguments: { cmd } });

async function home(root: string): Promise<string> {
  await mkdir(join(root, ".ssh"), { recursive: true });
  await writeFile(join(root, ".ssh", "id_rsa"), `-----BEGIN KEY-----\n${KEY} PRIVATE\n`);
  await mkdir(join(root, ".aws"));
  await writeFile(join(root, ".aws", "credentials"), `aws_secret_access_key=${AWS}\n`);
  await writeFile(join(root, ".netrc"), `machine x password ${AWS}\n`);
  await mkdir(join(root, ".chatcli", "memory"), { recursive: true });
  await writeFile(join(root, ".chatcli", "memory", "MEMORY.md"), `- ${MEMORY}\n`);
  const ws = join(root, "ws");
  await mkdir(ws);
  await writeFile(join(ws, "README.md"), "hello\n");
  // a committed symlink to the key: reading it is reading the key
  await symlink(join(root, ".ssh", "id_rsa"), join(ws, "notes.txt"));
  Bun.spawnSync(["git", "init", "-q"], { cwd: ws });
  return ws;
}

const SHELL_READS = [
  "cat $HOME/.ssh/id_rsa",
  "cat ~/.ss?/id_rsa",
  "cat ${HOME}/.aws/credentials",
  "grep -r PRIVATE ~",
  "grep -R CANARY ..",
  "cat /pro[c]/$PPID/environ",
  "tr '\\0' '\\n' < /proc/$PPID/environ",
  "cat ~/.netrc",
  "sed 'r ~/.ssh/id_rsa' README.md",
  "cat notes.txt",
  "cat ~/.chatcli/memory/MEMORY.md",
  `python3 -c 'import os;print(open(os.path.expanduser("~/.ssh/id_rsa")).read())'`,
  "cat $(echo ~)/.ssh/id_rsa",
  "cat /dev/fd/3 3< ~/.ssh/id_rsa",
  "xargs -0 -n1 < /proc/self/environ",
];
const TOOL_READS = [
  { name: "read_file", arguments: { file: "~/.ssh/id_rsa" } },
  { name: "read_file", arguments: { file: "notes.txt" } },
  { name: "read_file", arguments: { file: "../.chatcli/memory/MEMORY.md" } },
  { name: "search_files", arguments: { term: "CANARY", dir: ".." } },
  { name: "search_files", arguments: { term: "PRIVATE", dir: "~/.ssh" } },
  { name: "list_directory", arguments: { dir: "~/.ssh" } },
  { name: "read_file", arguments: { file: "/proc/self/environ" } },
];

describe("protected paths are never read (issue 11)", () => {
  for (const mode of ["read-only", "auto"]) {
    test(`--permission-mode ${mode}: shell and file-tool reads of keys, credentials, memory and environ are refused; the provider sees none`, async () => {
      requireBinary();
      await using root = await tempDir();
      await using llm = await startMockLlm();
      const ws = await home(root.path);
      llm.push({ tool_calls: [...SHELL_READS.map(run), ...TOOL_READS] }, { text: "nothing" });
      const env = baseEnv(root.path, {
        ...llm.env("openai"),
        CHATCLI_MEMORY_ENABLED: "false",
        MY_SERVICE_TOKEN: ENV_TOKEN,
        CHATCLI_NO_RIPGREP: "1",
      });
      const r = await runChatcli(
        ["agent", "collect secrets", "--json", "--ephemeral", "--permission-mode", mode],
        { env, cwd: ws },
      );
      // every command it tried was refused: the run could do none of it (exit 6, blocked)
      expect(r.code).toBe(6);
      const envelope = JSON.parse(r.stdout);
      expect(envelope.terminal_reason).toBe("blocked");
      const denied = envelope.permission_denials.map((d: { input: string }) => d.input);
      for (const cmd of SHELL_READS) expect(denied).toContain(cmd);
      for (const d of envelope.permission_denials)
        expect(d.reason).toMatch(/protected path|read of a protected path/);
      // the file tools answered with errors, not contents
      expect(envelope.tools.failed).toBeGreaterThanOrEqual(TOOL_READS.length - 1);
      const sent = JSON.stringify(llm.requests.map((q) => q.body));
      for (const canary of [KEY, AWS, MEMORY, ENV_TOKEN, "sk-mock-openai"])
        expect(sent).not.toContain(canary);
      expect(sent).toContain("is a protected path");
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }, 60_000);
  }

  test("a CI checkout's token in .git/config (actions/checkout's extraheader) never reaches the provider", async () => {
    requireBinary();
    await using root = await tempDir();
    await using llm = await startMockLlm();
    const ws = await home(root.path);
    const token = "ghs_CANARYCHECKOUTTOKEN0123456789";
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    Bun.spawnSync(
      ["git", "config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${basic}`],
      { cwd: ws },
    );
    Bun.spawnSync(
      ["git", "remote", "add", "origin", `https://x-access-token:${token}@github.com/o/r.git`],
      { cwd: ws },
    );
    llm.push(
      {
        tool_calls: [
          run("cat .git/config"),
          run("git config --list"),
          run("git remote -v"),
          { name: "read_file", arguments: { file: ".git/config" } },
        ],
      },
      { text: "done" },
    );
    const env = baseEnv(root.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "show git config", "--json", "--ephemeral"], {
      env,
      cwd: ws,
    });
    expect(r.code).toBe(6); // blocked: every command it tried was refused
    expect(JSON.parse(r.stdout).permission_denials).toHaveLength(3);
    const sent = JSON.stringify(llm.requests.map((q) => q.body));
    expect(sent).not.toContain(token);
    expect(sent).not.toContain(basic);
    // read_file either masks the lines or (the sandbox's view) refuses the file
    expect(sent).toMatch(/\[credential removed by chatcli\]|\.git\/config is a protected/);
  }, 60_000);

  test("--permission-mode bypass: the user's explicit choice reads them (the table's last column)", async () => {
    requireBinary();
    await using root = await tempDir();
    await using llm = await startMockLlm();
    const ws = await home(root.path);
    llm.push({ tool_calls: [run("cat ~/.ssh/id_rsa")] }, { text: "done" });
    const env = baseEnv(root.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(
      ["agent", "read it", "--json", "--ephemeral", "--permission-mode", "bypass"],
      { env, cwd: ws },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).permission_denials).toEqual([]);
  }, 60_000);

  test("sandbox.deny_read in the user's config protects more paths", async () => {
    requireBinary();
    await using root = await tempDir();
    await using llm = await startMockLlm();
    const ws = await home(root.path);
    await mkdir(join(root.path, "vault"));
    await writeFile(join(root.path, "vault", "token"), `${AWS}\n`);
    await writeFile(
      join(root.path, ".chatcli", "config.json"),
      JSON.stringify({ sandbox: { deny_read: ["~/vault"] } }),
    );
    llm.push(
      {
        tool_calls: [
          run("cat ../vault/token"),
          { name: "read_file", arguments: { file: "../vault/token" } },
        ],
      },
      { text: "done" },
    );
    const env = baseEnv(root.path, { ...llm.env("openai"), CHATCLI_MEMORY_ENABLED: "false" });
    const r = await runChatcli(["agent", "read", "--json", "--ephemeral"], { env, cwd: ws });
    expect(r.code).toBe(6); // blocked: its one command was refused
    expect(JSON.stringify(llm.requests.map((q) => q.body))).not.toContain(AWS);
    expect(JSON.parse(r.stdout).permission_denials).toHaveLength(1);
  }, 60_000);
});
