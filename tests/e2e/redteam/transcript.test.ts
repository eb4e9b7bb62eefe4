/**
 * Red team, secrets in what chatcli writes: a model that learned a secret (the mock plays it)
 * echoes it in its answer, in a read_file path (shown in the progress line) and in a fact it asks
 * to remember. Broken: the value is in stdout (text, json, stream-json), stderr, the session file
 * or the memory files under $CHATCLI_HOME.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { requireBinary, runChatcli } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { hostile } from "../sandbox-support.ts";
import { SOURCES, TRANSCRIPT_SINKS, transcriptIds } from "./cases/transcript.ts";
import { CONTROLS, settle, settleControls, type Verdict, writeTree } from "./support.ts";

const SECRET: Record<(typeof SOURCES)[number], string> = {
  "process-env-token": "ghp_RTtranscript0123456789abcdefghijKL",
  "provider-api-key": "sk-proj-RTtranscriptKey0123456789abcdefgh",
  "workspace-dotenv-ignored": "RTwsDotenvSecret-9f8e7d6c5b4a3921",
  "user-config-env-secret": "RTuserConfigSecret-1a2b3c4d5e6f7788",
};

function allFiles(dir: string): string {
  let out = "";
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return "";
  }
  for (const n of names) {
    const p = join(dir, n);
    try {
      if (statSync(p).isDirectory()) out += allFiles(p);
      else out += readFileSync(p, "utf8");
    } catch (error) {
      // the detached `memory compact --if-due` a run starts may be renaming its temp file into
      // place while we walk: a file gone between readdir and read is read under its final name
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return out;
}

async function run(source: (typeof SOURCES)[number], format: string, session: boolean) {
  await using llm = await startMockLlm();
  await using h = await hostile(llm, { CHATCLI_MEMORY_ENABLED: "true" });
  const secret = SECRET[source];
  if (source === "process-env-token") h.env["GITHUB_TOKEN"] = secret;
  if (source === "provider-api-key") h.env["OPENAI_API_KEY"] = secret;
  if (source === "workspace-dotenv-ignored")
    await writeTree(h.ws, { ".env": `STRIPE_SECRET_KEY=${secret}\n` });
  if (source === "user-config-env-secret")
    await writeTree(h.home, {
      ".chatcli/config.json": JSON.stringify({ env: { PAYMENT_API_TOKEN: secret } }),
    });
  llm.push(
    {
      tool_calls: [
        { id: "r", name: "read_file", arguments: { file: `notes-${secret}.txt` } },
        {
          id: "m",
          name: "memory",
          arguments: { cmd: "remember", content: `The deploy token is ${secret}` },
        },
      ],
    },
    { text: `Here it is: ${secret}` },
    { text: `## LONGTERM\n- The deploy token is ${secret}\n` },
  );
  const fmt = format === "text" ? [] : [`--${format}`];
  const r = await runChatcli(
    [
      "agent",
      "do the task",
      ...fmt,
      "--memory",
      "write",
      ...(session ? ["--session", "rt"] : ["--ephemeral"]),
    ],
    { env: h.env, cwd: h.ws },
  );
  expect(llm.requests.length).toBeGreaterThanOrEqual(2);
  const home = join(h.home, ".chatcli");
  return {
    stdout: r.stdout,
    stderr: r.stderr,
    sessions: allFiles(join(home, "sessions")),
    memory: allFiles(join(home, "memory")),
    secret,
  };
}

describe("red team: secrets in what chatcli writes", () => {
  test("answers, progress, sessions and memory, for four kinds of secret", async () => {
    requireBinary();
    const v: Verdict[] = [];
    for (const s of SOURCES) {
      const text = await run(s, "text", true);
      const json = await run(s, "json", false);
      const jsonl = await run(s, "jsonl", false);
      const has = (x: string) => x.includes(text.secret);
      const got: Record<(typeof TRANSCRIPT_SINKS)[number], boolean> = {
        "answer.text": has(text.stdout),
        "answer.json": has(json.stdout),
        "answer.jsonl": has(jsonl.stdout),
        "progress.stderr": has(text.stderr) || has(json.stderr) || has(jsonl.stderr),
        "session-file": has(text.sessions),
        "memory-file": has(text.memory) || has(json.memory) || has(jsonl.memory),
      };
      for (const k of TRANSCRIPT_SINKS) v.push({ id: `transcript.${s}.${k}`, broken: got[k] });
    }
    settle(transcriptIds(), v);
  }, 120_000);

  if (CONTROLS)
    test("controls: a value chatcli does not know as secret is written as the model said it", async () => {
      await using llm = await startMockLlm();
      await using h = await hostile(llm);
      llm.push({ text: "Here it is: plain-RT-value-123456789" });
      const r = await runChatcli(["agent", "x", "--ephemeral"], { env: h.env, cwd: h.ws });
      settleControls([
        {
          id: "control.transcript.plain-value",
          broken: r.stdout.includes("plain-RT-value-123456789"),
        },
      ]);
    }, 30_000);
});
