import type { Env } from "../core/ctx.ts";
import type { ChatcliError, TerminalReason } from "../core/errors.ts";
import type { HookEvent, HookOutcome } from "../extensions/types.ts";
import type { ChatMessage, Effort, Provider, SystemBlock, Usage } from "../llm/types.ts";
import type { Emit, PermissionDenial } from "../output/events.ts";
import type { PermissionPolicy, ToolKind } from "../policy/permissions.ts";
import type { ProtectedPaths } from "../policy/protected-paths.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";

export type { ToolKind };

/** A question for a human on a TTY; resolves true only on an explicit yes. */
export interface AskRequest {
  tool: string;
  input: string;
  reason: string;
  /** Dangerous commands need a typed confirmation, not just `y`. */
  dangerous: boolean;
  /** The call's arguments, for a preview (the diff of an edit, the full command). */
  args?: Record<string, unknown>;
}

/** Tool calls of a run, for the envelope's `tools`. */
export interface ToolStats {
  calls: number;
  failed: number;
  denied: number;
  by_name: Record<string, number>;
}

/** The injected memory store (lib/memory provides the real one). Each method returns text for the model. */
export interface MemoryBackend {
  /** `source`: where the text came from when not the user (`tool:web_fetch`), kept on the fact. */
  remember(content: string, category?: string, source?: string): Promise<string>;
  profile(fields: Record<string, string>): Promise<string>;
  forget(match: string): Promise<string>;
  recall(query?: string): Promise<string>;
}

/** Everything a tool may touch: no globals, only this. */
export interface ToolContext {
  workspaceRoot: string;
  cwd: string;
  env: Env;
  signal: AbortSignal;
  fetch: typeof fetch;
  /** DNS for web_fetch's address guard (tests inject one; default: the system resolver). */
  lookup?: (host: string) => Promise<string[]>;
  now: () => Date;
  /** Session scratch dir for web_fetch auto-save (else CHATCLI_AGENT_TMPDIR, else the OS temp dir). */
  scratchDir?: string;
  /** The OS sandbox every process a tool starts runs in (absent: unconfined, unit tests only). */
  sandbox?: Sandbox;
  /**
   * The run's outbound rule for a URL a network tool is about to request (every redirect hop):
   * the refusal with the flag that would allow it, or undefined when allowed.
   */
  outbound?: (tool: string, url: string) => string | undefined;
  /** Set for one call a human approved on the terminal (read-only mode lets it write the workspace). */
  humanApproved?: boolean;
  memory?: MemoryBackend;
  /** `--memory` mode: off disables the tool, read allows only recall. */
  memoryMode?: "off" | "read" | "write";
  /** Called before a file is created or modified (checkpoint snapshot). */
  beforeFileChange?: (absPath: string) => Promise<void> | void;
  /** Paths no tool reads (credentials, chatcli's home, /proc/<pid>/environ); absent in bypass mode. */
  protectedPaths?: ProtectedPaths;
  /** This run's tool outputs and the user's task: a remembered fact lifted from them says so. */
  origins?: { list: Array<{ label: string; text: string }>; userText: string };
  /** The id of the tool call being executed (delegate: the sub-agent's parent_id in events). */
  callId?: string;
  /**
   * What the run has left now: turns under its --max-turns after the current one, and what it has
   * spent itself (delegate: a sub-agent gets no more than that).
   */
  left?: () => { turns: number; spentUsd: number | null };
}

export interface FileChange {
  /** Absolute path. */
  path: string;
  change: "created" | "modified" | "deleted";
}

/** What a tool returns; `isError` results go back to the model as errors it can fix. */
export interface ToolOutcome {
  output: string;
  isError?: boolean;
  exitCode?: number | null;
  /** Short text for the stderr line (`exit 1`, `42 lines`). */
  summary?: string;
  filesChanged?: FileChange[];
  /** Warnings for the envelope and stderr (a command created a nested git repository). */
  warnings?: Array<{ code: string; message: string }>;
}

export type JsonSchema = Record<string, unknown>;

/** A tool defined as data: the model sees name, description and schema; the loop calls execute. */
export interface Tool {
  name: string;
  description: string;
  input_schema: JsonSchema;
  kind: ToolKind;
  /** Other names the model may call it by (Go's `mcp_<tool>`); the policy judges `name`. */
  aliases?: readonly string[];
  /** Its output is untrusted content (web, MCP): never a source of memory facts. */
  untrustedOutput?: boolean;
  /** The text permission rules and progress lines see: a path, a command, a URL. */
  subject(args: Record<string, unknown>): string;
  /**
   * network: the host the call reaches, for `domain:` rules (default: the host of the subject when
   * it is an http(s) URL; none: only a rule naming the tool opens it).
   */
  host?(args: Record<string, unknown>): string | undefined;
  /** Paths (relative or absolute) an edit tool writes, for the workspace check. */
  writes?(args: Record<string, unknown>): string[];
  /** Extra argument checks after the schema (returns an error message for the model). */
  validate?(args: Record<string, unknown>): string | undefined;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}

export interface AgentLimits {
  maxTurns: number;
  maxBudgetUsd?: number;
  timeoutMs?: number;
}

/** Integration points: sessions, checkpoints and compaction plug in here. */
export interface AgentHooks {
  /**
   * Before each request: returns the history to continue with (compaction, checkpoints). `charge`
   * adds the usage of requests made on the run's behalf (a compaction summary) to its totals.
   */
  beforeRequest?(
    messages: ChatMessage[],
    turn: number,
    signal: AbortSignal,
    charge: (usage: Usage) => void,
  ): ChatMessage[] | Promise<ChatMessage[]>;
  /**
   * After the provider rejected a request as too long for its context window: returns a smaller
   * history to retry the request with once (compaction), or undefined to give up.
   */
  onContextOverflow?(
    messages: ChatMessage[],
    signal: AbortSignal,
    /** The provider's rejection (its words and token counts steer the compaction). */
    error: unknown,
    charge: (usage: Usage) => void,
  ): Promise<ChatMessage[] | undefined>;
  /** Before a tool creates or modifies a file (checkpoint snapshot). */
  beforeFileChange?(absPath: string): Promise<void> | void;
}

export interface AgentInput {
  provider: Provider;
  /** Model label for events (`anthropic/claude-…`). */
  model: string;
  mode: "agent" | "coder";
  task: string;
  history: ChatMessage[];
  system: SystemBlock[];
  tools: Tool[];
  /**
   * The tools whose definitions the model is sent (default: all of `tools`). The others still run
   * through the policy when called anyway, so a denial says why (lib/agent/tools/registry.ts).
   */
  offered?: readonly string[];
  policy: PermissionPolicy;
  limits: AgentLimits;
  /** Price of one request's usage in USD; null when the model is unpriced. */
  costOf?: (usage: Usage) => number | null;
  hooks?: AgentHooks;
  /** Where the loop's events go (the engine's channel; tests collect them). */
  emit: Emit;
  /**
   * Whether deltas are shown as they arrive (then a broken reply is not asked again): set by the
   * front end from its sink, never from the output format.
   */
  liveDeltas?: boolean;
  /** The sub-agent this loop runs for (delegate's call id); absent for the run's own loop. */
  parentId?: string;
  /** A reply cut at the output limit is continued (agent) or ends the run with a warning (ask). */
  continueOnMaxTokens?: boolean;
  /** The label of the model that answered the latest request (a fallback's); default `model`. */
  answeredBy?: () => string;
  /** Tools added since the last request (an extension's tool_search): offered from the next one. */
  moreTools?: () => Tool[];
  /** Fires hooks (PreToolUse, PostToolUse…); absent without extensions. */
  fire?: (event: HookEvent) => Promise<HookOutcome>;
  /** Takes work the loop does not wait for (PostToolUse hooks): the run awaits it before the turn ends. */
  background?: (work: Promise<unknown>) => void;
  signal: AbortSignal;
  workspaceRoot: string;
  cwd: string;
  env: Env;
  fetch: typeof fetch;
  now: () => Date;
  /** Present only on a TTY: asks a human (explicit yes only). */
  ask?: (request: AskRequest) => Promise<boolean>;
  memory?: MemoryBackend;
  memoryMode?: "off" | "read" | "write";
  scratchDir?: string;
  /** The run's OS sandbox (headless and the REPL always pass one). */
  sandbox?: Sandbox;
  maxTokens?: number;
  /** Reasoning effort and --show-reasoning, passed on every request. */
  effort?: Effort;
  showReasoning?: boolean;
}

export interface AgentResult {
  messages: ChatMessage[];
  finalText: string;
  numTurns: number;
  usage: Usage;
  durationApiMs: number;
  /** null when any request was unpriced (or no costOf was given). */
  costUsd: number | null;
  tools: ToolStats;
  permissionDenials: PermissionDenial[];
  /** Paths relative to the workspace root when inside it. */
  filesChanged: Array<{ path: string; change: FileChange["change"] }>;
  terminalReason: TerminalReason;
  /** Successful memory-tool writes. */
  memoryWrites: number;
  /** Set for every terminal reason but `completed`. */
  error?: ChatcliError;
}
