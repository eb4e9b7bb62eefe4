import { expect, test } from "bun:test";
import { chmod, lstat, readdir, readFile, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { patchFileTool } from "../../../lib/agent/tools/patch-file.ts";
import { writeFileTool } from "../../../lib/agent/tools/write-file.ts";
import { tempDir } from "../../support/ctx.ts";
import { toolCtx, writeTree } from "./support.ts";

test("patch_file and write_file replace a file whole, keeping its mode and leaving no temp file", async () => {
  await using d = await tempDir();
  await writeTree(d.path, { "run.sh": "#!/bin/sh\necho old\n", "conf.txt": "a\n" });
  await chmod(join(d.path, "run.sh"), 0o755);
  await chmod(join(d.path, "conf.txt"), 0o640);
  const ctx = toolCtx(d.path);
  const patched = await patchFileTool.execute(
    { file: "run.sh", search: "echo old", replace: "echo new" },
    ctx,
  );
  expect(patched.isError).toBeFalsy();
  expect(await readFile(join(d.path, "run.sh"), "utf8")).toBe("#!/bin/sh\necho new\n");
  expect((await stat(join(d.path, "run.sh"))).mode & 0o777).toBe(0o755);
  const written = await writeFileTool.execute({ file: "conf.txt", content: "b\n" }, ctx);
  expect(written.output).toBe("wrote 2 bytes to conf.txt (modified)");
  expect((await stat(join(d.path, "conf.txt"))).mode & 0o777).toBe(0o640);
  expect((await readdir(d.path)).sort()).toEqual(["conf.txt", "run.sh"]);
});

test("a patched file reached through a symlink inside the workspace keeps the link", async () => {
  await using d = await tempDir();
  await writeTree(d.path, { "real/config.ts": "export const x = 1;\n" });
  await symlink("real/config.ts", join(d.path, "config.ts"));
  const ctx = toolCtx(d.path);
  const r = await patchFileTool.execute(
    { file: "config.ts", search: "x = 1", replace: "x = 2" },
    ctx,
  );
  expect(r.isError).toBeFalsy();
  expect((await lstat(join(d.path, "config.ts"))).isSymbolicLink()).toBe(true);
  expect(await readFile(join(d.path, "real/config.ts"), "utf8")).toBe("export const x = 2;\n");
});
