import { expect, test } from "bun:test";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CheckpointStore, contentHash } from "../../../lib/history/checkpoints.ts";
import { tempDir } from "../../support/ctx.ts";
import { user } from "./build.ts";

test("a checkpoint object that cannot be written fails loudly and leaves no temp file behind", async () => {
  await using dir = await tempDir();
  const store = new CheckpointStore(join(dir.path, "s1.chatcli"));
  const message = user("hello");
  const hash = contentHash(JSON.stringify(message));
  const fan = join(dir.path, "s1.chatcli", "objects", hash.slice(0, 2));
  // Something that is not a file sits where the object goes: the rename into place fails.
  await mkdir(join(fan, hash), { recursive: true });
  await writeFile(join(fan, hash, "x"), "");
  await expect(store.putMessages([message])).rejects.toThrow();
  expect(await readdir(fan)).toEqual([hash]);
});

test("checkpoint objects are written whole, 0600, and read back", async () => {
  await using dir = await tempDir();
  const store = new CheckpointStore(join(dir.path, "s1.chatcli"));
  const [hash] = await store.putMessages([user("hello")]);
  const text = new TextDecoder().decode(await store.getObject(hash as string));
  expect(JSON.parse(text)).toEqual(user("hello"));
  const fan = join(dir.path, "s1.chatcli", "objects", (hash as string).slice(0, 2));
  expect(await readdir(fan)).toEqual([hash as string]);
});
