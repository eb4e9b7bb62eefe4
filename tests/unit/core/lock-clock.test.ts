import { expect, test } from "bun:test";
import { stat, utimes, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pid } from "node:process";
import { withLock } from "../../../lib/core/fs.ts";
import { tempDir } from "../../support/ctx.ts";

const FS = resolve(import.meta.dir, "../../../lib/core/fs.ts");

/** Sets a file's mtime `ms` before the kernel's clock (never the process clock, which may be shifted). */
async function age(path: string, ms: number): Promise<void> {
  const at = new Date((await stat(path)).mtimeMs - ms);
  await utimes(path, at, at);
}

test("an empty lock (creator killed before writing its pid) is taken after ~2 s, not 30 s", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "memory_index.json");
  await writeFile(`${path}.lock`, "");
  await age(`${path}.lock`, 2_500);
  const t = performance.now();
  expect(await withLock(path, async () => "ran", { timeoutMs: 1_500 })).toBe("ran");
  expect(performance.now() - t).toBeLessThan(1_500);
});

test("a fresh empty lock is a creator about to write its pid: left alone", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "memory_index.json");
  await writeFile(`${path}.lock`, "");
  const error = await withLock(path, async () => "ran", {
    timeoutMs: 300,
    emptyStaleMs: 60_000,
  }).catch((e: unknown) => e);
  expect(String(error)).toContain("could not lock");
});

const faketime = Bun.which("faketime");

test.skipIf(!faketime)(
  "a process whose clock is 40 days ahead does not steal a live holder's fresh lock",
  async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "memory_index.json");
    // Held by a live process seen from another host: only its age could make it look abandoned.
    await writeFile(`${path}.lock`, `${pid}\nsome-other-host\n`);
    const script = `import { withLock } from ${JSON.stringify(FS)};
      const r = await withLock(${JSON.stringify(path)}, async () => "stolen", { timeoutMs: 800 }).catch((e) => String(e));
      process.stdout.write(r);`;
    const child = Bun.spawn([faketime as string, "-f", "+40d", process.execPath, "-e", script], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(child.stdout).text();
    await child.exited;
    expect(out).toContain("could not lock");
  },
);
