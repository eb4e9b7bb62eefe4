import type { Ctx, Sink } from "../core/ctx.ts";
import type { ChatcliError } from "../core/errors.ts";
import { formatError } from "../core/errors.ts";
import { redactDeep } from "../core/redact.ts";
import type { Envelope } from "./envelope.ts";
import { settleError } from "./envelope.ts";
import { createStreamStripper, stripControl, stripControlDeep } from "./terminal.ts";

export type OutputFormat = "text" | "json" | "stream-json";

/**
 * The one sink every command reports through. Text goes to stdout only in text mode; events only in
 * stream-json; the envelope only in json/stream-json. Progress and warnings go to stderr in every
 * mode, so stdout stays pure data.
 */
export class Reporter {
  readonly format: OutputFormat;
  readonly envelope: Envelope;
  private seq = 0;
  private readonly stdout: Sink;
  private readonly stderr: Sink;
  private readonly now: () => Date;
  private secrets: readonly string[];
  private readonly stripper = createStreamStripper();
  private textEndsWithNewline = true;
  private wroteText = false;
  /** Set when stdout's reader went away (EPIPE): stop writing. */
  stdoutClosed = false;
  /** Events held until `session.started` (see holdUntilSessionStarted). */
  private held: Array<[string, Record<string, unknown>]> | undefined;
  /** Whether stderr progress lines are wanted (false under --quiet). */
  verbose = true;
  /** Whether the stream's `session.started` line went out (stream-json). */
  private started = false;
  private readonly cwd: string | null;

  constructor(
    ctx: Pick<Ctx, "stdout" | "stderr" | "now"> & { cwd?: string },
    options: { format: OutputFormat; envelope: Envelope; secrets?: readonly string[] },
  ) {
    this.stdout = ctx.stdout;
    this.stderr = ctx.stderr;
    this.now = ctx.now;
    this.cwd = ctx.cwd ?? null;
    this.format = options.format;
    this.envelope = options.envelope;
    this.secrets = options.secrets ?? [];
  }

  /** Adds secret values (e.g. keys loaded from .env) to redact from JSON output. */
  addSecrets(values: readonly string[]): void {
    this.secrets = [...new Set([...this.secrets, ...values])].sort((a, b) => b.length - a.length);
  }

  private out(text: string): void {
    if (this.stdoutClosed) return;
    if (!this.stdout.write(text)) this.stdoutClosed = true;
  }

  /**
   * For runs that emit `session.started`: events raised before it (warnings about stdin, config, the
   * fallback chain) are written right after it, so the stream's first line is always
   * `session.started` with its schema_version. A run that fails earlier flushes them before `error`.
   */
  holdUntilSessionStarted(): void {
    if (this.format === "stream-json") this.held = [];
  }

  private flushHeld(): void {
    const held = this.held;
    this.held = undefined;
    for (const [type, data] of held ?? []) this.event(type, data);
  }

  /**
   * A stream's first line is always `session.started` (CONTRACT §2): a command that fails before it
   * knows its session, or that has none (compact, rewind), gets one with what is known so far.
   */
  private ensureStarted(): void {
    if (this.started || this.format !== "stream-json") return;
    this.write("session.started", {
      schema_version: this.envelope.schema_version,
      command: this.envelope.command,
      model: this.envelope.model,
      cwd: this.cwd,
      workspace: null,
      permission_mode: null,
      tools: [],
      bootstrap_files: this.envelope.bootstrap_files,
      memory: this.envelope.memory,
      limits: null,
    });
  }

  /** The event fields every line carries, the stream's next seq among them. */
  private stamp(type: string): {
    type: string;
    seq: number;
    ts: string;
    session_id: string | null;
  } {
    if (type === "session.started") this.started = true;
    return {
      type,
      seq: this.seq++,
      ts: this.now().toISOString(),
      session_id: this.envelope.session_id,
    };
  }

  private write(type: string, data: Record<string, unknown>): void {
    const line = { ...this.stamp(type), ...stripControlDeep(redactDeep(data, this.secrets)) };
    this.out(`${JSON.stringify(line)}\n`);
  }

  /** Sees every event whatever the format (the REPL shows a running command from them). */
  listener: ((type: string, data: Record<string, unknown>) => void) | undefined;

  /** Emits one stream-json event (no-op in other formats; the listener hears it anyway). */
  event(type: string, data: Record<string, unknown> = {}): void {
    this.listener?.(type, data);
    if (this.format !== "stream-json") return;
    if (this.held) {
      if (type !== "session.started" && type !== "error") {
        this.held.push([type, data]);
        return;
      }
      const held = this.held;
      this.held = undefined;
      if (type === "error") {
        this.ensureStarted();
        for (const [t, d] of held) this.event(t, d);
      } else {
        this.event(type, data);
        for (const [t, d] of held) this.event(t, d);
        return;
      }
    }
    if (type !== "session.started") this.ensureStarted();
    this.write(type, data);
  }

  /** Streams answer text: to stdout in text mode (escape sequences stripped), as a delta event otherwise. */
  text(delta: string): void {
    if (!delta) return;
    if (this.format === "text") {
      const clean = this.stripper.push(delta);
      if (!clean) return;
      this.wroteText = true;
      this.textEndsWithNewline = clean.endsWith("\n");
      this.out(clean);
      return;
    }
    // The same stripper: a sequence split across two deltas is still removed.
    const clean = this.stripper.push(delta);
    if (clean) this.event("message.delta", { text: clean });
  }

  /** Ends streamed text with exactly one newline (text mode). */
  endText(): void {
    if (this.format !== "text") {
      const rest = this.stripper.flush();
      if (rest) this.event("message.delta", { text: rest });
      return;
    }
    const rest = this.stripper.flush();
    if (rest) {
      this.out(rest);
      this.wroteText = true;
      this.textEndsWithNewline = rest.endsWith("\n");
    }
    if (this.wroteText && !this.textEndsWithNewline) this.out("\n");
    this.wroteText = false;
    this.textEndsWithNewline = true;
  }

  /** Prints a whole answer at once (agent final message, subcommand text). */
  print(text: string): void {
    this.text(text);
    this.endText();
  }

  /** A progress line on stderr (all formats). */
  info(line: string): void {
    if (!this.verbose) return;
    this.stderr.write(`${stripControl(line)}\n`);
  }

  /** A warning: stderr line, envelope warnings, and a `warning` event. */
  warn(code: string, message: string): void {
    this.envelope.warnings.push({ code, message });
    this.stderr.write(`chatcli: warning: ${stripControl(message)}\n`);
    this.event("warning", { code, message });
  }

  /** Records a failure: stderr line (text mode or not), error event, envelope error. */
  fail(error: ChatcliError, exitCode?: number, options: { quiet?: boolean } = {}): void {
    settleError(this.envelope, error, exitCode);
    if (!options.quiet) this.stderr.write(stripControl(formatError(error)));
    this.event("error", { code: error.code, message: error.message, retryable: error.retryable });
  }

  /** Writes the envelope (json: the only stdout line; stream-json: the last event). */
  finish(): void {
    if (this.held) {
      this.ensureStarted();
      this.flushHeld();
    }
    const env = stripControlDeep(redactDeep(this.envelope, this.secrets));
    if (this.format === "text") {
      this.endText();
      return;
    }
    if (this.format === "json") {
      this.out(`${JSON.stringify(env)}\n`);
      return;
    }
    // stream-json's last line: what --json prints plus the event fields seq, ts, session_id
    this.ensureStarted();
    const { type, seq, ts } = this.stamp("result");
    this.out(`${JSON.stringify(Object.assign({ type, seq, ts }, env))}\n`);
  }
}
