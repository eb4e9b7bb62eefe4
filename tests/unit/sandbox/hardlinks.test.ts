import { expect, test } from "bun:test";
import { linkSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { directFileOps } from "../../../lib/sandbox/file-ops.ts";
import { inodeKey, linkedProtected, linksInside } from "../../../lib/sandbox/hardlinks.ts";
import { tempDir } from "../../support/ctx.ts";

function file(path: string, text = "x\n"): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function hardLink(target: string, at: string): void {
  mkdirSync(dirname(at), { recursive: true });
  linkSync(target, at);
}

test("the protected set: deny-listed and hidden HOME files with other links; stores, visible paths and single links are not in it", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const ws = join(t.path, "ws");
  const key = file(join(home, ".ssh/id_rsa"));
  const m2 = file(join(home, ".m2/settings.xml"));
  const lone = file(join(home, ".ssh/known_hosts")); // one link: nothing to find elsewhere
  const store = file(join(home, ".local/share/pnpm/store/v3/files/3f/abc-index.js"));
  const shown = file(join(home, ".cargo/bin/tool"));
  const deep = file(join(home, "a/b/c/d/secret.txt")); // deeper than the scan
  for (const [target, at] of [
    [key, "hl-ssh"],
    [m2, "conf/hl-m2"],
    [store, "node_modules/.pnpm/x@1/node_modules/x/index.js"],
    [shown, "bin/tool"],
    [deep, "deep.txt"],
  ] as const)
    hardLink(target, join(ws, at));
  const view = { home, homes: [home], visible: [ws, join(home, ".cargo/bin")] };
  const set = linkedProtected([join(home, ".ssh")], view);
  const k = (p: string) => inodeKey(statSync(p));
  expect(set.keys.sort()).toEqual([k(key), k(m2)].sort());
  expect(set.keys).not.toContain(k(lone));
  expect(linksInside(ws, set.keys).sort()).toEqual([join(ws, "conf/hl-m2"), join(ws, "hl-ssh")]);
  // no key on the workspace's device, or none at all: no walk
  expect(linksInside(ws, ["0:1"])).toEqual([]);
  expect(linksInside(ws, [])).toEqual([]);
});

test("the file tools refuse a linked protected file, read or written, and read the store's", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const ws = join(t.path, "ws");
  const key = file(join(home, ".ssh/id_rsa"), "KEY\n");
  const store = file(join(home, ".local/share/pnpm/store/v3/files/3f/abc"), "STORE\n");
  hardLink(key, join(ws, "hl-ssh"));
  hardLink(store, join(ws, "node_modules/x/index.js"));
  const ops = directFileOps({
    workspace: ws,
    workspaceReal: ws,
    bypass: false,
    denied: [join(home, ".ssh")],
    patterns: [],
    linked: linkedProtected([join(home, ".ssh")]).keys,
  });
  const read = (p: string) =>
    ops.read({ path: join(ws, p), wholeMax: 1e6, window: 1e6, fromEnd: false });
  await expect(read("hl-ssh")).rejects.toThrow("hl-ssh is a hard link to a protected file");
  const data = new TextEncoder().encode("more\n");
  await expect(ops.write({ path: join(ws, "hl-ssh"), data, append: true })).rejects.toThrow(
    "hard link to a protected file",
  );
  expect(Buffer.from((await read("node_modules/x/index.js")).bytes).toString()).toBe("STORE\n");
  const search = (o: typeof ops) =>
    o.search(
      {
        path: ws,
        hidden: true,
        skip: [],
        globs: [],
        maxFileBytes: 1e6,
        source: "KEY|STORE",
        flags: "",
        context: 0,
        maxResults: 100,
        perFileMs: 1000,
      },
      new AbortController().signal,
    );
  const found = await search(ops);
  expect(JSON.stringify(found)).toContain("STORE");
  expect(JSON.stringify(found)).not.toContain("KEY");
});
