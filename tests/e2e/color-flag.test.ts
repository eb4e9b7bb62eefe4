/**
 * `--color` on ask/agent/coder is never silently ignored: it colours the diagnostics on stderr
 * (warnings yellow, errors red, hints and progress dim); stdout — the answer, or JSON — stays plain.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

const ESC = "\u001b[";

beforeAll(() => {
  requireBinary();
});

async function run(command: string, replies: unknown[], args: string[], extra = {}) {
  await using home = await tempDir();
  const file = join(home.path, "replies.jsonl");
  await writeFile(file, replies.map((r) => JSON.stringify(r)).join("\n"));
  const env = baseEnv(home.path, { CHATCLI_MEMORY_ENABLED: "false", ...extra });
  delete env["NO_COLOR"];
  return await runChatcli(
    [command, "-m", "mock:script", "--fake-responses", file, "--ephemeral", ...args, "task"],
    { env, cwd: home.path },
  );
}

describe("--color on the one-shot commands", () => {
  test("ask: always colours the stderr warning, never and a pipe under auto do not; stdout plain", async () => {
    const always = await run("ask", [{ text: "" }], ["--color", "always"]);
    expect(always.code).toBe(0);
    expect(always.stderr).toContain(`${ESC}33mchatcli: warning:`);
    expect(always.stdout).not.toContain(ESC);
    for (const args of [["--color", "never"], ["--color", "auto"], []]) {
      const plain = await run("ask", [{ text: "" }], args);
      expect({ args, colored: plain.stderr.includes(ESC) }).toEqual({ args, colored: false });
      expect(plain.stderr).toContain("chatcli: warning:");
    }
    const forced = await run("ask", [{ text: "" }], ["--color", "auto"], { FORCE_COLOR: "1" });
    expect(forced.stderr).toContain(`${ESC}33m`);
  });

  for (const command of ["agent", "coder"]) {
    test(`${command}: always colours progress (dim), the error (red) and its hint; --json stays plain`, async () => {
      const script = [
        { tool_calls: [{ name: "write_file", arguments: { file: "x.txt", content: "x" } }] },
        { text: "could not" },
      ];
      const r = await run(command, script, ["--color", "always"]);
      expect(r.code).toBe(6);
      expect(r.stderr).toContain(`${ESC}2m▸ write_file x.txt → denied`);
      expect(r.stderr).toMatch(/\u001b\[31mchatcli: every edit and command/);
      expect(r.stderr).toContain(`${ESC}2mhint:`);
      expect(r.stdout).toBe("could not\n");
      const json = await run(command, script, ["--color", "always", "--json"]);
      expect(json.stdout).not.toContain(ESC);
      expect(JSON.parse(json.stdout).terminal_reason).toBe("blocked");
    });
  }
});
