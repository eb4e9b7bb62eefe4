/**
 * The npm packages as a user gets them: `npm pack` the launcher and the linux-x64 package (holding the
 * built binary), `npm install -g` both tarballs into a temp prefix offline with an empty cache (no
 * registry, no postinstall download), then run `chatcli` from the prefix's bin/ like a user would.
 */
import { beforeAll, expect, test } from "bun:test";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { targetByName } from "../../scripts/compile.ts";
import { stagePackages } from "../../scripts/npm-packages.ts";
import { BINARY, ROOT, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

async function sh(cmd: string[], options: { cwd: string; env?: Record<string, string> }) {
  const proc = Bun.spawn(cmd, { ...options, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

test("npm pack + offline npm install -g of launcher and linux-x64 package: --version and a mock ask run", async () => {
  await using work = await tempDir("chatcli-npm-");
  const target = targetByName("linux-x64");
  const [launcher, platform] = await stagePackages({
    version: pkg.version,
    outDir: join(work.path, "stage"),
    binaries: new Map([[target, BINARY]]),
    manPage: join(ROOT, "dist", "man", "chatcli.1"),
  });
  const npmEnv = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: work.path,
    npm_config_cache: join(work.path, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  const tarballs: string[] = [];
  for (const dir of [launcher as string, platform as string]) {
    const packed = await sh(["npm", "pack", "--json", "--pack-destination", work.path], {
      cwd: dir,
      env: npmEnv,
    });
    expect(packed.code).toBe(0);
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarballs.push(join(work.path, info!.filename));
    if (dir === launcher) {
      expect(info!.files.map((f) => f.path).sort()).toEqual([
        "README.md",
        "bin/chatcli-ci.js",
        "bin/chatcli.js",
        "bin/fetch-binary.js",
        "bin/report.js",
        "bin/sandbox.js",
        "man/chatcli.1",
        "package.json",
      ]);
    }
  }
  expect(tarballs.map((t) => t.slice(work.path.length + 1))).toEqual([
    `chatcli-${pkg.version}.tgz`,
    `chatcli-linux-x64-${pkg.version}.tgz`,
  ]);
  const launcherTgz = (await stat(tarballs[0]!)).size;
  // the launcher is tiny (scripts and the man page); the binary is in the platform package
  expect(launcherTgz).toBeLessThan(60_000);

  const prefix = join(work.path, "prefix");
  const install = await sh(
    ["npm", "install", "-g", "--offline", "--prefix", prefix, "--no-audit", ...tarballs],
    { cwd: work.path, env: npmEnv },
  );
  expect(install.code).toBe(0);
  expect(install.stderr).not.toContain("ERR");
  expect((await readdir(join(prefix, "bin"))).sort()).toEqual(["chatcli", "chatcli-ci"]);
  // npm links the man page: `man chatcli` finds it under the prefix
  expect(await readdir(join(prefix, "share", "man", "man1"))).toEqual(["chatcli.1"]);
  // chatcli-ci's own modules came along
  const ci = await sh([join(prefix, "bin", "chatcli-ci")], { cwd: work.path, env: npmEnv });
  expect(ci).toMatchObject({
    code: 2,
    stdout: "::error title=chatcli::the task input is required\n",
  });

  const chatcli = join(prefix, "bin", "chatcli");
  const userEnv = { PATH: npmEnv.PATH, HOME: work.path, CHATCLI_HOME: join(work.path, ".chatcli") };
  const version = await sh([chatcli, "--version"], { cwd: work.path, env: userEnv });
  expect(version).toEqual({ stdout: `${pkg.version}\n`, stderr: "", code: 0 });
  const info = JSON.parse(
    (await sh([chatcli, "--version", "--json"], { cwd: work.path, env: userEnv })).stdout,
  );
  expect(info).toMatchObject({ version: pkg.version, target: "linux-x64" });

  await using llm = await startMockLlm();
  llm.push({ text: "installed from npm" });
  const ask = await sh([chatcli, "ask", "hello", "--json"], {
    cwd: work.path,
    env: { ...userEnv, ...llm.env("openai") },
  });
  expect(ask.code).toBe(0);
  expect(JSON.parse(ask.stdout)).toMatchObject({ status: "success", result: "installed from npm" });
  expect(llm.requests.length).toBe(1);

  // Exit codes come through the launcher unchanged (scripts branch on them).
  const usage = await sh([chatcli, "ask", "--max-tokens", "0", "hi"], {
    cwd: work.path,
    env: userEnv,
  });
  expect(usage.code).toBe(2);
  const manifest = JSON.parse(
    await readFile(join(prefix, "lib/node_modules/chatcli/package.json"), "utf8"),
  );
  expect(manifest.scripts).toBeUndefined(); // no postinstall
}, 120_000);

test("the launcher explains a missing platform package (--omit=optional) with exit 3", async () => {
  await using work = await tempDir("chatcli-npm-");
  const [launcher] = await stagePackages({
    version: pkg.version,
    outDir: work.path,
    binaries: new Map(),
  });
  const r = await sh(["node", join(launcher as string, "bin", "chatcli.js"), "--version"], {
    cwd: work.path,
    env: { PATH: process.env["PATH"] ?? "" },
  });
  expect(r.code).toBe(3);
  expect(r.stderr).toBe(
    "chatcli: cannot run on linux-x64: its package @chatcli/linux-x64 is not installed: npm skips optional dependencies with --omit=optional / --no-optional; reinstall without it (npm i -g chatcli)\n",
  );
});

test("the launcher passes SIGTERM (a CI timeout) to the binary: exit 143 and the envelope still printed", async () => {
  await using work = await tempDir("chatcli-npm-");
  const [launcher] = await stagePackages({
    version: pkg.version,
    outDir: work.path,
    binaries: new Map(),
  });
  const replies = join(work.path, "replies.jsonl");
  await Bun.write(replies, `${JSON.stringify({ stall: true })}\n`);
  const proc = Bun.spawn(
    [
      "node",
      join(launcher as string, "bin", "chatcli.js"),
      "ask",
      "-m",
      "mock:script",
      "--fake-responses",
      replies,
      "hi",
      "--jsonl",
    ],
    {
      cwd: work.path,
      env: { PATH: process.env["PATH"] ?? "", HOME: work.path, CHATCLI_BINARY_PATH: BINARY },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("session.started")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  proc.kill("SIGTERM"); // the launcher's pid, as a CI runner's timeout sends it
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  expect(await proc.exited).toBe(143);
  const last = JSON.parse(out.trim().split("\n").at(-1) as string);
  expect(last).toMatchObject({ type: "result", status: "error", exit_code: 143 });
});
