import { describe, expect, test } from "bun:test";
import { chatcliInProcess as chatcli } from "../support/contract.ts";
import { tempDir } from "../support/ctx.ts";

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** Every line: seq 0,1,2…, ts, session_id; the first session.started, the last the result. */
function expectStream(stdout: string, exitCode: number) {
  const lines = events(stdout);
  expect(lines[0]?.["type"]).toBe("session.started");
  expect(lines[0]?.["schema_version"]).toBe(1);
  expect(lines.map((l) => l["seq"])).toEqual(lines.map((_, i) => i));
  for (const line of lines) {
    expect(line["ts"]).toMatch(TS);
    expect(Object.keys(line)).toContain("session_id");
  }
  const last = lines.at(-1) as Record<string, unknown>;
  expect(last).toMatchObject({ type: "result", exit_code: exitCode, is_error: exitCode !== 0 });
  return lines;
}

/** issue 10: stream-json's result line carries seq/ts/session_id; every stream starts with session.started. */
describe("stream-json framing (in-process)", () => {
  test("ask: the result line has seq, ts and the session id", async () => {
    await using home = await tempDir();
    const r = await chatcli(home, ["ask", "-m", "mock:echo", "hi", "--session", "s1", "--jsonl"]);
    expect(r.code).toBe(0);
    const lines = expectStream(r.stdout, 0);
    expect(lines.at(-1)?.["session_id"]).toBe("s1");
    expect(lines.at(-1)?.["seq"]).toBe(lines.length - 1);
  });

  test("rewind and compact start with session.started", async () => {
    await using home = await tempDir();
    for (const q of ["one", "two"])
      await chatcli(home, ["ask", "-m", "mock:echo", q, "--session", "rw"]);
    const rewind = await chatcli(home, ["rewind", "--session", "rw", "--to", "1", "--jsonl"]);
    expect(rewind.code).toBe(0);
    expect(expectStream(rewind.stdout, 0).at(-1)?.["command"]).toBe("rewind");
    const conversation = JSON.stringify([{ role: "user", content: "hello" }]);
    const compact = await chatcli(home, ["compact", "--no-llm", "--jsonl"], conversation);
    expect(compact.code).toBe(0);
    expect(expectStream(compact.stdout, 0).at(-1)?.["command"]).toBe("compact");
  });

  test("an error before the run starts: session.started, error, result", async () => {
    await using home = await tempDir();
    // no provider configured (exit 3), a bad flag (commander, exit 2), a mistyped command (exit 2)
    for (const [args, code] of [
      [["ask", "hi", "--jsonl"], 3],
      [["agent", "hi", "--jsonl"], 3],
      [["ask", "--jsonl", "--max-tokens", "0", "hi"], 2],
      [["--jsonl", "agnet", "fix", "it"], 2],
    ] as const) {
      const r = await chatcli(home, [...args]);
      expect({ args, code: r.code }).toEqual({ args, code });
      const lines = expectStream(r.stdout, code);
      expect(lines.map((l) => l["type"])).toContain("error");
    }
  });
});
