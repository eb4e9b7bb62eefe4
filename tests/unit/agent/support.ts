import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentCliOptions } from "../../../commands/agent.ts";
import { toolsFor } from "../../../lib/agent/tools/registry.ts";
import type { AgentInput, ToolContext } from "../../../lib/agent/types.ts";
import type { LlmEvent, LlmRequest, Provider, ToolCall, Usage } from "../../../lib/llm/types.ts";
import type { Emit } from "../../../lib/output/events.ts";
import { bareStart, type OutputFormat, RunOutput } from "../../../lib/output/sinks.ts";
import { type TestCtx, testCtx } from "../../support/ctx.ts";

export interface ScriptTurn {
  text?: string;
  calls?: Array<{ name: string; arguments?: Record<string, unknown>; id?: string; raw?: string }>;
  usage?: Partial<Usage>;
  stop?: "end" | "tool_use" | "max_tokens";
  /** Never answers until aborted. */
  hang?: boolean;
}

/** An in-process scripted Provider: yields one scripted turn per request and records requests. */
export class ScriptedProvider implements Provider {
  readonly name = "mock";
  readonly model = "script";
  readonly requests: LlmRequest[] = [];
  private index = 0;
  constructor(
    private readonly turns: Array<ScriptTurn | ((req: LlmRequest) => ScriptTurn)>,
    private readonly options: { repeatLast?: boolean } = {},
  ) {}

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    this.requests.push(structuredClone(request));
    const i = this.index++;
    const entry = this.turns[i] ?? (this.options.repeatLast ? this.turns.at(-1) : undefined);
    if (!entry) throw new Error(`script exhausted at request ${i + 1}`);
    const turn = typeof entry === "function" ? entry(request) : entry;
    if (turn.hang) {
      await new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    if (turn.text) {
      const mid = Math.ceil(turn.text.length / 2);
      yield { type: "text", text: turn.text.slice(0, mid) };
      if (turn.text.slice(mid)) yield { type: "text", text: turn.text.slice(mid) };
    }
    for (const [k, c] of (turn.calls ?? []).entries()) {
      const call: ToolCall = {
        id: c.id ?? `call_${i + 1}_${k + 1}`,
        name: c.name,
        arguments: c.arguments ?? {},
      };
      if (c.raw !== undefined) call.raw = c.raw;
      yield { type: "tool_call", call };
    }
    // Simulated prompt cache: from the second request on, the previous prompt is read from cache.
    const prompt = JSON.stringify(request).length;
    const cached = i === 0 ? 0 : Math.floor(JSON.stringify(this.requests[i - 1]).length / 4);
    yield {
      type: "usage",
      usage: {
        input_tokens: Math.floor(prompt / 4),
        output_tokens: 10,
        reasoning_tokens: 0,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
        ...turn.usage,
      },
    };
    yield { type: "done", stop: turn.stop ?? (turn.calls?.length ? "tool_use" : "end") };
  }
}

/** The loop's events rendered as `chatcli agent` would (stderr lines; stream-json on stdout). */
export function emitFor(ctx: TestCtx, format: OutputFormat = "text"): Emit {
  const output = new RunOutput(ctx, { format, command: "agent", streamText: false });
  output.emit(bareStart("agent", ctx.version, ctx.cwd));
  return output.emit;
}

/** A complete AgentInput for a workspace dir, overridable per test. */
export function agentInput(
  dir: string,
  provider: Provider,
  overrides: Partial<AgentInput> & { ctx?: TestCtx; format?: OutputFormat } = {},
): { input: AgentInput; ctx: TestCtx } {
  const ctx =
    overrides.ctx ??
    testCtx({ cwd: dir, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: dir } });
  const input: AgentInput = {
    provider,
    model: "mock:script",
    mode: "coder",
    task: "do the task",
    history: [],
    system: [{ id: "core", text: "sys", cache: true }],
    tools: toolsFor("agent", { memory: true }),
    policy: { mode: "auto", allow: [], deny: [], onAsk: "deny", workspaceRoot: dir, cwd: dir },
    limits: { maxTurns: 20 },
    emit: emitFor(ctx, overrides.format),
    signal: ctx.signal,
    workspaceRoot: dir,
    cwd: dir,
    env: ctx.env,
    fetch: globalThis.fetch,
    now: () => new Date(),
    ...overrides,
  };
  return { input, ctx };
}

/** A ToolContext rooted at dir. */
export function toolCtx(dir: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspaceRoot: dir,
    cwd: dir,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: dir },
    signal: new AbortController().signal,
    fetch: globalThis.fetch,
    now: () => new Date(),
    ...extra,
  };
}

/** Writes files (path → content) under dir. */
export async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Runs git synchronously in dir (test setup only). */
export function git(dir: string, ...args: string[]): string {
  const r = Bun.spawnSync(
    ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args],
    { cwd: dir },
  );
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** Flags of a headless `chatcli agent|coder` run, scripted provider injected. */
export function cliOptions(
  provider: ScriptedProvider,
  extra: Partial<AgentCliOptions> = {},
  prompt = "do it",
): AgentCliOptions {
  return {
    prompt,
    format: "json",
    model: "mock:script",
    allowTool: [],
    denyTool: [],
    noStdin: true,
    stdinTimeoutMs: 3000,
    maxInputBytes: 1 << 20,
    truncateInput: false,
    ephemeral: true,
    bare: true,
    files: [],
    interactive: false,
    provider,
    ...extra,
  };
}
