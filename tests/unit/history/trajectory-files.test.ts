import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { replay } from "../../support/replay.ts";
import { runsInText } from "../../support/trajectory-files.ts";

// The same 3-step run as five harnesses write it: a file read twice (byte-identical, so the second
// read goes out as a pointer), then a test run.
const FILE = Array.from({ length: 60 }, (_, i) => `${i + 1}\tdef f_${i}(x): return x + ${i}`).join(
  "\n",
);
const TASK = "Fix the off-by-one in f_3.";

const openai = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: TASK }] },
  ...[0, 1].flatMap((i) => [
    {
      role: "assistant",
      content: i === 0 ? "Let me read it." : null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: "bash", arguments: '{"command":"cat -n a.py"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: `call_${i}`, content: FILE },
  ]),
  { role: "assistant", content: "Fixed." },
];

const anthropic = {
  system: "You are a coding agent.",
  messages: [
    { role: "user", content: TASK },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me read it twice." },
        { type: "tool_use", id: "toolu_0", name: "bash", input: { command: "cat -n a.py" } },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "cat -n a.py" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_0", content: FILE },
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: FILE }] },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "Fixed." }] },
  ],
};

const miniSwe = {
  info: { exit_status: "Submitted" },
  trajectory_format: "mini-swe-agent-1.1",
  messages: [
    { role: "system", content: "You are a helpful assistant that can interact with a computer." },
    { role: "user", content: `<pr_description>${TASK}</pr_description>` },
    { role: "assistant", content: "THOUGHT: read the file.\n\n```bash\ncat -n a.py\n```" },
    { role: "user", content: `<returncode>0</returncode>\n<output>\n${FILE}\n</output>` },
    { role: "assistant", content: "THOUGHT: again.\n\n```bash\ncat -n a.py\n```" },
    { role: "user", content: `<returncode>0</returncode>\n<output>\n${FILE}\n</output>` },
    { role: "assistant", content: "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" },
  ],
};

const sweAgent = {
  trajectory: [{ action: "cat -n a.py", observation: FILE }],
  history: [
    { role: "system", content: "SETTING: you are an autonomous programmer.", agent: "main" },
    { role: "user", content: "DEMONSTRATION: fix a bug in b.py", is_demo: true },
    { role: "assistant", content: "I will open b.py", is_demo: true },
    { role: "user", content: [{ type: "text", text: TASK }], agent: "main" },
    ...[0, 1].flatMap((i) => [
      {
        role: "assistant",
        content: "Reading.",
        thought: "Reading.",
        tool_calls: [
          {
            id: `c${i}`,
            type: "function",
            function: { name: "bash", arguments: '{"command":"cat -n a.py"}' },
          },
        ],
      },
      { role: "tool", content: [{ type: "text", text: FILE }], tool_call_ids: [`c${i}`] },
    ]),
  ],
};

describe("trajectories from files", () => {
  test("OpenAI messages: the system prompt is the prefix, the user turn the task, each reply a round", () => {
    const [run] = runsInText(JSON.stringify(openai), "openai.json");
    const t = run?.trajectory;
    expect(t?.task).toEqual({ role: "user", content: TASK });
    expect(t?.prefixTokens).toBeGreaterThan(0);
    expect(t?.rounds.map((r) => r.map((m) => m.role))).toEqual([
      ["assistant", "tool"],
      ["assistant", "tool"],
      ["assistant"],
    ]);
    expect(t?.rounds[1]?.[0]?.tool_calls?.[0]).toMatchObject({
      id: "call_1",
      name: "bash",
      arguments: { command: "cat -n a.py" },
    });
    expect(run?.converted).toBe(false);
    // the second read is the first's bytes: sent as a pointer, so the run saves input
    const off = replay(t as NonNullable<typeof t>, "none");
    const on = replay(t as NonNullable<typeof t>, {});
    expect(on.deduplicated).toBe(1);
    expect(on.cumulativeInput).toBeLessThan(off.cumulativeInput);
  });

  test("Anthropic body: each tool_result block is its own result, content parts as text", () => {
    const [run] = runsInText(JSON.stringify(anthropic), "anthropic.json");
    const [first] = run?.trajectory.rounds ?? [];
    expect(first?.map((m) => [m.role, m.tool_call_id ?? ""])).toEqual([
      ["assistant", ""],
      ["tool", "toolu_0"],
      ["tool", "toolu_1"],
    ]);
    expect(first?.[2]?.content).toBe(FILE);
    expect(run?.trajectory.prefixTokens).toBeGreaterThan(0);
  });

  test("a text scaffold (mini-SWE-agent): the fenced command becomes a bash call, the observation its result", () => {
    const [run] = runsInText(JSON.stringify(miniSwe), "run.traj.json");
    expect(run?.converted).toBe(true);
    const [first] = run?.trajectory.rounds ?? [];
    expect(first?.[0]).toMatchObject({
      role: "assistant",
      content: "THOUGHT: read the file.",
      tool_calls: [{ name: "bash", arguments: { command: "cat -n a.py" } }],
    });
    expect(first?.[1]).toMatchObject({
      role: "tool",
      tool_call_id: first?.[0]?.tool_calls?.[0]?.id,
    });
    expect(run?.trajectory.rounds).toHaveLength(3);
    expect(replay(run?.trajectory as NonNullable<typeof run>["trajectory"], {}).deduplicated).toBe(
      1,
    );
  });

  test("SWE-agent .traj: history read, demonstrations counted in the prefix, tool_call_ids honoured", () => {
    const [run] = runsInText(JSON.stringify(sweAgent), "x.traj");
    const [withDemo] = runsInText(JSON.stringify(sweAgent), "x.traj");
    const noDemo = JSON.parse(JSON.stringify(sweAgent));
    noDemo.history = noDemo.history.filter((m: { is_demo?: boolean }) => !m.is_demo);
    const [without] = runsInText(JSON.stringify(noDemo), "x.traj");
    expect(run?.trajectory.task.content).toBe(TASK);
    expect(run?.trajectory.rounds.map((r) => r.map((m) => m.tool_call_id ?? m.role))).toEqual([
      ["assistant", "c0"],
      ["assistant", "c1"],
    ]);
    expect(withDemo?.trajectory.prefixTokens).toBeGreaterThan(
      without?.trajectory.prefixTokens ?? 0,
    );
  });

  test("JSONL: one message per line is one run; one run per line is several", () => {
    const lines = openai.map((m) => JSON.stringify(m)).join("\n");
    expect(runsInText(lines, "m.jsonl")).toHaveLength(1);
    const many = [JSON.stringify({ messages: openai }), JSON.stringify(miniSwe)].join("\n");
    expect(runsInText(many, "runs.jsonl").map((r) => r.name)).toEqual([
      "runs.jsonl#1",
      "runs.jsonl#2",
    ]);
  });

  test("call ids an earlier round used (replayed demonstrations) are renamed with their results", () => {
    const reused = openai.map((m) =>
      "tool_calls" in m
        ? { ...m, tool_calls: m.tool_calls?.map((c) => ({ ...c, id: "call_0" })) }
        : "tool_call_id" in m
          ? { ...m, tool_call_id: "call_0" }
          : m,
    );
    const [run] = runsInText(JSON.stringify(reused), "reused.json");
    const t = run?.trajectory as NonNullable<typeof run>["trajectory"];
    expect(
      t.rounds.map((r) => r.map((m) => m.tool_calls?.[0]?.id ?? m.tool_call_id ?? "")),
    ).toEqual([["call_0", "call_0"], ["call_0_2", "call_0_2"], [""]]);
    expect(replay(t, {}).lastTwoVerbatim).toBe(true);
  });

  test("--tool-tokens adds to every run's prefix", () => {
    const [a] = runsInText(JSON.stringify(openai), "a");
    const [b] = runsInText(JSON.stringify(openai), "a", 1000);
    expect((b?.trajectory.prefixTokens ?? 0) - (a?.trajectory.prefixTokens ?? 0)).toBe(1000);
  });
});

describe("scripts/replay-trajectories.ts", () => {
  const dir = mkdtempSync(join(tmpdir(), "chatcli-traj-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("prints the replay table for a directory of runs; a file without a run is skipped with a reason", () => {
    writeFileSync(join(dir, "a.json"), JSON.stringify(openai));
    writeFileSync(join(dir, "b.traj"), JSON.stringify(sweAgent));
    writeFileSync(join(dir, "c.traj.json"), JSON.stringify(miniSwe));
    writeFileSync(join(dir, "notes.json"), '{"hello": 1}');
    writeFileSync(join(dir, "ignored.txt"), "not read");
    const script = resolve(import.meta.dir, "../../../scripts/replay-trajectories.ts");
    const r = Bun.spawnSync([process.execPath, script, "--runs", dir]);
    const out = r.stdout.toString();
    expect([r.exitCode, r.stderr.toString().trim()]).toEqual([
      0,
      `skipped ${join(dir, "notes.json")}: no agent run in it`,
    ]);
    expect(out).toStartWith("3 runs, 8 replies (1 text-command runs replayed as tool calls)\n");
    expect(out).toContain("| files | defaults (write budget, recipes) |");
    expect(out.match(/^\| \/.*\| (no|YES) \|$/gm)).toHaveLength(3);
    const bad = Bun.spawnSync([process.execPath, script]);
    expect([bad.exitCode, bad.stderr.toString()]).toEqual([
      2,
      "usage: bun scripts/replay-trajectories.ts [--tool-tokens N] [--runs] PATH…\n",
    ]);
  });
});
