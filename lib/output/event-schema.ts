/**
 * Every stream-json event (CONTRACT §2) and the result envelope, as schemas. One payload per event
 * type: the same keys in ask, agent, coder, chat's /agent and compact; a key that does not apply is
 * null. `RUN_EVENTS` is the in-memory union the engine yields; `streamLine` adds the stamp every
 * printed line carries (seq, ts, session_id).
 */
import Type from "typebox";
import {
  BootstrapFile,
  Change,
  CompactionInfo,
  ErrorInfo,
  FileChange,
  Int,
  McpServer,
  MemoryInfo,
  N,
  Obj,
  OutboundInfo,
  PermissionDenial,
  PermissionMode,
  SandboxInfo,
  Str,
  Subagent,
  TerminalReason,
  ToolStats,
  Usage,
  Warning,
} from "./schema-parts.ts";

/** The sub-agent a loop event belongs to (the delegate call's id); null for the run's own. */
const parent_id = N(Str);
const Json = Type.Record(Type.String(), Type.Unknown());

/** Payloads by event type (without `type` and the stamp). */
export const PAYLOADS = {
  "session.started": {
    schema_version: Int,
    chatcli_version: Str,
    command: Str,
    session_id: N(Str),
    model: N(Str),
    cwd: N(Str),
    workspace: N(Str),
    permission_mode: N(PermissionMode),
    workspace_trust: N(Obj({ trusted: Type.Boolean(), source: Str })),
    /** `agent @role TASK`: the AGENTS.md role run directly. */
    role: N(Str),
    tools: Type.Array(Str),
    bootstrap_files: Type.Array(BootstrapFile),
    memory: N(MemoryInfo),
    sandbox: N(SandboxInfo),
    /** agent/coder: what outbound channels may reach; null for runs without tools. */
    outbound: N(OutboundInfo),
    mcp_servers: Type.Array(McpServer),
    limits: Obj({
      max_turns: N(Int),
      max_budget_usd: N(Type.Number()),
      timeout_ms: N(Int),
      max_tokens: N(Int),
    }),
  },
  "turn.started": { turn: Int, parent_id },
  "message.delta": { turn: Int, text: Str, parent_id },
  "reasoning.delta": { turn: Int, text: Str, parent_id },
  "message.completed": {
    turn: Int,
    role: Type.Literal("assistant"),
    text: Str,
    tool_calls: Type.Array(Obj({ id: Str, name: Str, arguments: Json })),
    parent_id,
  },
  "tool.started": { turn: Int, id: Str, name: Str, input: Json, parent_id },
  "permission.decided": {
    turn: Int,
    id: Str,
    name: Str,
    /** What the policy judged: the command, the path, the URL. */
    input: Str,
    decision: Type.Union([Type.Literal("allow"), Type.Literal("deny")]),
    reason: Str,
    source: Type.Union([
      Type.Literal("policy"),
      Type.Literal("user"),
      Type.Literal("on_ask"),
      Type.Literal("sandbox"),
      Type.Literal("hook"),
    ]),
    /** The flag that would allow a denied call. */
    suggestion: N(Str),
    parent_id,
  },
  "tool.completed": {
    turn: Int,
    id: Str,
    name: Str,
    status: Type.Union([Type.Literal("ok"), Type.Literal("error"), Type.Literal("denied")]),
    output: Str,
    exit_code: N(Type.Integer()),
    duration_ms: Int,
    /** What the call was about (a path, a command); null when the tool or its arguments were bad. */
    subject: N(Str),
    /** One line on the outcome (`exit 1`, `42 lines`, `denied (…)`); null when the call never ran. */
    summary: N(Str),
    parent_id,
  },
  "file.changed": {
    turn: Int,
    id: Str,
    path: Str,
    change: FileChange.properties.change,
    parent_id,
  },
  "checkpoint.created": { id: Int, turn: Int, messages: Int },
  "compaction.started": {
    trigger: Type.Union([
      Type.Literal("threshold"),
      Type.Literal("context_length_error"),
      Type.Literal("command"),
    ]),
    messages: Int,
    tokens: N(Int),
    budget_tokens: Int,
  },
  "compaction.phase": {
    phase: Str,
    messages: N(Int),
    tokens: N(Int),
    budget_tokens: N(Int),
    tokens_before: N(Int),
    tokens_after: N(Int),
    fits: N(Type.Boolean()),
    chunk: N(Int),
    chunks: N(Int),
    error: N(Str),
  },
  "compaction.completed": CompactionInfo.properties,
  "memory.written": {
    source: Type.Union([Type.Literal("tool"), Type.Literal("extraction")]),
    turn: N(Int),
    id: N(Str),
    cmd: N(Str),
    facts: Int,
    result: N(Str),
    parent_id,
  },
  retry: {
    attempt: Int,
    delay_ms: Int,
    provider: Str,
    model: Str,
    fallback: Type.Boolean(),
    /**
     * Where the delay came from: the `retry-after` header, Google's `RetryInfo`, the error message
     * ("Please try again in 1.898s"); null when it is chatcli's own backoff (or a fallback).
     */
    retry_after_source: N(
      Type.Union([
        Type.Literal("retry-after"),
        Type.Literal("RetryInfo"),
        Type.Literal("the error message"),
      ]),
    ),
    error: Obj({ code: Str, status: N(Int), message: Str }),
  },
  warning: Warning.properties,
  hook: {
    event: Str,
    name: Str,
    status: Type.Union([
      Type.Literal("ok"),
      Type.Literal("blocked"),
      Type.Literal("error"),
      Type.Literal("timeout"),
    ]),
    duration_ms: Int,
    tool: N(Str),
    /** A blocking hook's reason (its stderr or body); null unless status is blocked. */
    reason: N(Str),
    parent_id,
  },
  "subagent.started": {
    parent_id: Str,
    role: N(Str),
    description: N(Str),
    model: Str,
    tools: Type.Array(Str),
    read_only: Type.Boolean(),
    max_turns: Int,
  },
  "subagent.completed": {
    parent_id: Str,
    role: N(Str),
    description: N(Str),
    model: Str,
    status: Subagent.properties.status,
    terminal_reason: TerminalReason,
    turns: Int,
    usage: Usage,
    total_tokens: Int,
    cost_usd: N(Type.Number()),
    files_changed: Type.Array(FileChange),
    permission_denials: Type.Array(PermissionDenial),
    error: N(Obj({ code: Str, message: Str })),
  },
  "turn.completed": {
    turn: Int,
    /** This turn's request (the last one, when a context overflow made it ask twice). */
    usage: Usage,
    /** The run's so far (compaction summaries of ask included; sub-agents' are in subagent.completed). */
    cumulative_usage: Usage,
    cost_usd: N(Type.Number()),
    cumulative_cost_usd: N(Type.Number()),
    duration_api_ms: Int,
    /** The model that answered (a fallback's, after one answered). */
    model: Str,
    parent_id,
  },
  error: {
    ...ErrorInfo.properties,
    exit_code: Int,
    terminal_reason: TerminalReason,
  },
};

/** The result envelope: `--json`'s one document, stream-json's last line (with the stamp). */
export const Envelope = Obj({
  type: Type.Literal("result"),
  schema_version: Int,
  chatcli_version: Str,
  command: Str,
  status: Type.Union([Type.Literal("success"), Type.Literal("error")]),
  is_error: Type.Boolean(),
  exit_code: Int,
  terminal_reason: TerminalReason,
  result: N(Str),
  session_id: N(Str),
  model: N(Str),
  num_turns: Int,
  duration_ms: Int,
  duration_api_ms: Int,
  usage: Usage,
  total_cost_usd: N(Type.Number()),
  cost_is_estimate: Type.Boolean(),
  tools: N(ToolStats),
  permission_denials: Type.Array(PermissionDenial),
  files_changed: Type.Array(FileChange),
  checkpoints: N(Obj({ count: Int, last: N(Int) })),
  memory: N(MemoryInfo),
  bootstrap_files: Type.Array(BootstrapFile),
  compaction: N(CompactionInfo),
  sandbox: N(SandboxInfo),
  outbound: N(OutboundInfo),
  mcp_servers: Type.Array(McpServer),
  subagents: N(Type.Array(Subagent)),
  /** `rewind --to`: what was (or would be, with --dry-run) restored. */
  rewind: N(
    Obj({
      checkpoint: Int,
      scope: Str,
      dry_run: Type.Boolean(),
      messages_before: Int,
      messages_after: Int,
      files: Type.Array(
        Obj({
          path: Str,
          action: Str,
          change: N(Change),
          conflict: Type.Boolean(),
          /** Why it cannot be restored (a symbolic link, a directory). */
          reason: N(Str),
        }),
      ),
      removed_checkpoints: Type.Array(Int),
    }),
  ),
  warnings: Type.Array(Warning),
  error: N(ErrorInfo),
});

export const RUN_EVENTS = {
  "session.started": Obj({ type: Type.Literal("session.started"), ...PAYLOADS["session.started"] }),
  "turn.started": Obj({ type: Type.Literal("turn.started"), ...PAYLOADS["turn.started"] }),
  "message.delta": Obj({ type: Type.Literal("message.delta"), ...PAYLOADS["message.delta"] }),
  "reasoning.delta": Obj({ type: Type.Literal("reasoning.delta"), ...PAYLOADS["reasoning.delta"] }),
  "message.completed": Obj({
    type: Type.Literal("message.completed"),
    ...PAYLOADS["message.completed"],
  }),
  "tool.started": Obj({ type: Type.Literal("tool.started"), ...PAYLOADS["tool.started"] }),
  "permission.decided": Obj({
    type: Type.Literal("permission.decided"),
    ...PAYLOADS["permission.decided"],
  }),
  "tool.completed": Obj({ type: Type.Literal("tool.completed"), ...PAYLOADS["tool.completed"] }),
  "file.changed": Obj({ type: Type.Literal("file.changed"), ...PAYLOADS["file.changed"] }),
  "checkpoint.created": Obj({
    type: Type.Literal("checkpoint.created"),
    ...PAYLOADS["checkpoint.created"],
  }),
  "compaction.started": Obj({
    type: Type.Literal("compaction.started"),
    ...PAYLOADS["compaction.started"],
  }),
  "compaction.phase": Obj({
    type: Type.Literal("compaction.phase"),
    ...PAYLOADS["compaction.phase"],
  }),
  "compaction.completed": Obj({
    type: Type.Literal("compaction.completed"),
    ...PAYLOADS["compaction.completed"],
  }),
  "memory.written": Obj({ type: Type.Literal("memory.written"), ...PAYLOADS["memory.written"] }),
  retry: Obj({ type: Type.Literal("retry"), ...PAYLOADS["retry"] }),
  warning: Obj({ type: Type.Literal("warning"), ...PAYLOADS["warning"] }),
  hook: Obj({ type: Type.Literal("hook"), ...PAYLOADS["hook"] }),
  "subagent.started": Obj({
    type: Type.Literal("subagent.started"),
    ...PAYLOADS["subagent.started"],
  }),
  "subagent.completed": Obj({
    type: Type.Literal("subagent.completed"),
    ...PAYLOADS["subagent.completed"],
  }),
  "turn.completed": Obj({ type: Type.Literal("turn.completed"), ...PAYLOADS["turn.completed"] }),
  error: Obj({ type: Type.Literal("error"), ...PAYLOADS["error"] }),
};

export const RunEventSchema = Type.Union(Object.values(RUN_EVENTS));

/** The stamp on every stream-json line. */
const STAMP = {
  seq: Int,
  ts: Type.String({ format: "date-time" }),
  session_id: N(Str),
};

/** A printed stream-json line of one event type. */
export function streamLine(schema: Type.TObject): Type.TObject {
  return Obj({ ...schema.properties, ...STAMP });
}
