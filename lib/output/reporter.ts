import type { Ctx, Sink } from "../core/ctx.ts";
import type { ChatcliError } from "../core/errors.ts";
import { formatError } from "../core/errors.ts";
import { redact, redactDeep } from "../core/redact.ts";
import { settleError } from "./envelope.ts";
import type { Envelope, RunEvent } from "./events.ts";
import { bareStart, type OutputFormat } from "./sinks.ts";
import { createStreamStripper, quotedLine, stripControl, stripControlDeep } from "./terminal.ts";

export type { OutputFormat };

/**
 * The envelope of commands that are not runs (rewind, bootstrap show, a usage error): they fill
 * it directly. Runs (ask, agent, coder, compact) use lib/output/sinks.ts, where the envelope is the
 * fold of the events. Text to stdout in text mode; the envelope in json/stream-json; warnings and
 * errors on stderr in every mode.
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
  private held: Array<[RunEvent["type"], Record<string, unknown>]> | undefined;
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
    const { type, ...start } = bareStart(
      this.envelope.command,
      this.envelope.chatcli_version,
      this.cwd,
    );
    this.write(type, {
      ...start,
      session_id: this.envelope.session_id,
      model: this.envelope.model,
      bootstrap_files: this.envelope.bootstrap_files,
      memory: this.envelope.memory,
    });
  }

  /** The event fields every line carries, the stream's next seq among them. */
  private stamp(type: RunEvent["type"] | "result"): {
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

  private write(type: RunEvent["type"], data: Record<string, unknown>): void {
    const line = { ...this.stamp(type), ...stripControlDeep(redactDeep(data, this.secrets)) };
    this.out(`${JSON.stringify(line)}\n`);
  }

  /** Emits one stream-json event (no-op in other formats). */
  private event(type: RunEvent["type"], data: Record<string, unknown> = {}): void {
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

  /** Text for stdout in text mode (escape sequences stripped); in JSON it is the envelope's `result`. */
  text(delta: string): void {
    if (!delta || this.format !== "text") return;
    const clean = this.stripper.push(delta);
    if (!clean) return;
    this.wroteText = true;
    this.textEndsWithNewline = clean.endsWith("\n");
    this.out(clean);
  }

  /** Ends streamed text with exactly one newline (text mode). */
  endText(): void {
    if (this.format !== "text") return;
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
    this.stderr.write(`${stripControl(redact(line, this.secrets))}\n`);
  }

  /** A warning: stderr line, envelope warnings, and a `warning` event. */
  warn(code: string, message: string): void {
    this.envelope.warnings.push({ code, message });
    this.stderr.write(`chatcli: warning: ${quotedLine(message, this.secrets)}\n`);
    this.event("warning", { code, message });
  }

  /** Records a failure: stderr line (text mode or not), error event, envelope error. */
  fail(error: ChatcliError, exitCode?: number, options: { quiet?: boolean } = {}): void {
    settleError(this.envelope, error, exitCode);
    if (!options.quiet) this.stderr.write(quotedLine(formatError(error), this.secrets));
    this.event("error", {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      hint: error.hint ?? null,
      exit_code: this.envelope.exit_code,
      terminal_reason: this.envelope.terminal_reason,
    });
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
