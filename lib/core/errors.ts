import { asText } from "./as-text.ts";

/** The exit-code table (CONTRACT §3). The numbers live here and nowhere else. */
export const EXIT = {
  ok: 0,
  /** provider/API error after retries, a stream cut off after output started, a refusal, internal error */
  failure: 1,
  /** bad flags, no prompt, input too large, no TTY for an interactive command, malformed input */
  usage: 2,
  /** no provider configured, missing key, unknown model, auth rejected */
  config: 3,
  /** --max-turns reached */
  maxTurns: 4,
  /** --max-budget-usd or token budget reached */
  maxBudget: 5,
  /** the permission policy blocked completion (--on-ask fail), or the run could do none of what it tried */
  permissionDenied: 6,
  /** the model repeated the same tool calls */
  stagnation: 7,
  /** context overflow that compaction could not fix */
  contextOverflow: 8,
  /** rewind conflict: files changed since the checkpoint */
  rewindConflict: 9,
  timeout: 124,
  sigint: 130,
  sigpipe: 141,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** terminal_reason values of the envelope. */
export type TerminalReason =
  | "completed"
  | "provider_error"
  | "rate_limited"
  /** the stream ended without its terminal event after output had started (a dropped connection) */
  | "stream_truncated"
  /** the provider refused to answer (Anthropic stop_reason refusal, OpenAI refusal / content_filter) */
  | "refused"
  | "internal_error"
  | "usage_error"
  | "no_prompt"
  | "input_too_large"
  | "bad_input"
  | "config_error"
  | "auth_error"
  | "max_turns"
  | "max_budget"
  | "permission_denied"
  /** the run ended, but every edit and command the model tried was denied by the permission policy */
  | "blocked"
  /** the run ended, but no shell command could run: no OS sandbox, or no network inside it */
  | "tools_unavailable"
  | "stagnation"
  | "context_overflow"
  | "rewind_conflict"
  | "timeout"
  | "cancelled";

const EXIT_OF_REASON: Record<TerminalReason, ExitCode> = {
  completed: EXIT.ok,
  provider_error: EXIT.failure,
  rate_limited: EXIT.failure,
  stream_truncated: EXIT.failure,
  refused: EXIT.failure,
  internal_error: EXIT.failure,
  usage_error: EXIT.usage,
  no_prompt: EXIT.usage,
  input_too_large: EXIT.usage,
  bad_input: EXIT.usage,
  config_error: EXIT.config,
  auth_error: EXIT.config,
  max_turns: EXIT.maxTurns,
  max_budget: EXIT.maxBudget,
  permission_denied: EXIT.permissionDenied,
  blocked: EXIT.permissionDenied,
  tools_unavailable: EXIT.permissionDenied,
  stagnation: EXIT.stagnation,
  context_overflow: EXIT.contextOverflow,
  rewind_conflict: EXIT.rewindConflict,
  timeout: EXIT.timeout,
  cancelled: EXIT.sigint,
};

/** The exit code a terminal reason maps to (cancelled defaults to SIGINT's 130). */
export function exitCodeFor(reason: TerminalReason): ExitCode {
  return EXIT_OF_REASON[reason];
}

export interface ErrorOptions {
  hint?: string;
  retryable?: boolean;
  cause?: unknown;
}

/** Every expected failure: a one-line message, an optional hint, and the reason that fixes the exit code. */
export class ChatcliError extends Error {
  readonly reason: TerminalReason;
  readonly hint: string | undefined;
  readonly retryable: boolean;
  constructor(reason: TerminalReason, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChatcliError";
    this.reason = reason;
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
  }
  get exitCode(): ExitCode {
    return exitCodeFor(this.reason);
  }
  /** The machine-readable code of the envelope's `error`. */
  get code(): string {
    return this.reason;
  }
}

export class UsageError extends ChatcliError {
  constructor(message: string, options: ErrorOptions & { reason?: TerminalReason } = {}) {
    super(options.reason ?? "usage_error", message, options);
    this.name = "UsageError";
  }
}

export class ConfigError extends ChatcliError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("config_error", message, options);
    this.name = "ConfigError";
  }
}

export class AuthError extends ChatcliError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("auth_error", message, options);
    this.name = "AuthError";
  }
}

const SEE_HOME = "chatcli keeps its state in ~/.chatcli; CHATCLI_HOME moves it";

/** What to do about a filesystem error (by errno code). */
const FS_HINTS: Record<string, string> = {
  ENOSPC:
    "the disk is full: free some space and retry (files are replaced atomically: nothing was half-written)",
  EDQUOT: "the disk quota is exhausted: free some space and retry (nothing was half-written)",
  EACCES: `check the permissions of that path (${SEE_HOME})`,
  EPERM: `check the permissions of that path (${SEE_HOME})`,
  EROFS: `that file system is read-only (${SEE_HOME})`,
  ENOTDIR: "a file stands where a directory is expected: move it aside",
  EISDIR: "a directory stands where a file is expected: move it aside",
  ENAMETOOLONG: `the path is too long (${SEE_HOME})`,
  ELOOP: "too many levels of symbolic links (a loop?) in that path",
  EMFILE: "too many open files: raise the limit (ulimit -n)",
};

/** Turns anything thrown into a ChatcliError (unknown errors become internal_error). */
export function toChatcliError(error: unknown): ChatcliError {
  if (error instanceof ChatcliError) return error;
  let message = error instanceof Error ? error.message : asText(error);
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  const { syscall } = (error ?? {}) as { syscall?: unknown };
  const key = code === "EEXIST" && syscall === "mkdir" ? "ENOTDIR" : code; // mkdir -p over a file
  const hint = typeof key === "string" ? FS_HINTS[key] : undefined;
  if (hint && typeof path === "string" && path && !message.includes(path)) message += ` '${path}'`;
  return new ChatcliError("internal_error", message || "unexpected error", {
    cause: error,
    ...(hint ? { hint } : {}),
  });
}

/** One line for stderr: `chatcli: <message>` plus `hint: …` on the next line when there is one. */
export function formatError(error: ChatcliError): string {
  const line = `chatcli: ${error.message.split("\n")[0]}`;
  return error.hint ? `${line}\nhint: ${error.hint}\n` : `${line}\n`;
}
