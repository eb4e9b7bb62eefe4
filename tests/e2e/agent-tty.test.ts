/** `chatcli agent` on a real terminal (tmux): approval prompts wait for an explicit answer, every time. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BINARY, baseEnv, requireBinary } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { startTmux, TMUX_MISSING, tmuxAvailable } from "../support/tmux.ts";

const HAS_TMUX = tmuxAvailable();
if (!HAS_TMUX) console.warn(TMUX_MISSING);

const touch = (file: string) => ({
  tool_calls: [{ name: "run_command", arguments: { cmd: `touch ${file}` } }],
});

describe("agent approval prompts on a TTY", () => {
  test.skipIf(!HAS_TMUX)(
    "every ask waits for its own answer: y runs, Enter declines, the third still asks",
    async () => {
      requireBinary();
      await using dir = await tempDir();
      await using llm = await startMockLlm();
      llm.push(touch("first"), touch("second"), touch("third"), { text: "all asked" });
      const env = baseEnv(dir.path, {
        ...llm.env("openai"),
        CHATCLI_MEMORY_ENABLED: "false",
        TERM: "xterm-256color",
      });
      await using tty = startTmux({
        command: [BINARY, "agent", "make three files", "--ephemeral"],
        env,
        cwd: dir.path,
        width: 160,
      });
      await tty.waitForText(/touch first[\s\S]*\[N\]o:$/);
      tty.type("y");
      tty.sendKeys("Enter");
      await tty.waitForText(/touch second[\s\S]*\[N\]o:$/);
      tty.sendKeys("Enter");
      await tty.waitForText(/touch third[\s\S]*\[N\]o:$/);
      tty.type("yes");
      tty.sendKeys("Enter");
      await tty.waitForText(/all asked/);
      expect(await tty.waitForExit()).toBe(0);
      expect(existsSync(join(dir.path, "first"))).toBe(true);
      expect(existsSync(join(dir.path, "second"))).toBe(false);
      expect(existsSync(join(dir.path, "third"))).toBe(true);
    },
    60_000,
  );

  // tmux's C-c also kills the harness shell around the program; `script` gives chatcli a terminal
  // of its own, so its exit code is what `script -e` returns.
  test.skipIf(!Bun.which("script"))(
    "Ctrl-C at a prompt stops the run at once: exit 130, nothing runs, the process does not linger",
    async () => {
      requireBinary();
      await using dir = await tempDir();
      await using llm = await startMockLlm();
      llm.push(touch("never"), { text: "unreachable" });
      const env = baseEnv(dir.path, {
        ...llm.env("anthropic"),
        CHATCLI_MEMORY_ENABLED: "false",
        TERM: "xterm-256color",
      });
      const proc = Bun.spawn(
        ["script", "-qefc", `exec '${BINARY}' agent 'make a file' --ephemeral`, "/dev/null"],
        { cwd: dir.path, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" },
      );
      let screen = "";
      let prompted: () => void = () => {};
      const prompt = new Promise<void>((resolve) => {
        prompted = resolve;
      });
      const decoder = new TextDecoder();
      const drained = (async () => {
        for await (const chunk of proc.stdout) {
          screen += decoder.decode(chunk, { stream: true });
          if (screen.includes("[N]o:")) prompted();
        }
      })();
      await prompt;
      proc.stdin.write("\x03");
      await proc.stdin.flush();
      expect(await proc.exited).toBe(130);
      await drained;
      expect(screen).toContain("cancelled");
      expect(existsSync(join(dir.path, "never"))).toBe(false);
      expect(llm.requests).toHaveLength(1);
    },
    60_000,
  );
});
