/** Workspace trust on a real terminal (tmux): the one-time question, remembered in ~/.chatcli/config.json. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BINARY, baseEnv, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { startTmux, TMUX_MISSING, tmuxAvailable } from "../support/tmux.ts";

const HAS_TMUX = tmuxAvailable();
if (!HAS_TMUX) console.warn(TMUX_MISSING);

describe("the trust question on a TTY", () => {
  test.skipIf(!HAS_TMUX)(
    "no: the config is ignored (the touch is asked about); yes: it applies and is never asked again",
    async () => {
      requireBinary();
      await using root = await tempDir();
      await using llm = await startMockLlm();
      const ws = join(root.path, "repo");
      await mkdir(join(ws, ".chatcli"), { recursive: true });
      await writeFile(
        join(ws, ".chatcli", "config.json"),
        JSON.stringify({ permissions: { mode: "auto" } }),
      );
      const touch = (f: string) => ({
        tool_calls: [{ name: "run_command", arguments: { cmd: `touch ${f}` } }],
      });
      llm.push(touch("declined"), { text: "first done" }, touch("made"), { text: "second done" });
      llm.push(touch("again"), { text: "third done" });
      const env = baseEnv(root.path, {
        ...llm.env("openai"),
        CHATCLI_MEMORY_ENABLED: "false",
        TERM: "xterm-256color",
      });
      const start = (task: string) =>
        startTmux({ command: [BINARY, "agent", task, "--ephemeral"], env, cwd: ws, width: 200 });
      {
        await using tty = start("one");
        await tty.waitForText(/Trust this workspace[\s\S]*\[y\/N\]:$/);
        tty.sendKeys("Enter");
        // untrusted: mode auto was ignored, so the touch is an ask; decline it too
        await tty.waitForText(/touch declined[\s\S]*\[N\]o:$/);
        tty.sendKeys("Enter");
        await tty.waitForText(/first done/);
        // the one command it tried was declined: nothing done, exit 6 (blocked)
        expect(await tty.waitForExit()).toBe(6);
      }
      expect(existsSync(join(ws, "declined"))).toBe(false);
      const user = join(root.path, ".chatcli", "config.json");
      expect(existsSync(user)).toBe(false);
      {
        await using tty = start("two");
        await tty.waitForText(/Trust this workspace[\s\S]*\[y\/N\]:$/);
        tty.type("y");
        tty.sendKeys("Enter");
        await tty.waitForText(/second done/);
        expect(await tty.waitForExit()).toBe(0);
      }
      expect(existsSync(join(ws, "made"))).toBe(true);
      expect(JSON.parse(await readFile(user, "utf8"))).toEqual({ trusted_workspaces: [ws] });
      {
        await using tty = start("three");
        const screen = await tty.waitForText(/third done/);
        expect(await tty.waitForExit()).toBe(0);
        expect(screen).not.toContain("Trust this workspace");
      }
      expect(existsSync(join(ws, "again"))).toBe(true);
    },
    60_000,
  );
});
