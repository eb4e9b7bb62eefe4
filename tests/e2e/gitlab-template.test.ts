/**
 * The GitLab template's own script (.gitlab/chatcli.gitlab-ci.yml, run by bash as a runner would):
 * from a release URL it fetches chatcli-ci.cjs and the binary, checks both against SHA256SUMS, and
 * runs the agent with the sandbox required; a tampered file stops the job before anything runs.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { ciBundle } from "../../scripts/ci-bundle.ts";
import { BINARY, ROOT, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";

beforeAll(() => {
  requireBinary();
});

async function templateScript(): Promise<string> {
  const doc = parse(await readFile(join(ROOT, ".gitlab", "chatcli.gitlab-ci.yml"), "utf8"));
  return (doc[".chatcli"].script as string[]).join("\n");
}

const sha = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

async function serveRelease(tamper: boolean) {
  const ci = await ciBundle(ROOT);
  const binary = await Bun.file(BINARY).bytes();
  const sums = `${sha(binary)}  chatcli-linux-x64\n${sha(ci)}  chatcli-ci.cjs\n`;
  const files: Record<string, string | Uint8Array> = {
    SHA256SUMS: sums,
    "chatcli-ci.cjs": tamper ? `${ci}\nrequire("node:fs").writeFileSync("pwned", "")\n` : ci,
    "chatcli-linux-x64": binary,
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const name = new URL(req.url).pathname.replace(/^\/rel\//, "");
      const body = files[name];
      return body === undefined ? new Response("nope", { status: 404 }) : new Response(body);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/rel/`, [Symbol.dispose]: () => server.stop(true) };
}

async function job(root: string, url: string) {
  const project = join(root, "project");
  await mkdir(join(project, ".git"), { recursive: true });
  const replies = join(root, "replies.jsonl");
  await writeFile(replies, `${JSON.stringify({ text: "All good." })}\n`);
  const proc = Bun.spawn(["bash", "-e", "-c", await templateScript()], {
    cwd: project,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: join(root, "home"),
      CI: "true",
      GITLAB_CI: "true",
      CI_PROJECT_DIR: project,
      CHATCLI_RELEASE_URL: url,
      CHATCLI_CI_TASK: "check the project",
      CHATCLI_CI_MODEL: "mock:script",
      CHATCLI_CI_SANDBOX: "required",
      CHATCLI_CI_ARGS: `--fake-responses\n${replies}`,
      TMPDIR: root,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code, project };
}

describe("GitLab template", () => {
  (SANDBOX_MISSING ? test.skip : test)(
    "from a release URL: files checked, the agent runs sandboxed, the artifacts are written",
    async () => {
      await using dir = await tempDir();
      using release = await serveRelease(false);
      const r = await job(dir.path, release.url);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      const envelope = JSON.parse(await readFile(join(r.project, "chatcli-envelope.json"), "utf8"));
      expect(envelope).toMatchObject({ status: "success", result: "All good." });
      expect(envelope.sandbox).toMatchObject({ kind: "bubblewrap", available: true });
      expect(await readFile(join(r.project, "chatcli.env"), "utf8")).toContain(
        "CHATCLI_EXIT_CODE=0",
      );
    },
    60_000,
  );

  test("a file that does not match SHA256SUMS stops the job before anything runs", async () => {
    await using dir = await tempDir();
    using release = await serveRelease(true);
    const r = await job(dir.path, release.url);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("FAILED");
    expect(existsSync(join(r.project, "pwned"))).toBe(false);
    expect(existsSync(join(r.project, "chatcli-envelope.json"))).toBe(false);
  }, 60_000);
});
