/**
 * `chatcli compact` prints today's bytes (issue 23 streams the output message by message instead of
 * building it whole): every format commands/compact.ts accepts, from a file and from stdin, at
 * levels 1 and 3, against goldens recorded from the binary before the change
 * (tests/fixtures/compact-golden.json: sha256 and length of stdout, stderr, exit code).
 * UPDATE_GOLDEN=/path/to/chatcli records them again with that binary.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, baseEnv, ROOT, requireBinary } from "../support/binary.ts";
import { CASE_ENV, compactCases } from "../support/compact-cases.ts";
import { tempDir } from "../support/ctx.ts";

const GOLDEN = join(ROOT, "tests", "fixtures", "compact-golden.json");
const RUNS: Record<string, string[]> = {
  "level1-file": ["compact", "--level", "1", "--no-llm"],
  "level3-file": ["compact", "--level", "3", "--no-llm", "--budget", "3000"],
  "level1-stdin": ["compact", "--level", "1", "--no-llm", "-"],
};

interface Golden {
  code: number;
  stdoutSha256: string;
  stdoutBytes: number;
  stderr: string;
}

async function run(bin: string, args: string[], input: string, dir: string): Promise<Golden> {
  const file = join(dir, "in.json");
  writeFileSync(file, input);
  const stdin = args.at(-1) === "-";
  const proc = Bun.spawn([bin, ...args, ...(stdin ? [] : [file])], {
    cwd: dir,
    env: baseEnv(dir, CASE_ENV),
    stdin: stdin ? new TextEncoder().encode(input) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).arrayBuffer(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return {
    code,
    stdoutSha256: createHash("sha256").update(new Uint8Array(out)).digest("hex"),
    stdoutBytes: out.byteLength,
    stderr: err,
  };
}

const update = process.env["UPDATE_GOLDEN"];

describe("chatcli compact output is byte for byte what it was", () => {
  if (update) {
    test("record goldens", async () => {
      await using dir = await tempDir();
      const all: Record<string, Golden> = {};
      for (const [name, input] of Object.entries(compactCases())) {
        for (const [mode, args] of Object.entries(RUNS))
          all[`${name} ${mode}`] = await run(update, args, input, dir.path);
      }
      writeFileSync(GOLDEN, `${JSON.stringify(all, null, 2)}\n`);
    });
    return;
  }
  const goldens = JSON.parse(readFileSync(GOLDEN, "utf8")) as Record<string, Golden>;
  for (const [name, input] of Object.entries(compactCases())) {
    test(name, async () => {
      requireBinary();
      await using dir = await tempDir();
      for (const [mode, args] of Object.entries(RUNS)) {
        const got = await run(BINARY, args, input, dir.path);
        expect({ case: `${name} ${mode}`, ...got }).toEqual({
          case: `${name} ${mode}`,
          ...(goldens[`${name} ${mode}`] as Golden),
        });
      }
    });
  }
});
