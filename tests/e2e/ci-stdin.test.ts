/**
 * stdin as a CI pipeline feeds it (built binary): a producer slower than --stdin-timeout, raising the
 * timeout for it, and a Windows log (CRLF, invalid UTF-8) passed through as context.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli, spawnChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";

beforeAll(() => {
  requireBinary();
});

describe("stdin from a CI pipeline", () => {
  test("a silent producer: the warning names the flag that waits longer", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const r = await spawnChatcli(["ask", "why did it fail", "--json", "--stdin-timeout", "100ms"], {
      env: baseEnv(home.path, llm.env("openai")),
      cwd: home.path,
      stdin: "pipe-open",
    }).done;
    expect(r.code).toBe(0);
    const warning = JSON.parse(r.stdout).warnings[0];
    expect(warning.code).toBe("stdin_no_data");
    expect(warning.message).toContain("a slow producer needs a larger --stdin-timeout");
  });

  test("with a larger --stdin-timeout, output that starts late is still the context", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    llm.push({ text: "missing semicolon" });
    const run = spawnChatcli(["ask", "why did it fail", "--stdin-timeout", "60s"], {
      env: baseEnv(home.path, llm.env("openai")),
      cwd: home.path,
      stdin: "pipe-open",
    });
    // the producer writes whenever it gets round to it; chatcli waits for the first byte, then EOF
    run.proc.stdin.write("ERROR build failed\n");
    await run.proc.stdin.end();
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("missing semicolon\n");
    const body = llm.requests[0]?.body as { messages: Array<{ content: string }> };
    expect(body.messages.at(-1)?.content).toBe(
      '<stdin bytes="19">\nERROR build failed\n</stdin>\n\nwhy did it fail',
    );
  });

  test("a Windows log with CRLF and invalid UTF-8 goes through as context; bytes= counts the input", async () => {
    await using home = await tempDir();
    const log = new Uint8Array([
      ...new TextEncoder().encode("line 1\r\nbad "),
      0xff,
      0xfe,
      ...new TextEncoder().encode(" byte\r\n"),
    ]);
    const r = await runChatcli(["ask", "-m", "mock:echo", "summarise", "--json"], {
      env: baseEnv(home.path),
      cwd: home.path,
      stdin: log,
    });
    expect(r.code).toBe(0);
    const echoed = JSON.parse(JSON.parse(r.stdout).result);
    expect(echoed.messages.at(-1).content).toBe(
      `<stdin bytes="${log.length}">\nline 1\r\nbad \uFFFD\uFFFD byte\r\n</stdin>\n\nsummarise`,
    );
  });
});
