/** The man page `npm run build` generates from the binary's help: man renders it, every command is in it. */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/binary.ts";

const PAGE = join(ROOT, "dist", "man", "chatcli.1");
const hasMan = Bun.spawnSync(["sh", "-c", "command -v man"]).exitCode === 0;

test("dist/man/chatcli.1 exists after the build and holds every command's help", async () => {
  expect(existsSync(PAGE)).toBe(true);
  const roff = await Bun.file(PAGE).text();
  for (const command of [
    "ask",
    "agent",
    "coder",
    "chat",
    "memory facts",
    "sessions show",
    "config",
    "completion",
  ])
    expect(roff).toContain(`.SS "chatcli ${command}"`);
  expect(roff).not.toContain("$HOME"); // built in a clean environment
});

test.skipIf(!hasMan)(
  "man -l renders it without warnings: options, exit codes and examples readable",
  () => {
    const r = Bun.spawnSync(["man", "-l", "--warnings", PAGE], {
      env: {
        PATH: process.env["PATH"] ?? "",
        MANWIDTH: "100",
        MAN_KEEP_FORMATTING: "",
        LANG: "C.UTF-8",
      },
    });
    const text = r.stdout.toString().replace(/.\x08/g, ""); // overstrike bold
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString()).toBe("");
    expect(text).toMatch(/^CHATCLI\(1\)\s+User Commands\s+CHATCLI\(1\)/);
    expect(text).toContain("chatcli agent [options] [task...]");
    expect(text).toContain("--permission-mode <mode>");
    expect(text).toMatch(/^EXIT STATUS\n\s+0\s+success\n/m);
    expect(text).toMatch(/^\s+124\s+--timeout$/m);
    expect(text).toMatch(/^ENVIRONMENT\n\s+CHATCLI_HOME\n/m);
    expect(text).toContain("LLM_PROVIDER=OPENAI|CLAUDEAI|GOOGLEAI|BEDROCK");
  },
);
