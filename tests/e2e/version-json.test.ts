/** `chatcli --version --json`: what a bug report or an install check needs, from the fast path. */
import { beforeAll, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

test("--version --json (either order, -V too) prints version, commit and build target", async () => {
  await using home = await tempDir();
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"]).stdout.toString().trim();
  for (const args of [
    ["--version", "--json"],
    ["--json", "--version"],
    ["-V", "--json"],
  ]) {
    const r = await runChatcli(args, { env: baseEnv(home.path), cwd: home.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const info = JSON.parse(r.stdout);
    expect(Object.keys(info)).toEqual(["version", "commit", "target", "bun"]);
    expect(info.version).toBe(pkg.version);
    expect(info.target).toBe(`${process.platform}-${process.arch}`);
    expect(info.commit === head || info.commit === `${head}-dirty`).toBe(true);
    expect(info.bun).toBe(Bun.version);
  }
  const plain = await runChatcli(["--version"], { env: baseEnv(home.path), cwd: home.path });
  expect(plain.stdout).toBe(`${pkg.version}\n`);
});
