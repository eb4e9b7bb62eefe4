import type { ChatcliError, TerminalReason } from "../core/errors.ts";
import { exitCodeFor } from "../core/errors.ts";
import type { Usage } from "../llm/types.ts";
import { emptyUsage } from "../llm/types.ts";

export const SCHEMA_VERSION = 1;

export interface Warning {
  code: string;
  message: string;
}

export interface PermissionDenial {
  tool: string;
  input: string;
  reason: string;
  turn: number;
}

export interface BootstrapFileInfo {
  name: string;
  path: string;
  /** `attachment`: a file given with -f/--file. */
  scope: "workspace" | "global" | "attachment";
  bytes: number;
}

/** The result envelope (CONTRACT §2): `--json` output and the last stream-json line. */
export interface Envelope {
  type: "result";
  schema_version: number;
  chatcli_version: string;
  command: string;
  status: "success" | "error";
  is_error: boolean;
  exit_code: number;
  terminal_reason: TerminalReason;
  result: string | null;
  session_id: string | null;
  model: string | null;
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  usage: Usage;
  total_cost_usd: number | null;
  cost_is_estimate: boolean;
  tools: { calls: number; failed: number; denied: number; by_name: Record<string, number> } | null;
  permission_denials: PermissionDenial[];
  files_changed: Array<{ path: string; change: "created" | "modified" | "deleted" }>;
  checkpoints: { count: number; last: number | null } | null;
  /**
   * `mode`: how memory reached the prompt (index, full, off); `access`: what the run may do with the
   * store — off, read (never written: --memory read, the default in CI and pipes) or write.
   */
  memory: {
    mode: string;
    access: "off" | "read" | "write";
    facts_loaded: number;
    facts_written: number;
  } | null;
  bootstrap_files: BootstrapFileInfo[];
  compaction: Record<string, unknown> | null;
  /** The OS sandbox of agent/coder runs (CONTRACT §5); null for commands that run no tools. */
  sandbox: { kind: string; available: boolean; network: boolean } | null;
  /**
   * agent/coder: the outbound channels (web_fetch, web_search, MCP): `open` in auto and bypass,
   * else `allowlist` with the allow rules that open a tool or host (CONTRACT §5); null otherwise.
   */
  outbound: { policy: "open" | "allowlist"; allow: string[] } | null;
  warnings: Warning[];
  /** agent/coder: each sub-agent run (delegate tool), in completion order. */
  subagents?: Array<{
    id: string;
    role: string | null;
    turns: number;
    total_tokens: number;
    usage: Usage;
    cost_usd: number | null;
    status: "success" | "error";
  }>;
  error: { code: string; message: string; retryable: boolean; hint?: string } | null;
  /** agent/coder: the MCP servers of the run (lib/extensions), when any is configured. */
  mcp_servers?: Array<{
    name: string;
    status: string;
    tools: number;
    scope: string;
    error?: string;
  }>;
}

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
    warnings: [],
    error: null,
  };
}

/** Sets status, exit code and reason together so the invariant is_error == (exit != 0) holds. */
export function settle(envelope: Envelope, reason: TerminalReason, exitCode?: number): Envelope {
  const code = exitCode ?? exitCodeFor(reason);
  envelope.terminal_reason = reason;
  envelope.exit_code = code;
  envelope.is_error = code !== 0;
  envelope.status = code === 0 ? "success" : "error";
  return envelope;
}

/** Records a failure on the envelope. */
export function settleError(envelope: Envelope, error: ChatcliError, exitCode?: number): Envelope {
  settle(envelope, error.reason, exitCode ?? error.exitCode);
  envelope.error = { code: error.code, message: error.message, retryable: error.retryable };
  if (error.hint) envelope.error.hint = error.hint;
  return envelope;
}
