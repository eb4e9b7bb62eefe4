/**
 * The seam between the run engine (lib/run) and the extensions (MCP servers, skills, hooks). The
 * engine asks for one `RunExtensions` per run and calls it at fixed points; lib/extensions knows
 * nothing of the agent loop, the output formats or the policy (it sits below lib/agent), so its tools
 * are plain descriptions with a `call`, which lib/run wraps as agent tools judged by the policy.
 */

/** A tool an extension offers (an MCP server's tool, `tool_search`, `skill`). */
export interface ExtensionTool {
  /** As offered to the model: `mcp__<server>__<tool>`, `tool_search`, `skill`. */
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** Other names a model may call it by (Go's `mcp_<tool>`). */
  aliases?: string[];
  /** `mcp`: an outbound channel (needs an allow rule in read-only and edit); `local`: chatcli's own. */
  origin: "mcp" | "local";
  /** The server it belongs to (mcp), for allow rules and the envelope. */
  server?: string;
  /** Its result is untrusted content (like a web page): never a source of memory facts. */
  untrustedOutput: boolean;
  /**
   * Known but not offered on the first request (deferred MCP loading): it runs when called, and is
   * offered once newTools() returns it.
   */
  deferred?: boolean;
  call(
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ output: string; isError?: boolean }>;
}

/** Hook events, named as the Go ChatCLI names them in hooks.json. */
export type HookEventName =
  | "SessionStart"
  | "SessionEnd"
  | "UserPromptSubmit"
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "PreCompact"
  | "PostCompact"
  | "Notification";

/** What a hook receives on stdin (Go's field names). */
export interface HookEvent {
  type: HookEventName;
  timestamp: string;
  sessionId: string | null;
  workingDir: string;
  toolName?: string;
  toolArgs?: Record<string, unknown>;
  toolOutput?: string;
  error?: string;
  userPrompt?: string;
  /** PreCompact/PostCompact: what caused it (`auto`, `manual`, `recovery`), as in Go. */
  trigger?: string;
}

/** What firing one event gave: a PreToolUse hook may block the tool (exit 2 or HTTP 403). */
export interface HookOutcome {
  blocked: boolean;
  /** The blocking hook's stderr (or body): the tool result the model sees, and the denial reason. */
  reason?: string;
  /** One entry per hook that ran, for the `hook` stream event. */
  ran: Array<{
    name: string;
    event: HookEventName;
    status: "ok" | "blocked" | "error" | "timeout";
    duration_ms: number;
  }>;
  /** Hooks that crashed or timed out: warnings, never a failed run. */
  warnings: Array<{ code: string; message: string }>;
}

/** What the active skills change besides the prompt (allowed-tools, model, effort). */
export interface SkillEffects {
  /** Allow rules to add for the rest of the run (trusted skills' allowed-tools). */
  allow: string[];
  /** When set, only these tools may be offered (an untrusted workspace skill only narrows). */
  only?: string[];
  /** The model to use when the user named none (trusted skills only). */
  model?: string;
  /** The effort to use (an untrusted skill's only when lower than `current.effort`). */
  effort?: string;
}

/** One run's extensions, opened by the engine (lazily: a run that offers no tools starts no server). */
export interface RunExtensions {
  /**
   * Stable text for the cached system prefix: the skills index, one line per MCP server whose tools
   * are deferred. Call it after tools() (whether MCP tools are deferred is known only then).
   */
  systemBlocks(): Array<{ id: string; text: string }>;
  /**
   * Every tool (starts the servers, in parallel): offer the ones without `deferred` on the first
   * request; the deferred ones still run when called (and newTools() returns them once found).
   */
  tools(): Promise<ExtensionTool[]>;
  /** Tools added since the last call (tool_search results, tools/list_changed): offered from the next request on. */
  newTools(): ExtensionTool[];
  /** Skill bodies a user input activates (trigger words, paths, `/name`), within the inject budget. */
  contextFor(input: string, paths: readonly string[]): Array<{ id: string; text: string }>;
  /** The effects of the skills active so far (contextFor and the `skill` tool activate them). */
  skillEffects(current: { effort?: string }): SkillEffects;
  /** Fires every hook registered for the event. Never throws. */
  fire(event: HookEvent): Promise<HookOutcome>;
  /** Connected servers, for `session.started` and the envelope. */
  servers(): Array<{
    name: string;
    status: "connected" | "failed" | "pending" | "untrusted";
    tools: number;
    scope: "global" | "workspace" | "flag";
    /** Why it failed. */
    error?: string;
  }>;
  /** Warnings since the last call (a server that failed to start, untrusted workspace files). */
  warnings(): Array<{ code: string; message: string }>;
  /** Stops every server this run started. */
  close(): Promise<void>;
}

/** No extensions configured: what a run gets until lib/extensions opens the real ones. */
export function noExtensions(): RunExtensions {
  const none: HookOutcome = { blocked: false, ran: [], warnings: [] };
  return {
    systemBlocks: () => [],
    tools: async () => [],
    newTools: () => [],
    contextFor: () => [],
    skillEffects: () => ({ allow: [] }),
    fire: async () => none,
    servers: () => [],
    warnings: () => [],
    close: async () => {},
  };
}
