/**
 * The headless sinks: text, json and stream-json. Each sees every event the run yields; the
 * envelope is the fold of those events (fold.ts), written once at the end (json), or as the last
 * line after the same events (stream-json). stderr carries progress, warnings and errors in every
 * format (progress.ts). Secrets are redacted and escape sequences stripped from all JSON.
 */
import type { Ctx, Sink } from "../core/ctx.ts";
import { createStreamRedactor, redact, redactDeep } from "../core/redact.ts";
import type { Emitted, Envelope, EventOf, RunEvent } from "./events.ts";
import { EnvelopeFold, SCHEMA_VERSION } from "./fold.ts";
import { createProgress, type ProgressOptions } from "./progress.ts";
import { createStreamStripper, stripControl, stripControlDeep } from "./terminal.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface OutputOptions {
  format: OutputFormat;
  command: string;
  /** Text mode: the answer streams to stdout as it arrives (ask), else the result prints at the end. */
  streamText: boolean;
  secrets?: readonly string[];
  /** Defaults: details in text mode only. */
  progress?: Partial<ProgressOptions>;
  /** --quiet: no progress lines (warnings and errors still). */
  quiet?: boolean;
}

/** The session.started a stream begins with when a run fails before it knew more (CONTRACT §2). */
export function bareStart(
  command: string,
  version: string,
  cwd: string | null,
): EventOf<"session.started"> {
  return {
    type: "session.started",
    schema_version: SCHEMA_VERSION,
    chatcli_version: version,
    command,
    session_id: null,
    model: null,
    cwd,
    workspace: null,
    permission_mode: null,
    workspace_trust: null,
    role: null,
    tools: [],
    bootstrap_files: [],
    memory: null,
    sandbox: null,
    outbound: null,
    mcp_servers: [],
    limits: { max_turns: null, max_budget_usd: null, timeout_ms: null, max_tokens: null },
  };
}

/** One run's output: feed `emit` every event, call `finish` once. */
export class RunOutput {
  readonly fold: EnvelopeFold;
  /** Set once stdout's reader went away (EPIPE): nothing more is written there. */
  stdoutClosed = false;
  private seq = 0;
  private sessionId: string | null = null;
  private started = false;
  private held: RunEvent[] | undefined;
  private secrets: readonly string[];
  private readonly progress: ReturnType<typeof createProgress>;
  private textEndsWithNewline = true;
  private wroteText = false;
  /** writeText's pieces: a sequence split across two pieces is still removed. */
  private readonly stripper = createStreamStripper();
  /** The answer's deltas: a secret split across two deltas is still redacted (text and stream-json). */
  private readonly deltas = createStreamRedactor(() => this.secrets);
  private lastDelta: EventOf<"message.delta"> | undefined;

  constructor(
    private readonly ctx: Pick<Ctx, "stdout" | "stderr" | "now" | "cwd" | "version">,
    private readonly options: OutputOptions,
  ) {
    this.fold = new EnvelopeFold(options.command, ctx.version);
    this.secrets = options.secrets ?? [];
    this.progress = createProgress({ details: options.format === "text", ...options.progress });
    if (options.format === "stream-json") this.held = [];
  }

  get format(): OutputFormat {
    return this.options.format;
  }

  /** Adds secret values (keys loaded from .env and config) to redact from JSON output. */
  addSecrets(values: readonly string[]): void {
    this.secrets = [...new Set([...this.secrets, ...values])].sort((a, b) => b.length - a.length);
  }

  private out(text: string): void {
    if (this.stdoutClosed || !text) return;
    if (!this.ctx.stdout.write(text)) this.stdoutClosed = true;
  }

  private err(text: string): void {
    // progress, warnings and error lines quote provider errors and tool output: no secret in them
    if (text) this.ctx.stderr.write(redact(text, this.secrets));
  }

  readonly emit = (event: Emitted): void => {
    if (event.type === "message.delta" && event.parent_id === null) {
      this.lastDelta = event;
      const text = this.deltas.push(event.text);
      if (text) this.deliver({ ...event, text });
      return;
    }
    this.releaseDelta();
    this.deliver(event);
  };

  /** What the delta redactor still holds, as one more delta before any other event. */
  private releaseDelta(): void {
    if (!this.lastDelta || !this.deltas.pending()) return;
    const text = this.deltas.flush();
    if (text) this.deliver({ ...this.lastDelta, text });
  }

  private deliver(event: Emitted): void {
    const quiet = this.options.quiet && (event.type === "note" || event.type === "tool.completed");
    if (!quiet) this.err(this.progress.render(event));
    if (event.type === "note") return;
    if (event.type === "session.started") {
      if (this.started) return;
      this.started = true;
      this.sessionId = event.session_id;
    }
    this.fold.apply(event);
    if (this.options.format === "text") {
      if (this.options.streamText && event.type === "message.delta" && event.parent_id === null)
        this.text(event.text);
      return;
    }
    if (this.options.format !== "stream-json") return;
    if (this.held) {
      if (event.type !== "session.started" && event.type !== "error") {
        this.held.push(event);
        return;
      }
      if (event.type === "error") this.ensureStarted();
      else this.line(event);
      this.flushHeld();
      if (event.type === "session.started") return;
    }
    this.line(event);
  }

  private ensureStarted(): void {
    if (this.started) return;
    this.emit(bareStart(this.options.command, this.ctx.version, this.ctx.cwd));
  }

  private flushHeld(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const e of held) this.line(e);
  }

  private line(event: RunEvent): void {
    const { type, ...data } = event;
    const stamped = {
      type,
      seq: this.seq++,
      ts: this.ctx.now().toISOString(),
      session_id: this.sessionId,
      ...data,
    };
    this.out(`${JSON.stringify(stripControlDeep(redactDeep(stamped, this.secrets)))}\n`);
  }

  private text(text: string): void {
    if (!text) return;
    this.wroteText = true;
    this.textEndsWithNewline = text.endsWith("\n");
    this.out(text);
  }

  /**
   * Text mode: writes a piece of the result as it is produced, escape sequences stripped (compact
   * prints a conversation message by message, never holding it whole). Other formats: nothing.
   */
  writeText(piece: string): void {
    if (this.options.format === "text") this.text(this.stripper.push(piece));
  }

  /** Writes the end (the envelope, or the final text) and returns the envelope. */
  finish(durationMs: number): Envelope {
    this.releaseDelta();
    if (this.options.format === "stream-json") this.ensureStarted();
    if (this.held) this.flushHeld();
    const envelope = this.fold.envelope(durationMs);
    this.err(this.progress.finish(envelope.permission_denials));
    const env = stripControlDeep(redactDeep(envelope, this.secrets));
    if (this.options.format === "text") {
      this.text(this.stripper.flush());
      if (!this.options.streamText && env.result) this.text(stripControl(env.result));
      if (this.wroteText && !this.textEndsWithNewline) this.out("\n");
    } else if (this.options.format === "json") {
      this.out(`${JSON.stringify(env)}\n`);
    } else {
      // stream-json's last line: what --json prints plus the event fields seq, ts, session_id
      const { type, ...rest } = env;
      const stamp = { type, seq: this.seq++, ts: this.ctx.now().toISOString() };
      this.out(`${JSON.stringify({ ...stamp, ...rest })}\n`);
    }
    return envelope;
  }
}

/** A Sink that drops everything (for output nobody reads). */
export const discard: Sink = { isTTY: false, write: () => true };
