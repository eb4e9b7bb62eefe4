import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  containsProtected,
  protectedMatch,
  protectedPaths,
} from "../../../lib/policy/protected-paths.ts";
import { tempDir } from "../../support/ctx.ts";

describe("protected paths (CONTRACT §5)", () => {
  const env = { HOME: "/home/u", CHATCLI_HOME: "/srv/chatcli" };

  test("the credential stores, CHATCLI_HOME and user deny_read entries", () => {
    const list = protectedPaths(env, { sandbox: { deny_read: ["~/secrets", "/opt/keys", "rel"] } });
    for (const p of [
      "/home/u/.ssh",
      "/home/u/.aws",
      "/home/u/.gnupg",
      "/home/u/.config/gcloud",
      "/home/u/.azure",
      "/home/u/.kube",
      "/home/u/.docker/config.json",
      "/home/u/.netrc",
      "/home/u/.npmrc",
      "/home/u/.config/gh",
      "/home/u/.git-credentials",
      "/srv/chatcli",
      "/home/u/secrets",
      "/opt/keys",
    ])
      expect(list.paths).toContain(p);
    expect(list.paths.some((p) => p.includes("rel"))).toBe(false);
  });

  test("matches files inside, the entries themselves and /proc/<pid>/environ; not neighbours", () => {
    const list = protectedPaths(env);
    expect(protectedMatch(list, "/home/u/.ssh/id_rsa")).toBe("/home/u/.ssh");
    expect(protectedMatch(list, "/home/u/.ssh")).toBe("/home/u/.ssh");
    expect(protectedMatch(list, "/home/u/.docker/config.json")).toBeDefined();
    expect(protectedMatch(list, "/home/u/.docker/other.json")).toBeUndefined();
    expect(protectedMatch(list, "/home/u/.sshx/key")).toBeUndefined();
    expect(protectedMatch(list, "/proc/123/environ")).toBeDefined();
    expect(protectedMatch(list, "/proc/self/environ")).toBeDefined();
    expect(protectedMatch(list, "/proc/1/task/7/environ")).toBeDefined();
    expect(protectedMatch(list, "/proc/self/status")).toBeUndefined();
    expect(protectedMatch(list, "/srv/chatcli/memory/MEMORY.md")).toBe("/srv/chatcli");
    expect(protectedMatch(list, "/home/u/project/README.md")).toBeUndefined();
  });

  test("a symlink into a protected directory is caught; recursive roots list what they contain", async () => {
    await using home = await tempDir();
    await mkdir(join(home.path, ".ssh"));
    await writeFile(join(home.path, ".ssh", "id_rsa"), "KEY");
    await mkdir(join(home.path, "ws"));
    await symlink(join(home.path, ".ssh", "id_rsa"), join(home.path, "ws", "notes.txt"));
    const list = protectedPaths({ HOME: home.path });
    expect(protectedMatch(list, join(home.path, "ws", "notes.txt"))).toBeDefined();
    expect(containsProtected(list, home.path)).toContain(join(home.path, ".ssh"));
    expect(containsProtected(list, join(home.path, "ws"))).toEqual([]);
    expect(containsProtected(list, "/")).toContain("/proc/<pid>/environ");
  });

  test("CHATCLI_HOME defaults to ~/.chatcli", () => {
    expect(protectedPaths({ HOME: "/h" }).paths).toContain("/h/.chatcli");
  });
});
