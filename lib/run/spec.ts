import type { AskRequest } from "../agent/approval.ts";
import type { RunExtensions } from "../extensions/types.ts";
import type { Session } from "../history/session.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ResilientProvider } from "../llm/retry.ts";
import type { Provider } from "../llm/types.ts";
import type { LoopMode, SessionSpec } from "./context.ts";

/** The command a run is for (the envelope's and session.started's `command`). */
export type RunCommand = "ask" | "agent" | "coder" | "chat";

/** How the run's input is read (CONTRACT §4); absent: the caller hands each turn its input. */
export interface InputSpec {
  /** The prompt or task words (undefined or `-`: stdin). */
  prompt?: string;
  noStdin: boolean;
  firstByteTimeoutMs: number;
  maxBytes: number;
  truncate: boolean;
  /** How errors name it: "prompt" (ask) or "task" (agent). */
  what?: "prompt" | "task";
}

/**
 * Everything a front end decides about a run, from its flags: commands/ map flags to this, the REPL
 * builds one per operation. lib/run resolves the rest (settings, model, provider chain, policy…).
 */
export interface RunSpec {
  command: RunCommand;
  /** The loop's tool set: ask (none: one turn, no tools), agent or coder. */
  mode: LoopMode;
  input?: InputSpec;
  model?: string;
  system?: string;
  maxTokens?: number;
  effort?: string;
  showReasoning?: boolean;
  timeoutMs?: number;
  fakeResponses?: string;
  maxRetries?: number;
  files?: string[];
  bare?: boolean;
  session?: SessionSpec;
  noAutoCompact?: boolean;
  /** `--memory off|read|write` (default: write on a TTY, read in CI and pipes). */
  memory?: string;
  /** stdin and stdout are terminals and CI is unset (asks become prompts, trust is asked). */
  interactive: boolean;
  trustWorkspace?: boolean;
  permissionMode?: string;
  allowTool?: string[];
  denyTool?: string[];
  onAsk?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  sandbox?: string;
  passEnv?: string[];
  /** `--env-policy core|all`: what commands inherit (default core: the documented core set). */
  envPolicy?: string;
  allowNetwork?: boolean;
  /** `--allow-network HOST,…`: child processes reach only these hosts, in any mode but bypass. */
  allowNetworkHosts?: string[];
  /** `--allow-git-writes`: commands may write the workspace's `.git` in edit/auto. */
  allowGitWrites?: boolean;
  /** `--allow-read PATH` (repeatable): paths under HOME commands and file tools may read. */
  allowRead?: string[];
  /** `--mcp-config FILE` (repeatable): more MCP servers; `--strict-mcp-config`: only those. */
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
  /**
   * The sink shows deltas as they arrive (ask's text stdout, stream-json, the REPL): a reply that
   * breaks mid-way is then not asked again. A property of the sink, never the output format.
   */
  liveDeltas: boolean;
  /** A ready primary provider (tests); the fallbacks are still built from the environment. */
  provider?: Provider;
  /** A human answering the policy's asks (tests, the REPL); on a TTY one is built from ctx. */
  ask?: (request: AskRequest) => Promise<boolean>;
  /** Extensions (tests); else lib/run/extensions.ts opens the run's own. */
  extensions?: RunExtensions;
}

/** What the REPL shares with the runs it opens: its session, its chain, its settings. */
export interface SharedRun {
  session: Session;
  provider: ResilientProvider;
  /** The model the REPL runs (-m, /model). */
  ref: ModelRef;
}
