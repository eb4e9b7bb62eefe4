/**
 * How the GitHub Action gets chatcli before there is an npm release: a release binary by URL (checked
 * against the release's SHA256SUMS), a clear error when npm has no package, and the OS sandbox made
 * ready and required for the agent (the real action/ci.js, a faked runner, 127.0.0.1 only).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BINARY, ROOT, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";

beforeAll(() => {
  requireBinary();
});

const SCRIPT = join(ROOT, "action", "ci.js");

async function runAction(env: Record<string, string>, cwd: string) {
  const proc = Bun.spawn(["node", SCRIPT], { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

async function runner(root: string, inputs: Record<string, string>) {
  const workspace = join(root, "workspace");
  await mkdir(join(workspace, ".git"), { recursive: true });
  const output = join(root, "github_output");
  await writeFile(output, "");
  return {
    workspace,
    output,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: join(root, "home"),
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: output,
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      RUNNER_TEMP: join(root, "runner_temp"),
      INPUT_TIMEOUT: "2m",
      ...inputs,
    } as Record<string, string>,
  };
}

/** A release directory served on 127.0.0.1: chatcli-linux-x64 and SHA256SUMS (or a wrong one). */
async function release(sums: "right" | "wrong" | "none") {
  // the real binary only where it must run; a stand-in where the check must refuse it
  const body =
    sums === "right"
      ? await Bun.file(BINARY).bytes()
      : new TextEncoder().encode("#!/bin/sh\necho pwned\n");
  const hash = createHash("sha256").update(body).digest("hex");
  const line = `${sums === "wrong" ? "0".repeat(64) : hash}  chatcli-linux-x64\n`;
  const served: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      served.push(path);
      if (path === "/releases/v0/chatcli-linux-x64") return new Response(body);
      if (path === "/releases/v0/SHA256SUMS" && sums !== "none") return new Response(line);
      return new Response("not found", { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/releases/v0/`,
    served,
    [Symbol.dispose]: () => server.stop(true),
  };
}

describe("GitHub Action: getting chatcli", () => {
  test("chatcli-url: the release binary is downloaded, checked against SHA256SUMS, and run", async () => {
    await using dir = await tempDir();
    using rel = await release("right");
    const { env, output } = await runner(dir.path, {
      "INPUT_CHATCLI-URL": rel.url,
      INPUT_COMMAND: "ask",
      INPUT_MODEL: "mock:echo",
      INPUT_TASK: "hello from a release binary",
    });
    const r = await runAction(env, dir.path);
    expect(r.code).toBe(0);
    expect(rel.served).toEqual(["/releases/v0/SHA256SUMS", "/releases/v0/chatcli-linux-x64"]);
    expect(r.stdout).toContain(`::group::Download ${rel.url}chatcli-linux-x64`);
    expect(r.stdout).toMatch(/verified sha256 [0-9a-f]{64}/);
    expect(await readFile(output, "utf8")).toContain("hello from a release binary");
  }, 60_000);

  test("chatcli-url: a hash that does not match, or no SHA256SUMS, stops before anything runs", async () => {
    for (const sums of ["wrong", "none"] as const) {
      await using dir = await tempDir();
      using rel = await release(sums);
      const { env, output } = await runner(dir.path, {
        "INPUT_CHATCLI-URL": rel.url,
        INPUT_COMMAND: "ask",
        INPUT_MODEL: "mock:echo",
        INPUT_TASK: "x",
      });
      const r = await runAction(env, dir.path);
      expect({ sums, code: r.code }).toEqual({ sums, code: 1 });
      expect(r.stdout).toMatch(
        sums === "wrong" ? /::error title=chatcli::.*does not match/ : /::error.*chatcli-sha256/,
      );
      expect(await readFile(output, "utf8")).toBe("");
    }
  }, 60_000);

  test("npm without the package: the error says to use chatcli-url or chatcli-path", async () => {
    await using dir = await tempDir();
    const { env } = await runner(dir.path, {
      INPUT_COMMAND: "ask",
      INPUT_TASK: "x",
      INPUT_PACKAGES: join(dir.path, "no-such-chatcli-0.0.0.tgz"),
      npm_config_offline: "true",
      npm_config_cache: join(dir.path, "npm-cache"),
    });
    const r = await runAction(env, dir.path);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/::error title=chatcli::npm could not install .*chatcli-url/);
  }, 60_000);

  (SANDBOX_MISSING ? test.skip : test)(
    "agent: bubblewrap is made ready first, and the run requires the sandbox (--sandbox required)",
    async () => {
      await using dir = await tempDir();
      const replies = join(dir.path, "replies.jsonl");
      await writeFile(replies, `${JSON.stringify({ text: "nothing to do" })}\n`);
      const { env, output } = await runner(dir.path, {
        "INPUT_CHATCLI-PATH": BINARY,
        INPUT_TASK: "look",
        INPUT_MODEL: "mock:script",
        INPUT_ARGS: `--fake-responses\n${replies}`,
      });
      const r = await runAction(env, dir.path);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("chatcli: bubblewrap is ready");
      const envelope = JSON.parse(
        /envelope<<\S+\n(.*)\n/.exec(await readFile(output, "utf8"))?.[1] ?? "{}",
      );
      expect(envelope.sandbox).toMatchObject({ kind: "bubblewrap", available: true });
      // no sandbox on the runner: required stops the step with exit 3, never runs unconfined
      const none = await runAction(
        {
          ...env,
          CHATCLI_SANDBOX_BWRAP: join(dir.path, "no-bwrap"),
          "INPUT_INSTALL-SANDBOX": "false",
        },
        dir.path,
      );
      expect(none.code).toBe(3);
      expect(none.stdout).toMatch(
        /::error title=chatcli config_error \(exit 3\)::--sandbox required/,
      );
    },
    60_000,
  );
});
