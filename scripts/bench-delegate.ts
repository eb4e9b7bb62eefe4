// Token efficiency of delegation: the same scripted task (read three 20 KB files, answer) done by the
// parent itself and by one delegate call; the parent's cumulative input is measured on the mock's record.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ScriptReply } from "../lib/llm/providers/script-format.ts";
import { type MockRequest, startMockLlm } from "../tests/support/mock-llm.ts";

const TASK = "BENCH-PARENT-TASK: which of the three logs mentions the failure?";
const FILES = ["a.log", "b.log", "c.log"];
const reads = FILES.map((file, i) => ({ id: `r${i}`, name: "read_file", arguments: { file } }));

/** chars/4 of what a request sends (system, messages, tools), as the mock's usage estimates it. */
const tokensOf = (r: MockRequest) => Math.ceil(JSON.stringify(r.body).length / 4);
const isParent = (r: MockRequest) => JSON.stringify(r.body).includes("BENCH-PARENT-TASK");

export async function delegationSection(bin: string, env: Record<string, string>, work: string) {
  const cwd = join(work, "delegate");
  await mkdir(join(cwd, ".git"), { recursive: true });
  for (const [i, f] of FILES.entries())
    await writeFile(
      join(cwd, f),
      `${i === 1 ? "FAILURE here\n" : ""}${"log line ok\n".repeat(1700)}`,
    );
  const scripts: Record<string, ScriptReply[]> = {
    "parent reads the files itself": [
      { tool_calls: reads },
      { text: "b.log mentions the failure." },
    ],
    "one delegate reads them": [
      {
        tool_calls: [
          {
            id: "d1",
            name: "delegate",
            arguments: {
              prompt: "Which of a.log, b.log, c.log mentions a failure? Answer in one line.",
            },
          },
        ],
      },
      { tool_calls: reads },
      { text: "b.log (line 1: FAILURE here)." },
      { text: "b.log mentions the failure." },
    ],
  };
  const rows = [
    "| scripted task | parent requests | parent cumulative input (tokens, chars/4) | sub-agent input (tokens) |",
    "|---|---:|---:|---:|",
  ];
  for (const [name, replies] of Object.entries(scripts)) {
    const llm = await startMockLlm({ defaultText: "done" });
    try {
      llm.push(...replies);
      const proc = Bun.spawn([bin, "agent", TASK, "--json", "--ephemeral"], {
        // the same tool set in both runs: delegate offered (no AGENTS.md roles here)
        env: {
          ...env,
          ...llm.env("anthropic"),
          CHATCLI_MEMORY_ENABLED: "false",
          CHATCLI_AGENT_DELEGATE: "true",
        },
        cwd,
        stdout: "pipe",
        stderr: "pipe",
      });
      await new Response(proc.stdout).text();
      await proc.exited;
      const parent = llm.requests.filter(isParent);
      const sub = llm.requests.filter((r) => !isParent(r));
      const sum = (rs: MockRequest[]) => rs.reduce((n, r) => n + tokensOf(r), 0);
      rows.push(`| ${name} | ${parent.length} | ${sum(parent)} | ${sum(sub)} |`);
    } finally {
      await llm.close();
    }
  }
  return [
    "## Delegation (agent, Anthropic API, local mock)",
    "",
    ...rows,
    "",
    "A delegate keeps the files' text out of the parent's context: only its one-line answer comes back.",
  ];
}
