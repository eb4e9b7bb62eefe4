/**
 * Building blocks of the public JSON shapes (CONTRACT §2), as TypeBox schemas: the TypeScript types
 * of events and of the envelope are inferred from these (lib/output/events.ts imports them as
 * types only), so `chatcli schema` prints what the code is typed as. Loaded at run time only by
 * `chatcli schema` and the tests: no other command pays for building them.
 */
import Type from "typebox";

/** A key that does not apply is null, never missing. */
export function N<T extends Type.TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An object whose keys are all required and whose other keys are refused. */
export function Obj<T extends Type.TProperties>(properties: T, description?: string) {
  return Type.Object(properties, {
    additionalProperties: false,
    ...(description ? { description } : {}),
  });
}

export const Int = Type.Integer({ minimum: 0 });
export const Str = Type.String();

export const Usage = Obj({
  input_tokens: Int,
  output_tokens: Int,
  reasoning_tokens: Int,
  cache_read_input_tokens: Int,
  cache_creation_input_tokens: Int,
});

export const TerminalReason = Type.Union([
  Type.Literal("completed"),
  Type.Literal("provider_error"),
  Type.Literal("rate_limited"),
  Type.Literal("stream_truncated"),
  Type.Literal("refused"),
  Type.Literal("internal_error"),
  Type.Literal("usage_error"),
  Type.Literal("no_prompt"),
  Type.Literal("input_too_large"),
  Type.Literal("bad_input"),
  Type.Literal("config_error"),
  Type.Literal("auth_error"),
  Type.Literal("max_turns"),
  Type.Literal("max_budget"),
  Type.Literal("permission_denied"),
  /** The run ended, but every edit, command and outbound call the model tried was denied (exit 6). */
  Type.Literal("blocked"),
  /** The run ended, but no shell command could run: no OS sandbox, or no network inside it (exit 6). */
  Type.Literal("tools_unavailable"),
  Type.Literal("stagnation"),
  Type.Literal("context_overflow"),
  Type.Literal("rewind_conflict"),
  Type.Literal("timeout"),
  Type.Literal("cancelled"),
]);

export const PermissionMode = Type.Union([
  Type.Literal("read-only"),
  Type.Literal("edit"),
  Type.Literal("auto"),
  Type.Literal("bypass"),
]);

export const Change = Type.Union([
  Type.Literal("created"),
  Type.Literal("modified"),
  Type.Literal("deleted"),
]);

export const FileChange = Obj({ path: Str, change: Change });

export const BootstrapFile = Obj({
  name: Str,
  path: Str,
  scope: Type.Union([
    Type.Literal("workspace"),
    Type.Literal("global"),
    Type.Literal("attachment"),
  ]),
  bytes: Int,
});

/**
 * `mode`: how memory reached the prompt (index, full, off); `access`: what the run may do with the
 * store — off, read (never written: --memory read, the default in CI and pipes) or write.
 */
export const MemoryInfo = Obj({
  mode: Str,
  access: Type.Union([Type.Literal("off"), Type.Literal("read"), Type.Literal("write")]),
  facts_loaded: Int,
  facts_written: Int,
});

export const SandboxInfo = Obj({
  kind: Str,
  available: Type.Boolean(),
  network: Type.Boolean(),
  /** The hosts commands reach through chatcli's proxy (`--allow-network HOST`), else null. */
  network_allow: N(Type.Array(Str)),
});

export const McpServer = Obj({
  name: Str,
  status: Type.Union([
    Type.Literal("connected"),
    Type.Literal("failed"),
    Type.Literal("pending"),
    Type.Literal("untrusted"),
  ]),
  tools: Int,
  scope: Type.Union([Type.Literal("global"), Type.Literal("workspace"), Type.Literal("flag")]),
  /** Why it failed (status failed); null otherwise. */
  error: N(Str),
});

/**
 * agent/coder: the outbound channels (web_fetch, web_search, MCP tools): `open` in auto and bypass,
 * else `allowlist` with the allow rules that open a tool or a host (CONTRACT §5).
 */
export const OutboundInfo = Obj({
  policy: Type.Union([Type.Literal("open"), Type.Literal("allowlist")]),
  allow: Type.Array(Str),
});

export const Warning = Obj({ code: Str, message: Str });

export const PermissionDenial = Obj({
  tool: Str,
  input: Str,
  reason: Str,
  turn: Int,
  suggestion: N(Str),
});

export const ErrorInfo = Obj({
  code: Str,
  message: Str,
  retryable: Type.Boolean(),
  hint: N(Str),
});

export const ToolStats = Obj({
  calls: Int,
  failed: Int,
  denied: Int,
  by_name: Type.Record(Type.String(), Int),
});

export const CompactionInfo = Obj({
  status: Type.Union([
    Type.Literal("compacted"),
    Type.Literal("unchanged"),
    Type.Literal("cancelled"),
  ]),
  levels_run: Type.Array(Int),
  messages_before: Int,
  messages_after: Int,
  tokens_before: Int,
  tokens_after: Int,
  budget_tokens: Int,
  under_budget: Type.Boolean(),
  summary_error: N(Str),
  markers: Type.Array(
    Obj({
      index: Int,
      kind: Type.Union([Type.Literal("summary"), Type.Literal("truncation")]),
      summary_of: N(Int),
    }),
  ),
  /** `chatcli compact`: the conversation's format (chatcli-session, openai, anthropic…). */
  format: N(Str),
});

export const Subagent = Obj({
  id: Str,
  role: N(Str),
  description: N(Str),
  model: Str,
  turns: Int,
  usage: Usage,
  total_tokens: Int,
  cost_usd: N(Type.Number()),
  status: Type.Union([Type.Literal("success"), Type.Literal("error")]),
  terminal_reason: TerminalReason,
  files_changed: Type.Array(FileChange),
  permission_denials: Type.Array(PermissionDenial),
});
