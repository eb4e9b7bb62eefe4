import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { RUN_EVENTS } from "../../../lib/output/event-schema.ts";
import type { RunEvent } from "../../../lib/output/events.ts";
import { foldEnvelope } from "../../../lib/output/fold.ts";
import { eventsSchema, resultSchema, schemaDocument } from "../../../lib/output/schema.ts";
import { run, tempDir } from "../../support/ctx.ts";
import { startMockLlm } from "../../support/mock-llm.ts";

const ROOT = join(import.meta.dir, "../../..");

function validators() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  return {
    result: ajv.compile(resultSchema("v1")),
    events: ajv.compile(eventsSchema("v1")),
  };
}

type Json = Record<string, unknown>;

/** Every JSON line a run printed; fails the test on any line the schemas refuse. */
function checkLines(
  stdout: string,
  format: "json" | "stream-json",
  v: ReturnType<typeof validators>,
  label: string,
): Json[] {
  const lines = stdout.trim().split("\n").filter(Boolean);
  const parsed = lines.map((l) => JSON.parse(l) as Json);
  const check = format === "json" ? v.result : v.events;
  for (const [i, line] of parsed.entries()) {
    const ok = check(line);
    if (!ok)
      throw new Error(
        `${label}: line ${i} (${String(line["type"])}) does not validate: ${JSON.stringify(check.errors?.slice(0, 3))}`,
      );
  }
  return parsed;
}

describe("chatcli schema", () => {
  test("docs/schema/ holds exactly what `chatcli schema` prints", async () => {
    for (const kind of ["result", "events"] as const) {
      const r = await run(["schema", kind]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(schemaDocument(kind, "v1"));
      const file = await readFile(join(ROOT, "docs", "schema", `${kind}.schema.json`), "utf8");
      // regenerate with: bun scripts/gen-schema.ts
      expect(file).toBe(r.out);
      expect(JSON.parse(r.out)["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema");
    }
    const bad = await run(["schema", "nope"]);
    expect(bad.code).toBe(2);
  });

  test("the schemas compile under a real 2020-12 validator and refuse a drifted line", () => {
    const v = validators();
    const good = {
      type: "turn.started",
      seq: 1,
      ts: "2026-11-29T20:00:00.000Z",
      session_id: null,
      turn: 1,
      parent_id: null,
    };
    expect(v.events(good)).toBe(true);
    // a missing key is a drift, and so is an extra one
    expect(v.events({ ...good, parent_id: undefined })).toBe(false);
    expect(v.events({ ...good, cumulative: {} })).toBe(false);
  });

  test("every event type has one shape (snapshot of its keys)", () => {
    const shapes = Object.fromEntries(
      Object.entries(RUN_EVENTS).map(([type, schema]) => [
        type,
        Object.keys(schema.properties).sort(),
      ]),
    );
    expect(shapes).toMatchSnapshot();
  });
});

describe("every line every run command prints validates, and the envelope is the fold", () => {
  test("ask, agent, coder and compact in json and stream-json, success and failure", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm({ defaultText: "fine" });
    const env = {
      HOME: home.path,
      CHATCLI_HOME: join(home.path, ".chatcli"),
      ...llm.env("openai"),
    };
    const v = validators();
    const script = join(home.path, "script.jsonl");
    await writeFile(
      script,
      [
        JSON.stringify({
          tool_calls: [
            { name: "write_file", arguments: { file: "a.txt", content: "hi\n" } },
            { name: "run_command", arguments: { cmd: "rm -rf /tmp/x" } },
          ],
        }),
        JSON.stringify({ text: "done \u001b[2Jclean \u001b[" }),
      ].join("\n"),
    );
    const conversation = JSON.stringify({
      messages: Array.from({ length: 12 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `message ${i} ${"x".repeat(400)}`,
      })),
    });
    const runs: Array<{ argv: string[]; stdin?: string }> = [
      { argv: ["ask", "hi"] },
      { argv: ["ask"] },
      { argv: ["ask", "hi", "-m", "nope/none"] },
      {
        argv: [
          "agent",
          "do it",
          "-m",
          "mock:script",
          "--fake-responses",
          script,
          "--permission-mode",
          "edit",
          "--sandbox",
          "off",
        ],
      },
      {
        argv: ["coder", "fix", "-m", "mock:script", "--fake-responses", script, "--max-turns", "1"],
      },
      { argv: ["compact", "--no-llm", "--budget", "300"], stdin: conversation },
      { argv: ["compact", "--session", "missing"] },
      { argv: ["ask", "first", "--session", "kept"] },
      { argv: ["rewind", "--session", "kept", "--to", "1"] },
      { argv: ["rewind", "--session", "none-such", "--to", "1"] },
      { argv: ["agent", "--max-turns", "x", "hi"] },
      { argv: ["agnet", "fix", "it"] },
    ];
    const seen = new Set<string>();
    for (const { argv, stdin } of runs) {
      for (const format of ["json", "stream-json"] as const) {
        const label = `${argv.join(" ")} --output-format ${format}`;
        const r = await run([...argv, "--output-format", format], {
          cwd: home.path,
          env,
          ...(stdin ? { stdin } : {}),
        });
        const lines = checkLines(r.out, format, v, label);
        if (format === "json") {
          expect(lines).toHaveLength(1);
          continue;
        }
        for (const l of lines) seen.add(String(l["type"]));
        expect(lines[0]?.["type"]).toBe("session.started");
        const last = lines.at(-1) as Json;
        expect(last["type"]).toBe("result");
        expect(lines.map((l) => l["seq"])).toEqual(lines.map((_, i) => i));
        // a run's last line is the fold of the lines before it (rewind is no run: it fills its own)
        if (argv[0] === "rewind") continue;
        const events = lines.slice(0, -1).map(({ seq: _s, ts: _t, ...e }) => {
          const { session_id, ...rest } = e;
          return (rest["type"] === "session.started" ? { ...rest, session_id } : rest) as RunEvent;
        });
        const { seq: _seq, ts: _ts, ...envelope } = last;
        const folded = foldEnvelope(events, {
          command: String(envelope["command"]),
          version: String(envelope["chatcli_version"]),
          durationMs: Number(envelope["duration_ms"]),
        });
        expect(JSON.parse(JSON.stringify(folded))).toEqual(envelope);
        // no escape sequence survives, even one split across two deltas
        expect(r.out).not.toContain("\\u001b");
      }
    }
    for (const type of ["session.started", "tool.started", "permission.decided", "file.changed"])
      expect(seen).toContain(type);
  });
});

describe("escape sequences are stripped on the joined answer, before it is split into deltas", () => {
  test("an ESC[2J split across two deltas does not survive in the deltas, the message or stdout", async () => {
    const { runAgent } = await import("../../../lib/agent/loop.ts");
    const { ScriptedProvider, agentInput } = await import("../agent/support.ts");
    await using d = await tempDir();
    // ScriptedProvider yields the text in two halves: "clear \u001b[2" and "Jscreen"
    const provider = new ScriptedProvider([{ text: "clear \u001b[2Jscreen" }]);
    const events: RunEvent[] = [];
    for (const live of [true, false]) {
      const { input } = agentInput(d.path, provider, {
        tools: [],
        liveDeltas: live,
        emit: (e) => {
          if (e.type !== "note") events.push(e);
        },
      });
      provider.requests.length = 0;
      const r = await runAgent({ ...input, limits: { maxTurns: 1 } });
      expect(r.finalText).toContain("\u001b"); // the history keeps what the model said
      const deltas = events.flatMap((e) => (e.type === "message.delta" ? [e.text] : []));
      const completed = events.find((e) => e.type === "message.completed");
      expect(deltas.join("")).toBe("clear screen");
      expect(completed?.type === "message.completed" && completed.text).toBe("clear screen");
      events.length = 0;
      (provider as unknown as { index: number }).index = 0;
    }
  });
});
