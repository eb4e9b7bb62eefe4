// Scenarios added as features land: extra start-up specs, and in-process report sections.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startMockLlm } from "../tests/support/mock-llm.ts";
import { setupBootstrapBench } from "./bench-bootstrap.ts";
import { benchCompact } from "./bench-compact.ts";
import { delegationSection } from "./bench-delegate.ts";
import { buildJobFloors } from "./bench-job-floor.ts";
import { level1Section } from "./bench-level1.ts";
import { machineLoad, type RunSpec } from "./bench-lib.ts";
import { benchColdRecall, runMemoryBench, storeWithFacts } from "./bench-memory.ts";
import { microcompactSection } from "./bench-microcompact.ts";
import { recallQuality } from "./bench-recall.ts";

export interface BenchInput {
  bin: string;
  env: Record<string, string>;
  work: string;
}

/** Start-up scenarios: bootstrap show (5×8 KiB, 20 rules), memory facts (500), ask against a local mock. */
export async function startupScenarios(
  input: BenchInput,
): Promise<{ specs: RunSpec[]; cleanup: () => Promise<void> }> {
  const boot = setupBootstrapBench(join(input.work, "bootstrap"));
  const llm = await startMockLlm({ defaultText: "hi" });
  const facts = await storeWithFacts(500);
  const jobs = await buildJobFloors(join(input.work, "jobs"));
  const specs: RunSpec[] = [
    { name: "job floor: bootstrap show's reads and writes", cmd: [jobs.files, ...boot.files] },
    {
      name: "job floor: memory facts --json's parse, score, sort, stringify",
      cmd: [jobs.facts],
      env: { ...input.env, ...facts.env },
    },
    {
      name: "chatcli bootstrap show (5×8 KiB files, 20 rules)",
      cmd: [input.bin, ...boot.argv],
      env: { ...input.env, ...boot.env, CHATCLI_HOME: join(boot.home, ".chatcli") },
      cwd: boot.cwd,
    },
    {
      name: "chatcli memory facts --json (500 facts)",
      cmd: [input.bin, "memory", "facts", "--json"],
      env: { ...input.env, ...facts.env },
      cwd: input.work,
    },
    {
      name: 'chatcli ask "say hi" (OpenAI API, local mock)',
      cmd: [input.bin, "ask", "say hi"],
      env: { ...input.env, ...llm.env("openai") },
      cwd: input.work,
    },
    {
      name: 'chatcli ask "say hi" (Anthropic API, local mock)',
      cmd: [input.bin, "ask", "say hi"],
      env: { ...input.env, ...llm.env("anthropic") },
      cwd: input.work,
    },
  ];
  return {
    specs,
    cleanup: async () => {
      await llm.close();
      await facts.dispose();
    },
  };
}

/** What the first request of each command puts on the wire, measured on the mock's record. */
async function firstRequests(input: BenchInput): Promise<string[]> {
  const llm = await startMockLlm({ defaultText: "done" });
  const cwd = join(input.work, "first-request");
  await mkdir(join(cwd, ".git"), { recursive: true });
  const rows = [
    "| command | requests | system chars | tool-definition chars | tools | input tokens (mock, chars/4) | cache read on request 2 |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  try {
    for (const argv of [
      ["ask", "say hi"],
      ["agent", "say hi"],
      ["coder", "say hi"],
      ["agent", "say hi", "--permission-mode", "edit"],
    ]) {
      const before = llm.requests.length;
      const env = { ...input.env, ...llm.env("anthropic"), CHATCLI_MEMORY_ENABLED: "false" };
      const run = async () => {
        const proc = Bun.spawn(
          [input.bin, ...argv, "--json", "--ephemeral"].filter(
            (a) => a !== "--ephemeral" || argv[0] !== "ask",
          ),
          {
            env,
            cwd,
            stdout: "pipe",
            stderr: "pipe",
          },
        );
        const out = await new Response(proc.stdout).text();
        await proc.exited;
        return JSON.parse(out) as {
          usage: { input_tokens: number; cache_read_input_tokens: number };
        };
      };
      const first = await run();
      const requests = llm.requests.length - before;
      const second = await run();
      const body = llm.requests[before]?.body as {
        system?: Array<{ text: string }>;
        tools?: unknown[];
      };
      const systemChars = (body.system ?? []).reduce((n, b) => n + b.text.length, 0);
      const toolChars = body.tools ? JSON.stringify(body.tools).length : 0;
      const ratio = second.usage.input_tokens
        ? `${((100 * second.usage.cache_read_input_tokens) / second.usage.input_tokens).toFixed(0)}%`
        : "n/a";
      rows.push(
        `| ${argv.filter((a) => a !== "say hi").join(" ")} | ${requests} | ${systemChars} | ${toolChars} | ${body.tools?.length ?? 0} | ${first.usage.input_tokens} | ${ratio} |`,
      );
    }
  } finally {
    await llm.close();
  }
  return [
    "## First request (Anthropic API, local mock)",
    "",
    ...rows,
    "",
    'Budgets: `ask "say hi"` ≤ 1k tokens and `agent` ≤ 1.5k (issue 14; no TTY and read-only, so no edit tools are offered — `--permission-mode edit` offers every tool), no side requests; ≥ 98% of input read from the cache from request 2 on (a one-word prompt leaves the uncached tail proportionally large).',
  ];
}

/** In-process sections: first-request sizes, memory recall/remember/digest, compaction throughput. */
export async function inProcessSections(input: BenchInput): Promise<string[]> {
  const out = await firstRequests(input);
  const memLoad = machineLoad();
  const mem = await runMemoryBench();
  out.push(
    "",
    `## Memory (in-process; load ${memLoad} → ${machineLoad()})`,
    "",
    "| facts | recall, index built (ms) | recall, cold (ms) | remember (ms) | index digest (chars) |",
    "|---:|---:|---:|---:|---:|",
  );
  for (const [i, r] of mem.recall.entries()) {
    const rem = mem.remember[i];
    const dig = mem.digest[i];
    out.push(
      `| ${r.facts} | ${r.warmMs.toFixed(2)} | ${r.coldMs.toFixed(1)} | ${rem?.ms.toFixed(1)} | ${dig?.runes} |`,
    );
  }
  out.push("", "Budgets: recall at 10k facts ≤ 20 ms (index built); digest ≤ 600 chars and flat.");
  out.push(
    "",
    "## Memory recall, cold process (`chatcli memory recall … --json`, persisted recall index)",
    "",
    "| facts | recall (ms) | process start: `memory path` (ms) | recall over start (ms) | first run after a store change (ms) | `--version` (ms) | recall ÷ `--version` |",
    "|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const n of [500, 5000, 10_000]) {
    const r = await benchColdRecall(n, input.bin);
    out.push(
      `| ${n} | ${r.recallMs.toFixed(1)} | ${r.startMs.toFixed(1)} | ${r.overStartMs.toFixed(1)} | ${r.rebuildMs.toFixed(1)} | ${r.versionMs.toFixed(1)} | ${r.ratio.toFixed(2)}× |`,
    );
  }
  out.push(
    "",
    "Budgets: ≤ 20 ms over the process start at 10k facts; recall ≤ 4× `--version` (issue 25).",
  );
  const q = recallQuality();
  out.push(
    "",
    `## Recall quality (scripts/memory-devset.ts: ${q.stores.dev} dev + ${q.stores.heldout} held-out stores × ${q.stores.facts_per_store} dialog-turn facts)`,
    "",
    "| split | ranker | questions | R@5 | R@10 | single R@10 | multi R@10 | temporal R@10 | open R@10 |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const split of ["dev", "heldout"] as const) {
    for (const ranker of ["chatcli", "bm25"] as const) {
      const r = q[split][ranker];
      const k = (name: string) => r.by_kind[name]?.r10 ?? 0;
      out.push(
        `| ${split} | ${ranker === "bm25" ? "plain BM25" : "chatcli recall"} | ${r.questions} | ${r.r5} | ${r.r10} | ${k("single")} | ${k("multi")} | ${k("temporal")} | ${k("open")} |`,
      );
    }
  }
  const talk = q.talk;
  out.push(
    "",
    `## Recall quality on conversations (GENERATED, LoCoMo-shaped: scripts/devset-talk.ts ${talk.conversations.dev} dev + ${talk.conversations.test} held-out conversations × ~${talk.conversations.facts_per_conversation} turns; untouched: scripts/devset-talk2.ts, ${talk.conversations.untouched} × ~${talk.conversations.facts_per_untouched} turns, another generator, never tuned on)`,
    "",
    "| split | ranker | questions | R@5 | R@10 | single-hop R@5/R@10 | temporal | multi-hop | open-domain | adversarial |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const split of ["dev", "test", "untouched"] as const) {
    for (const ranker of ["chatcli", "bm25"] as const) {
      const r = talk[split][ranker];
      const k = (name: string) => `${r.by_kind[name]?.r5 ?? 0}/${r.by_kind[name]?.r10 ?? 0}`;
      out.push(
        `| ${split === "test" ? "held-out" : split} | ${ranker === "bm25" ? "plain BM25" : "chatcli recall"} | ${r.questions} | ${r.r5} | ${r.r10} | ${k("single-hop")} | ${k("temporal")} | ${k("multi-hop")} | ${k("open-domain")} | ${k("adversarial")} |`,
      );
    }
  }
  const compactLoad = machineLoad();
  const compact = await benchCompact();
  out.push(
    "",
    `## Compaction levels 1 + 3 (in-process, no LLM; load ${compactLoad} → ${machineLoad()})`,
    "",
    "| messages | MB | ms | MB/s |",
    "|---:|---:|---:|---:|",
  );
  for (const r of compact) {
    out.push(
      `| ${r.messages} | ${r.megabytes.toFixed(1)} | ${r.ms.toFixed(0)} | ${r.mbPerSecond.toFixed(0)} |`,
    );
  }
  out.push("", "Budget: ≥ 50 MB/s, linear in size.");
  const l1Load = machineLoad();
  const l1 = await level1Section(input.bin, input.work);
  l1[0] = `${l1[0]} — load ${l1Load} → ${machineLoad()}`;
  out.push("", ...microcompactSection(), "", ...l1);
  out.push("", ...(await delegationSection(input.bin, input.env, input.work)));
  return out;
}
