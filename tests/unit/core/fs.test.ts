import { expect, test } from "bun:test";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readJsonFile, withLock, writeFileAtomic } from "../../../lib/core/fs.ts";
import { tempDir } from "../../support/ctx.ts";

test("atomic write leaves no temp file and mode 0600", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "a", "b.json");
  await writeFileAtomic(path, "{}");
  expect(await readFile(path, "utf8")).toBe("{}");
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect(await readdir(join(dir.path, "a"))).toEqual(["b.json"]);
});

test("a corrupt JSON file is quarantined, never overwritten", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "x.json");
  await writeFile(path, "{not json");
  const first = await readJsonFile(path);
  expect(first.kind).toBe("corrupt");
  expect(await readFile(`${path}.corrupt`, "utf8")).toBe("{not json");
  await writeFile(path, "[oops");
  const second = await readJsonFile(path);
  expect(second.kind === "corrupt" && second.quarantinedTo).toMatch(/\.corrupt-\d+/);
});

test("withLock serialises read-modify-write cycles", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "counter");
  await writeFile(path, "0");
  await Promise.all(
    Array.from({ length: 20 }, () =>
      withLock(path, async () => {
        const n = Number(await readFile(path, "utf8"));
        await Bun.sleep(1);
        await writeFile(path, String(n + 1));
      }),
    ),
  );
  expect(await readFile(path, "utf8")).toBe("20");
});
