import { expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readConfined } from "../../lib/core/confined.ts";
import { escapeControls, neutraliseControls } from "../../lib/core/controls.ts";
import { tempDir } from "../support/ctx.ts";

test("readConfined: inside links read, links out (file or parent) refused, missing and FIFOs safe", async () => {
  await using ws = await tempDir();
  await using out = await tempDir();
  await writeFile(join(ws.path, "a.md"), "A");
  await writeFile(join(out.path, "secret"), "S");
  await mkdir(join(out.path, "dir"));
  await writeFile(join(out.path, "dir", "x.md"), "X");
  await symlink("a.md", join(ws.path, "in.md"));
  await symlink(join(out.path, "secret"), join(ws.path, "out.md"));
  await symlink(join(out.path, "dir"), join(ws.path, "linked"));
  await symlink(join(ws.path, "nowhere"), join(ws.path, "dangling.md"));
  execFileSync("mkfifo", [join(ws.path, "fifo")]);
  const kind = (p: string) => readConfined(join(ws.path, p), ws.path).kind;
  expect(kind("a.md")).toBe("ok");
  expect(kind("in.md")).toBe("ok");
  expect(kind("out.md")).toBe("outside");
  expect(kind("linked/x.md")).toBe("outside");
  expect(kind("dangling.md")).toBe("missing");
  expect(kind("none.md")).toBe("missing");
  expect(kind("fifo")).toBe("unreadable");
  const r = readConfined(join(ws.path, "in.md"), ws.path);
  expect(r.kind === "ok" && r.raw.toString()).toBe("A");
});

test("control characters written out: C0, DEL, C1; CRLF kept in file text", () => {
  expect(escapeControls("a\u001b[2Jb\u009b31m\u009d52;c\u0007\tz\n")).toBe(
    "a\\x1b[2Jb\\u009b31m\\u009d52;c\\x07\tz\n",
  );
  expect(neutraliseControls("l1\r\nl2\rx\u001b]52;c;AAAA\u0007")).toEqual({
    text: "l1\r\nl2\\x0dx\\x1b]52;c;AAAA\\x07",
    count: 3,
  });
});
