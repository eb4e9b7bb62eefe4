/**
 * Red team, terminal escapes: control sequences arriving from the model, a tool, a file name, a
 * provider error, a .env or a bootstrap file must not reach the user's terminal raw. Each sink is
 * one run per payload; broken: stdout or stderr holds ESC, BEL or a C1 control (U+0080–U+009F), or
 * a JSON line whose decoded strings do.
 */
import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../../support/binary.ts";
import { controls } from "../../support/contract.ts";
import { tempDir } from "../../support/ctx.ts";
import { type MockLlm, startMockLlm } from "../../support/mock-llm.ts";
import { PAYLOADS, SINKS, termIds } from "./cases/term.ts";
import { CONTROLS, settle, settleControls, type Verdict } from "./support.ts";

const RAW = /[\u0007\u001b\u0080-\u009f]/;

function dirty(out: string, json: boolean): string | undefined {
  const m = RAW.exec(out);
  if (m) return JSON.stringify(out.slice(Math.max(0, m.index - 30), m.index + 20));
  if (!json) return undefined;
  for (const line of out.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    try {
      if (controls(JSON.parse(line)) > 0) return `decoded JSON: ${line.slice(0, 120)}`;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A final answer whose escape is split over two stream deltas. */
function splitAnswer(llm: MockLlm, payload: string): void {
  const cut = Math.max(1, Math.floor(payload.length / 2));
  llm.pushRaw({
    frames: [
      frame({ role: "assistant", content: "" }),
      frame({ content: `answer ${payload.slice(0, 1)}` }),
      frame({ content: payload.slice(1, cut) }),
      frame({ content: `${payload.slice(cut)} end` }),
      frame({}, "stop"),
      "data: [DONE]\n\n",
    ],
  });
}

async function sink(name: string, payload: string): Promise<string | undefined> {
  await using dir = await tempDir();
  await using llm = await startMockLlm();
  const ws = dir.path;
  Bun.spawnSync(["git", "init", "-q"], { cwd: ws });
  const env = baseEnv(ws, {
    ...llm.env("openai"),
    CHATCLI_MEMORY_ENABLED: "false",
    CHATCLI_MAX_RETRIES: "0",
  });
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runChatcli(args, { env: { ...env, ...extra }, cwd: ws });
  const agent = (fmt: string[], args: string[] = [], extra: Record<string, string> = {}) =>
    run(["agent", "do it", "--ephemeral", ...fmt, ...args], extra);
  const call = (name: string, args: Record<string, unknown>) => ({
    tool_calls: [{ id: "t", name, arguments: args }],
  });
  let r: { stdout: string; stderr: string };
  let json = false;
  switch (name) {
    case "answer.text":
      llm.push({ text: `answer ${payload} end` });
      r = await agent([]);
      break;
    case "answer.json":
      json = true;
      llm.push({ text: `answer ${payload} end` });
      r = await agent(["--json"]);
      break;
    case "answer-split.jsonl":
      json = true;
      splitAnswer(llm, payload);
      r = await agent(["--jsonl"]);
      break;
    case "answer-split.text":
      splitAnswer(llm, payload);
      r = await agent([]);
      break;
    case "tool-output.text":
      await writeFile(join(ws, "out.txt"), `before ${payload} after\n`);
      llm.push(call("run_command", { cmd: "cat out.txt" }), { text: "done" });
      r = await agent([]);
      break;
    case "tool-output.jsonl":
      json = true;
      await writeFile(join(ws, "out.txt"), `before ${payload} after\n`);
      llm.push(call("run_command", { cmd: "cat out.txt" }), { text: "done" });
      r = await agent(["--jsonl"]);
      break;
    case "file-name.text":
      llm.push(call("write_file", { file: `f${payload}.txt`, content: "x\n" }), { text: "done" });
      r = await agent([], ["--permission-mode", "edit"]);
      break;
    case "file-name.json":
      json = true;
      llm.push(call("write_file", { file: `f${payload}.txt`, content: "x\n" }), { text: "done" });
      r = await agent(["--json"], ["--permission-mode", "edit"]);
      break;
    case "tool-name.text":
      llm.push(call(`tool${payload}`, {}), { text: "done" });
      r = await agent([]);
      break;
    case "tool-args.text":
      llm.push(call("read_file", { file: `missing${payload}.txt` }), { text: "done" });
      r = await agent([]);
      break;
    case "provider-error.text":
      llm.push({ error: { status: 400, message: `bad ${payload} request` } });
      r = await agent([]);
      break;
    case "provider-error.json":
      json = true;
      llm.push({ error: { status: 400, message: `bad ${payload} request` } });
      r = await agent(["--json"]);
      break;
    case "dotenv-invalid.text": {
      const file = join(ws, "keys.env");
      await writeFile(file, `GOOD=1\nBAD${payload}LINE\n`);
      llm.push({ text: "done" });
      r = await agent([], [], { CHATCLI_DOTENV: file });
      break;
    }
    case "bootstrap-show.text":
      await writeFile(join(ws, "AGENTS.md"), `# Rules\n\nbe ${payload} nice\n`);
      r = await run(["bootstrap", "show"]);
      break;
    case "web-fetch-page.text": {
      const page = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () =>
          new Response(
            `<html><head><title>t${payload}</title></head><body>p ${payload} q</body></html>`,
            {
              headers: { "content-type": "text/html" },
            },
          ),
      });
      try {
        llm.push(call("web_fetch", { url: `http://127.0.0.1:${page.port}/x` }), { text: "done" });
        r = await agent([], ["--allow-tool", "web_fetch(domain:127.0.0.1)"]);
      } finally {
        page.stop(true);
      }
      break;
    }
    default:
      throw new Error(`no sink ${name}`);
  }
  expect(llm.requests.length + r.stdout.length + r.stderr.length).toBeGreaterThan(0);
  return (
    dirty(r.stdout, json) ??
    (dirty(r.stderr, false) ? `stderr ${dirty(r.stderr, false)}` : undefined)
  );
}

describe("red team: terminal escapes", () => {
  test("every sink, every payload", async () => {
    requireBinary();
    const jobs: Array<() => Promise<Verdict>> = [];
    for (const [p, payload] of PAYLOADS)
      for (const s of SINKS)
        jobs.push(async () => {
          const note = await sink(s, payload);
          return { id: `term.${s}.${p}`, broken: note !== undefined, note };
        });
    const v: Verdict[] = [];
    for (let i = 0; i < jobs.length; i += 6)
      v.push(...(await Promise.all(jobs.slice(i, i + 6).map((j) => j()))));
    settle(termIds(), v);
  }, 180_000);

  if (CONTROLS)
    test("controls: --color always (the user's choice) puts ESC on stderr, and the check sees it", async () => {
      await using dir = await tempDir();
      await using llm = await startMockLlm();
      llm.push({ error: { status: 400, message: "plain bad request" } });
      const env = baseEnv(dir.path, { ...llm.env("openai"), CHATCLI_MAX_RETRIES: "0" });
      delete env["NO_COLOR"];
      const r = await runChatcli(["agent", "x", "--ephemeral", "--color", "always"], {
        env,
        cwd: dir.path,
      });
      settleControls([
        { id: "control.term.color-always", broken: dirty(r.stderr, false) !== undefined },
      ]);
    }, 30_000);
});
