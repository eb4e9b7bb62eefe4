/**
 * `npm run release` as a maintainer runs it, on two of the five targets to fit the suite's budget (the
 * host, smoke-tested, and linux-arm64, a cross target Bun builds with the runtime it gets from the npm
 * registry); the format check of all five is in tests/unit/packaging/binary-format.test.ts.
 */
import { expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

test("release: binaries named by target, SHA256SUMS that verify, formats checked, npm packages staged", async () => {
  await using out = await tempDir("chatcli-release-");
  const proc = Bun.spawn(
    [
      process.execPath,
      "scripts/release.ts",
      "--targets",
      "linux-x64,linux-arm64",
      "--out",
      out.path,
    ],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  // Bun prints "Decompressing..." the first time it fetches a cross target's runtime (a fresh machine)
  const quiet = stderr.replace(/^Decompressing\.\.\.\s*$/gm, "").trim();
  expect({ code, stderr: quiet }).toEqual({ code: 0, stderr: "" });
  expect(stdout).toContain("chatcli-linux-x64: elf x64, smoke-tested");
  expect(stdout).toContain("chatcli-linux-arm64: elf arm64 (");

  const files = (await readdir(out.path)).sort();
  expect(files).toEqual([
    "SHA256SUMS",
    "chatcli-ci.cjs",
    "chatcli-linux-arm64",
    "chatcli-linux-x64",
    "chatcli.1",
    "npm",
  ]);
  const sums = await readFile(join(out.path, "SHA256SUMS"), "utf8");
  expect(sums).toMatch(
    /^[0-9a-f]{64} {2}chatcli-linux-x64\n[0-9a-f]{64} {2}chatcli-linux-arm64\n[0-9a-f]{64} {2}chatcli-ci\.cjs\n[0-9a-f]{64} {2}chatcli\.1\n$/,
  );
  const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: out.path });
  expect(check.stdout.toString()).toBe(
    "chatcli-linux-x64: OK\nchatcli-linux-arm64: OK\nchatcli-ci.cjs: OK\nchatcli.1: OK\n",
  );
  // the GitLab template's CI script runs on plain Node
  const ci = Bun.spawnSync(["node", join(out.path, "chatcli-ci.cjs")], {
    env: { PATH: process.env["PATH"] ?? "" },
  });
  expect(ci.stdout.toString()).toBe("::error title=chatcli::the task input is required\n");

  const arm = await Bun.file(join(out.path, "chatcli-linux-arm64")).slice(0, 20).bytes();
  expect([...arm.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
  expect(arm[18]).toBe(0xb7); // EM_AARCH64

  const info = JSON.parse(
    Bun.spawnSync([join(out.path, "chatcli-linux-x64"), "--version", "--json"]).stdout.toString(),
  );
  expect(info.target).toBe("linux-x64");
  expect(info.commit).toMatch(/^([0-9a-f]{40}(-dirty)?|unknown)$/);

  expect((await readdir(join(out.path, "npm"))).sort()).toEqual([
    "@chatcli__linux-arm64",
    "@chatcli__linux-x64",
    "chatcli",
  ]);
  const arm64pkg = JSON.parse(
    await readFile(join(out.path, "npm/@chatcli__linux-arm64/package.json"), "utf8"),
  );
  expect(arm64pkg).toMatchObject({ name: "@chatcli/linux-arm64", os: ["linux"], cpu: ["arm64"] });
}, 120_000);

test("release: an unknown target is refused before anything is built", async () => {
  await using out = await tempDir("chatcli-release-");
  const proc = Bun.spawnSync(
    [process.execPath, "scripts/release.ts", "--targets", "linux-ia32", "--out", out.path],
    {
      cwd: ROOT,
    },
  );
  expect(proc.exitCode).not.toBe(0);
  expect(proc.stderr.toString()).toContain("unknown target linux-ia32 (linux-x64, linux-arm64,");
  expect(await readdir(out.path)).toEqual([]);
});
