/**
 * The README's install lines, run as written on a fresh home (no ~/.local yet): the binary lands on
 * PATH, `man chatcli` finds the page, the completion files are where the shells look.
 */
import { beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BINARY, ROOT, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

const hasMan = Bun.spawnSync(["sh", "-c", "command -v man"]).exitCode === 0;

/** The ```sh block of the README that follows `marker`. */
async function block(marker: string): Promise<string[]> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf(marker);
  expect(at).toBeGreaterThan(0);
  const body = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1] ?? "";
  return body.split("\n").filter((l) => l.trim() !== "");
}

function sh(lines: string[], cwd: string, home: string) {
  const env = {
    PATH: `${join(home, ".local", "bin")}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
  };
  const r = Bun.spawnSync(["bash", "-e", "-c", lines.join("\n")], { cwd, env });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString(), env };
}

function manFinds(env: Record<string, string>): string {
  return Bun.spawnSync(["man", "-w", "chatcli"], { env: { ...env, MANPATH: "" } })
    .stdout.toString()
    .trim();
}

test("from source: the install lines after the build work on a fresh home; man chatcli finds the page", async () => {
  await using home = await tempDir();
  const lines = await block("**From source**");
  expect(lines[0]).toStartWith("npm ci && npm run build");
  const r = sh(lines.slice(1), ROOT, home.path);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  const version = Bun.spawnSync(["chatcli", "--version"], { env: r.env });
  expect(version.stdout.toString()).toMatch(/^\d+\.\d+\.\d+\n$/);
  if (hasMan) expect(manFinds(r.env)).toBe(join(home.path, ".local/share/man/man1/chatcli.1"));
});

test("a release binary: checksums, install and man page on a fresh home", async () => {
  await using home = await tempDir();
  await using release = await tempDir();
  await copyFile(BINARY, join(release.path, "chatcli-linux-x64"));
  await copyFile(join(ROOT, "dist/man/chatcli.1"), join(release.path, "chatcli.1"));
  const sums = await Promise.all(
    ["chatcli-linux-x64", "chatcli.1"].map(async (f) => {
      const hash = createHash("sha256").update(await readFile(join(release.path, f)));
      return `${hash.digest("hex")}  ${f}`;
    }),
  );
  await writeFile(join(release.path, "SHA256SUMS"), `${sums.join("\n")}\n`);
  const lines = (await block("**A release binary**")).map((l) => l.replace(/\s+#.*$/, ""));
  const r = sh(lines, release.path, home.path);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("chatcli-linux-x64: OK");
  expect(JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({
    target: "linux-x64",
  });
  if (hasMan) expect(manFinds(r.env)).toBe(join(home.path, ".local/share/man/man1/chatcli.1"));
});

test("shell completion: the README's lines write each script where its shell looks, on a fresh home", async () => {
  await using home = await tempDir();
  const install = sh((await block("**From source**")).slice(1), ROOT, home.path);
  expect(install.code).toBe(0);
  const lines = (await block("**Shell completion**")).map((l) => l.replace(/\s+#.*$/, ""));
  const r = sh(lines, home.path, home.path);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  for (const file of [
    ".local/share/bash-completion/completions/chatcli",
    ".zfunc/_chatcli",
    ".config/fish/completions/chatcli.fish",
  ])
    expect({ file, there: existsSync(join(home.path, file)) }).toEqual({ file, there: true });
  expect(await readFile(join(home.path, ".zfunc/_chatcli"), "utf8")).toStartWith(
    "#compdef chatcli",
  );
});
