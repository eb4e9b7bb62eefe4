import { expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../../support/binary.ts";
import { tempDir } from "../../support/ctx.ts";

/**
 * Runs main.ts with a preload that fails in the background once main.ts has installed its handler
 * for `event` (a timer alone could fire while main.ts is still loading, before any handler exists).
 */
function failAfterHandler(event: string, failure: string): string {
  return `const on = process.on.bind(process);
process.on = ((name, fn) => {
  const r = on(name, fn);
  if (name === ${JSON.stringify(event)}) setTimeout(() => { ${failure} }, 0);
  return r;
});
`;
}

async function runWith(preload: string) {
  await using dir = await tempDir();
  const file = join(dir.path, "preload.ts");
  await writeFile(file, preload);
  const proc = Bun.spawn(
    [process.execPath, "--preload", file, join(ROOT, "main.ts"), "ask", "-m", "mock:echo", "hi"],
    {
      env: { PATH: process.env["PATH"] ?? "", HOME: dir.path, NO_COLOR: "1" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

test("an unhandled rejection: one line on stderr (no source excerpt), the run finishes, exit 1", async () => {
  const r = await runWith(
    failAfterHandler("unhandledRejection", 'Promise.reject(new Error("late boom"));'),
  );
  expect(r.stderr).toBe("chatcli: late boom\n");
  expect(r.stdout).toContain('"content":"hi"');
  expect(r.code).toBe(1);
});

test("an exception thrown by a callback: one line on stderr, exit 1", async () => {
  const r = await runWith(failAfterHandler("uncaughtException", 'throw new Error("sync boom");'));
  expect(r.stderr).toBe("chatcli: sync boom\n");
  expect(r.code).toBe(1);
});
