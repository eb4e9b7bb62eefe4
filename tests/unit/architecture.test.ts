import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

async function sources(dir: string): Promise<string[]> {
  const glob = new Bun.Glob("**/*.ts");
  const out: string[] = [];
  for await (const f of glob.scan({ cwd: join(ROOT, dir) })) out.push(join(dir, f));
  return out;
}

test("lib/ never imports commands/ and lib/core imports nothing else of lib", async () => {
  const offenders: string[] = [];
  for (const file of await sources("lib")) {
    const text = await readFile(join(ROOT, file), "utf8");
    if (/from ["'](\.\.\/)+commands\//.test(text)) offenders.push(file);
    if (file.startsWith("lib/core/") && /from ["']\.\.\/(?!core\/)[a-z]+\//.test(text))
      offenders.push(file);
  }
  expect(offenders).toEqual([]);
});

test("only lib/llm/providers/ imports the SDKs", async () => {
  const offenders: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      if (file.startsWith("lib/llm/providers/")) continue;
      const text = await readFile(join(ROOT, file), "utf8");
      if (
        /from ["'](openai|@anthropic-ai\/(?:sdk|bedrock-sdk)|@google\/genai|@aws-sdk\/[a-z-]+)(\/[^"']*)?["']/.test(
          text,
        )
      )
        offenders.push(file);
    }
  }
  expect(offenders).toEqual([]);
});

test("no source file is over 500 lines", async () => {
  const big: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      const lines = (await readFile(join(ROOT, file), "utf8")).split("\n").length;
      if (lines > 500) big.push(`${file} (${lines})`);
    }
  }
  expect(big).toEqual([]);
});

test("process is touched only by main.ts", async () => {
  const offenders: string[] = [];
  for (const dir of ["lib", "commands"]) {
    for (const file of await sources(dir)) {
      const text = await readFile(join(ROOT, file), "utf8");
      if (/\bprocess\.(env|argv|exit|stdout|stderr|stdin|cwd)\b/.test(text)) offenders.push(file);
    }
  }
  expect(offenders).toEqual([]);
});
