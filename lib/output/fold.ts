/**
 * The result envelope as a fold over a run's events: `--json` prints the fold of the events the run
 * yielded, stream-json prints the same events and then the same fold, so the two cannot disagree.
 * Only `duration_ms` comes from outside: the wall time when the result is written.
 */
import type { Usage } from "../llm/types.ts";
import { addUsage, emptyUsage } from "../llm/types.ts";
import type { Envelope, EventOf, RunEvent } from "./events.ts";

export const SCHEMA_VERSION = 1;

type Subagents = NonNullable<Envelope["subagents"]>;

/** A fresh envelope with every field present (null or empty where it does not apply). */
export function newEnvelope(command: string, version: string): Envelope {
  return {
    type: "result",
    schema_version: SCHEMA_VERSION,
    chatcli_version: version,
    command,
    status: "success",
    is_error: false,
    exit_code: 0,
    terminal_reason: "completed",
    result: null,
    session_id: null,
    model: null,
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    usage: emptyUsage(),
    total_cost_usd: null,
    cost_is_estimate: true,
    tools: null,
    permission_denials: [],
    files_changed: [],
    checkpoints: null,
    memory: null,
    bootstrap_files: [],
    compaction: null,
    sandbox: null,
    outbound: null,
    mcp_servers: [],
    subagents: null,
    rewind: null,
    warnings: [],
    error: null,
  };
}

/** An incremental fold: `apply` each event as it passes, `envelope` at the end. */
export class EnvelopeFold {
  private readonly env: Envelope;
  private usage: Usage = emptyUsage();
  private cost: number | null = null;
  private apiMs = 0;
  private answered: string | null = null;
  /** Text of the final message so far (a reply cut at max_tokens continues it). */
  private final = "";
  /** Deltas of the top-level turn that has not completed yet. */
  private pending: { turn: number; text: string } | undefined;
  private failed: EventOf<"error"> | undefined;
  private readonly files = new Map<string, Envelope["files_changed"][number]["change"]>();
  private readonly subagents: Subagents = [];

  constructor(command: string, version: string) {
    this.env = newEnvelope(command, version);
  }

  apply(event: RunEvent): void {
    const env = this.env;
    const top =
      !("parent_id" in event) || event.parent_id === null || event.type.startsWith("subagent.");
    switch (event.type) {
      case "session.started": {
        env.schema_version = event.schema_version;
        env.chatcli_version = event.chatcli_version;
        env.command = event.command;
        env.model = event.model;
        env.session_id = event.session_id;
        env.bootstrap_files = event.bootstrap_files;
        env.memory = event.memory && { ...event.memory };
        env.sandbox = event.sandbox;
        env.outbound = event.outbound;
        env.mcp_servers = event.mcp_servers;
        const loop = event.permission_mode !== null;
        env.tools = loop ? { calls: 0, failed: 0, denied: 0, by_name: {} } : null;
        env.subagents = loop ? this.subagents : null;
        return;
      }
      case "turn.started":
        if (top) env.num_turns = Math.max(env.num_turns, event.turn);
        if (top) this.pending = { turn: event.turn, text: "" };
        return;
      case "message.delta":
        if (top && this.pending?.turn === event.turn) this.pending.text += event.text;
        return;
      case "message.completed":
        if (!top) return;
        this.pending = undefined;
        if (event.tool_calls.length > 0) this.final = "";
        else this.final += event.text;
        return;
      case "turn.completed":
        if (!top) return;
        this.usage = event.cumulative_usage;
        this.cost = event.cumulative_cost_usd;
        this.apiMs += event.duration_api_ms;
        this.answered = event.model;
        return;
      case "tool.completed": {
        if (!top || !env.tools) return;
        const t = env.tools;
        t.calls++;
        t.by_name[event.name] = (t.by_name[event.name] ?? 0) + 1;
        if (event.status === "error") t.failed++;
        if (event.status === "denied") t.denied++;
        return;
      }
      case "permission.decided":
        if (!top || event.decision !== "deny") return;
        env.permission_denials.push({
          tool: event.name,
          input: event.input,
          reason: event.reason,
          turn: event.turn,
          suggestion: event.suggestion,
        });
        return;
      case "file.changed": {
        if (!top) return;
        const prev = this.files.get(event.path);
        if (!prev || (prev === "deleted" && event.change !== "deleted"))
          this.files.set(event.path, event.change);
        return;
      }
      case "checkpoint.created":
        env.checkpoints = { count: (env.checkpoints?.count ?? 0) + 1, last: event.id };
        return;
      case "compaction.completed": {
        const { type: _type, ...info } = event;
        env.compaction = info;
        return;
      }
      case "memory.written":
        if (top && env.memory) env.memory.facts_written += event.facts;
        return;
      case "warning":
        env.warnings.push({ code: event.code, message: event.message });
        return;
      case "subagent.completed":
        this.subagents.push({
          id: event.parent_id,
          role: event.role,
          description: event.description,
          model: event.model,
          turns: event.turns,
          usage: event.usage,
          total_tokens: event.total_tokens,
          cost_usd: event.cost_usd,
          status: event.status,
          terminal_reason: event.terminal_reason,
          files_changed: event.files_changed,
          permission_denials: event.permission_denials,
        });
        return;
      case "error":
        this.failed = event;
        return;
      default:
        return;
    }
  }

  /** The envelope of the events so far; `durationMs` is the run's wall time. */
  envelope(durationMs: number): Envelope {
    const env: Envelope = structuredClone(this.env);
    env.duration_ms = Math.max(0, Math.round(durationMs));
    env.duration_api_ms = Math.round(this.apiMs);
    if (this.answered) env.model = this.answered;
    let usage = this.usage;
    let cost = this.cost;
    for (const s of this.subagents) {
      usage = addUsage(usage, s.usage);
      cost = cost === null || s.cost_usd === null ? null : cost + s.cost_usd;
    }
    env.usage = usage;
    env.total_cost_usd = cost === null ? null : Math.round(cost * 1e6) / 1e6;
    env.files_changed = [...this.files].map(([path, change]) => ({ path, change }));
    const partial = this.pending?.text ?? "";
    const text = this.failed && partial ? partial : this.final;
    // ask keeps an empty answer as "" (a script can tell it from a failure); the others say null
    env.result = text || (!this.failed && env.command === "ask" ? text : null);
    const e = this.failed;
    if (e) {
      env.status = e.exit_code === 0 ? "success" : "error";
      env.is_error = e.exit_code !== 0;
      env.exit_code = e.exit_code;
      env.terminal_reason = e.terminal_reason;
      env.error = { code: e.code, message: e.message, retryable: e.retryable, hint: e.hint };
    }
    return env;
  }
}

/** The envelope a list of events folds to. */
export function foldEnvelope(
  events: readonly RunEvent[],
  options: { command: string; version: string; durationMs: number },
): Envelope {
  const fold = new EnvelopeFold(options.command, options.version);
  for (const e of events) fold.apply(e);
  return fold.envelope(options.durationMs);
}
