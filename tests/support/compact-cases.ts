// Inputs for the `chatcli compact` golden tests (tests/e2e/compact-golden.test.ts): every format
// commands/compact.ts accepts, indented and not, with what level 1 changes (reasoning, long tool
// outputs, duplicates, FORMAT ERROR runs, an oversized output, a long task), non-ASCII text, control
// characters, secrets and a private key across two messages. Deterministic.

type Json = Record<string, unknown>;

const LOG = Array.from({ length: 400 }, (_, i) =>
  i % 97 === 13 ? `E   AssertionError: case ${i} failed` : `tests/test_x.py::test_${i} PASSED`,
).join("\n");
const FILE = Array.from(
  { length: 300 },
  (_, i) => `    return value_${i} # ünïcödé ✓ 漢字 😀`,
).join("\n");

function chatcliMessages(): Json[] {
  const out: Json[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `Fix the parser. ${"Context line. ".repeat(40)}` },
  ];
  for (let i = 0; i < 14; i++) {
    const id = `call_${i}`;
    out.push({
      role: "assistant",
      content: `<reasoning>${"think ".repeat(80)}</reasoning>Reading.\n<tool_call name="@coder" args='{"cmd":"read","args":{"file":"src/f${i}.py"}}' />`,
      tool_calls: [
        { id, type: "function", name: "read_file", arguments: { file: `src/f${i}.py` } },
      ],
    });
    out.push({ role: "tool", tool_call_id: id, content: i % 4 === 3 ? FILE : `${LOG}\n# ${i}` });
    if (i === 5) {
      out.push({ role: "user", content: "FORMAT ERROR: one" });
      out.push({ role: "user", content: "FORMAT ERROR: two" });
    }
    if (i === 7) {
      out.push({
        role: "user",
        content: `The tool '@coder' was executed and returned the following:\n\n<tool_output>\n${LOG}\n</tool_output>`,
      });
    }
  }
  out.push({
    role: "tool",
    tool_call_id: "call_13",
    content: `${"huge output line\n".repeat(9000)}`,
  });
  out.push({
    role: "assistant",
    content: "key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 and \u007f del \u009b[31m c1",
  });
  out.push({ role: "user", content: "-----BEGIN RSA PRIVATE KEY-----\nMIIabc" });
  out.push({ role: "assistant", content: "def\n-----END RSA PRIVATE KEY----- after" });
  out.push({ role: "user", content: "token conf1gured-secret-value-123 here" });
  return out;
}

function openaiMessages(): Json[] {
  return chatcliMessages().map((m) => {
    const calls = m["tool_calls"] as Json[] | undefined;
    if (!calls) return m;
    return {
      ...m,
      content: null,
      tool_calls: calls.map((c) => ({
        id: c["id"],
        type: "function",
        function: { name: c["name"], arguments: JSON.stringify(c["arguments"]) },
      })),
    };
  });
}

function anthropicMessages(): Json[] {
  const out: Json[] = [];
  for (const m of chatcliMessages().slice(1)) {
    if (m["role"] === "tool") {
      out.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: m["tool_call_id"], content: m["content"] }],
      });
    } else if (m["tool_calls"]) {
      const c = (m["tool_calls"] as Json[])[0] as Json;
      out.push({
        role: "assistant",
        content: [
          { type: "text", text: m["content"] },
          { type: "tool_use", id: c["id"], name: c["name"], input: c["arguments"] },
        ],
      });
    } else out.push({ role: m["role"], content: m["content"] });
  }
  return out;
}

/** name → input text. */
export function compactCases(): Record<string, string> {
  const plain = chatcliMessages().map((m) => ({ role: m["role"], content: m["content"] }));
  const session = {
    version: 2,
    title: "",
    chat_history: chatcliMessages(),
    created_at: "2026-11-29T20:00:00Z",
    tags: ["x"],
  };
  return {
    "chatcli-session": JSON.stringify(session, null, 2),
    "chatcli-session-compact": JSON.stringify({ ...session, title: "Mine" }),
    "chatcli-messages": JSON.stringify(chatcliMessages(), null, 2),
    "chatcli-messages-compact": JSON.stringify(chatcliMessages()),
    "plain-messages": JSON.stringify(plain, null, 4),
    "openai-messages": JSON.stringify(openaiMessages(), null, 2),
    "openai-body": JSON.stringify(
      { model: "gpt-x", messages: openaiMessages(), tools: [{ type: "function" }], temperature: 0 },
      null,
      2,
    ),
    "openai-body-compact": JSON.stringify({ messages: openaiMessages(), model: "gpt-x" }),
    "anthropic-body": JSON.stringify(
      { model: "claude-x", system: "Be brief.", max_tokens: 100, messages: anthropicMessages() },
      null,
      2,
    ),
    "anthropic-array": JSON.stringify(anthropicMessages(), null, "\t"),
    "empty-messages": JSON.stringify({ model: "m", messages: [] }, null, 2),
  };
}

/** The env every golden run uses: one configured secret, so redaction is exercised. */
export const CASE_ENV = { EXAMPLE_API_KEY: "conf1gured-secret-value-123" };
