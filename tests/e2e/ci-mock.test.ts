/**
 * The built-in test models as a pipeline uses them to smoke-test its wiring without an API key
 * (built binary): `agent`/`coder -m mock:echo` answer once with the request, they do not loop.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";

beforeAll(() => {
  requireBinary();
});

describe("mock:echo in agent and coder", () => {
  for (const command of ["agent", "coder"]) {
    test(`${command} -m mock:echo: one turn, exit 0, the result is the request (tools included), no tool runs`, async () => {
      await using home = await tempDir();
      const r = await runChatcli([command, "-m", "mock:echo", "fix the failing tests", "--json"], {
        env: baseEnv(home.path),
        cwd: home.path,
      });
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ num_turns: 1, exit_code: 0, tools: { calls: 0 } });
      const echoed = JSON.parse(out.result);
      expect(echoed.messages.at(-1)).toEqual({ role: "user", content: "fix the failing tests" });
      expect(echoed.tools).toContain("read_file");
      expect(r.stderr).not.toContain("Compacting");
    });
  }
});
