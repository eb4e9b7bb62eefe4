/**
 * The seam between the REPL and the rest of chatcli. The REPL only draws, reads keys and routes
 * slash commands; every piece of behaviour (the chat turn, compaction, checkpoints, memory, the
 * agent loop, sessions, cost) lives behind this interface and is the same code the one-shot
 * commands run. `commands/chat.ts` builds the real implementation; tests use in-memory fakes.
 */
import type { ChatMessage, Usage } from "../llm/types.ts";

export interface TurnCallbacks {
  /** A streamed piece of the answer, raw from the model (the REPL strips and renders it). */
  onText(delta: string): void;
  /** A status line while the turn runs (a retry, a fallback, automatic compaction), not part of the answer. */
  onNotice?(line: string): void;
}

export interface TurnResult {
  text: string;
  usage?: Usage;
  /** Requests the operation sent (an agent run sends one per turn). */
  requests?: number;
}

export type RewindScopeChoice = "conversation" | "code" | "both";

/** A file a code rewind would touch. */
export interface RewindFile {
  path: string;
  change: "created" | "modified" | "deleted";
  /** Someone changed it since chatcli last wrote it: restoring it needs `chatcli rewind --force`. */
  conflict: boolean;
}

export interface CheckpointInfo {
  /** 1 = newest (the number the user types in the rewind menu). */
  index: number;
  time: Date;
  messages: number;
  /** The user message of that turn, one line. */
  label: string;
  /** After a rewind: what was typed at that turn, put back in the input (as Claude Code does). */
  prompt?: string;
}

export type CompactOutcome =
  | { status: "compacted"; before: number; after: number }
  /** Nothing done, with the reason to print (`History too short to compact.`). */
  | { status: "skipped"; message: string };

export interface ApprovalRequest {
  tool: string;
  /** One line describing the call (`run_command npm test`). */
  summary: string;
  /** Full arguments, shown indented under the summary. */
  detail?: string;
  /** Dangerous calls need the word `yes` typed out, not a single key. */
  dangerous?: boolean;
  /** What `a` (always) would allow for the rest of the session (`run_command npm …`); absent: no `a`. */
  alwaysLabel?: string;
  /** The key under which an `a` answer is remembered. */
  alwaysKey?: string;
}

export interface AgentCallbacks extends TurnCallbacks {
  /** One line of tool activity (`▸ read_file src/a.ts`). */
  onActivity(line: string): void;
  /** A shell command started (`run_command`, `run_tests`), or the one running ended (undefined). */
  onCommand?(command: string | undefined): void;
  /** Asks the human; resolves true only on an explicit yes. */
  approve(request: ApprovalRequest): Promise<boolean>;
}

export interface SessionEntry {
  name: string;
  title?: string;
}

export interface CostSummary {
  requests: number;
  usage: Usage;
  /** null when the model has no known price. */
  costUsd: number | null;
  costIsEstimate: boolean;
  /** The same, per purpose (chat, agent, compaction, memory), in first-use order. */
  byPurpose?: Array<{ purpose: string; requests: number; usage: Usage; costUsd: number | null }>;
}

export interface ContextPart {
  label: string;
  chars: number;
  tokens: number;
}

export interface ContextSummary {
  parts: ContextPart[];
  messages: number;
  /** Model context window in tokens, when known. */
  window?: number;
}

/** Everything the REPL asks of the rest of chatcli. Methods throw Error with a printable message. */
export interface ReplServices {
  /** `provider/model`, for the banner and /model. */
  modelLabel(): string;
  /** Whether `/name` names a skill the user may invoke (the line then goes to the model with it). */
  skillNamed?(name: string): Promise<boolean>;
  /** The unified conversation (chat, agent and coder share it). */
  history(): readonly ChatMessage[];

  /** One chat turn: checkpoint, (auto)compaction, streamed request; appends to history only on success. */
  sendTurn(input: string, callbacks: TurnCallbacks, signal: AbortSignal): Promise<TurnResult>;
  /** `/compact [instruction]`; `onPhase` gets each live status line. Cancelling keeps the history. */
  compact(
    instruction: string | undefined,
    signal: AbortSignal,
    onPhase: (line: string) => void,
  ): Promise<CompactOutcome>;
  /** Checkpoints, newest first. */
  listCheckpoints(): CheckpointInfo[];
  /** Files a rewind of the code to checkpoint `index` would change (none: conversation only). */
  rewindFiles?(index: number): Promise<RewindFile[]>;
  /**
   * Restores checkpoint `index` (1 = newest); later ones are dropped. `scope`: the conversation
   * (default), the files tools changed since, or both.
   */
  rewind(index: number, scope?: RewindScopeChoice): Promise<CheckpointInfo>;

  /** `!command`: runs it through the permission policy and the OS sandbox (see live-shell.ts). */
  shell?(
    command: string,
    signal: AbortSignal,
    hooks: { confirmDangerous(reason: string): Promise<boolean>; onNotice(line: string): void },
  ): Promise<{ denied?: string; output: string; exitCode: number | null }>;

  /** `/memory <args>`: the printable output of the memory subcommand. */
  memory(args: string, signal: AbortSignal): Promise<string>;
  /** `/agent` and `/coder`: the one agent loop, sharing this history. */
  runAgent(
    mode: "agent" | "coder",
    task: string,
    callbacks: AgentCallbacks,
    signal: AbortSignal,
  ): Promise<TurnResult>;

  /** The bound session name, if any. */
  sessionName(): string | undefined;
  saveSession(name: string): Promise<void>;
  loadSession(name: string): Promise<void>;
  listSessions(): Promise<SessionEntry[]>;
  /** Clears history and checkpoints and unbinds. */
  newSession(): Promise<void>;
  /** Deletes a saved session; true when it was the current one (history cleared). Throws when there is none. */
  removeSession(name: string): Promise<boolean>;

  cost(): CostSummary;
  context(): Promise<ContextSummary>;
  /** `/context attach PATH` (globs too): files kept in the cached system prompt; returns the new list. */
  attach(pattern: string): Promise<string>;
  /** `/context detach NAME`: by file name or path; returns the new list. */
  detach(name: string): Promise<string>;
  /** `/context list`: attached files with token estimates. */
  attachments(): Promise<string>;
  /** Switches the model; returns the new label. */
  setModel(spec: string): Promise<string>;

  /** After each turn or agent run: let the memory worker decide whether to extract (never blocks). */
  nudgeMemory(): void;
  /** Notices queued by background work (memory extraction), printed between turns. */
  drainNotices(): string[];
  /** At exit: save the session (bound name, else autosave); returns the line to print, if any. */
  close(): Promise<string | undefined>;
}
