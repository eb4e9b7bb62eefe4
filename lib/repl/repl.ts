import { asText } from "../core/as-text.ts";
import type { Ctx } from "../core/ctx.ts";
import { EXIT } from "../core/errors.ts";
import { style } from "../output/terminal.ts";
import { InputHistory } from "./buffer.ts";
import { type Cancellable, type CancellableFn, runCancellable } from "./cancel.ts";
import { formatUsd, handleSlash } from "./handlers.ts";
import { createMarkdownStream } from "./markdown.ts";
import { completeMention, expandMentions } from "./mentions.ts";
import { askApproval, askYesNo } from "./menu.ts";
import { readLine } from "./prompt.ts";
import type { ReplHost } from "./repl-host.ts";
import { openRewindMenu } from "./repl-rewind.ts";
import { runShellCommand } from "./repl-shell.ts";
import type { ApprovalRequest, ReplServices, TurnCallbacks } from "./services.ts";
import { looksLikePath, parseSlash, type SlashInput } from "./slash.ts";
import { CommandTicker, compactCount, SPINNER } from "./ticker.ts";
import { KeyReader, Screen } from "./tty.ts";

export interface ReplOptions {
  /** Colour and markdown styling (false under NO_COLOR / --color never). */
  color: boolean;
  /** Inputs typed in earlier sessions, oldest first. */
  history?: readonly string[];
  /** Called with each input as it is submitted (to persist it at once: a closed terminal loses none). */
  saveHistory?: (entries: readonly string[]) => Promise<void>;
}

/** The REPL's moving parts, shared with the slash-command handlers. */
export class Repl implements ReplHost {
  readonly screen: Screen;
  readonly keys: KeyReader;
  readonly style: ReturnType<typeof style>;
  readonly history: InputHistory;
  /** Input-history writes, in submission order; awaited at exit. */
  private saving: Promise<void> = Promise.resolve();
  private historyWarned = false;
  /** `!command` outputs the user chose to send with the next message. */
  readonly pendingContext: string[] = [];
  /** The status row under the prompt (model, context used, session cost), set after each turn. */
  private footer: string | undefined;
  /** Approvals answered `a` (always): tool names or `run_command npm …` scopes, for this session. */
  private readonly alwaysAllowed = new Set<string>();
  /** Text the next prompt starts with (the rewound turn's input). */
  nextDraft: string | undefined;

  constructor(
    readonly ctx: Ctx,
    readonly services: ReplServices,
    readonly options: ReplOptions,
  ) {
    this.screen = new Screen(ctx);
    this.keys = new KeyReader(() => ctx.stdin.chunks());
    // a resize redraws the prompt or menu at the new width, even with no key pressed
    ctx.stdout.onResize?.(() => this.keys.inject({ name: "resize" }));
    this.style = style(options.color);
    this.history = new InputHistory(options.history ?? []);
  }

  /** Prints a line (or lines) of REPL output. */
  say(text: string): void {
    this.screen.write(`${text}\n`);
  }

  /** Runs the loop until exit; returns the exit code. */
  async run(): Promise<number> {
    const s = this.style;
    this.say(
      s.dim(`chatcli ${this.ctx.version} · ${this.services.modelLabel()} · /help for commands`),
    );
    const session = this.services.sessionName();
    if (session)
      this.say(s.dim(`session: ${session} (${this.services.history().length} messages)`));
    this.screen.rawMode(true);
    try {
      await this.loop();
    } finally {
      this.screen.rawMode(false);
    }
    return this.shutdown();
  }

  private async loop(): Promise<void> {
    let interrupts = 0;
    let draft: string | undefined;
    for (;;) {
      for (const notice of this.services.drainNotices()) this.say(this.style.dim(notice));
      if (this.ctx.signal.aborted) return;
      const result = await readLine(this.keys, this.screen, {
        prompt: this.style.bold(this.style.cyan("❯ ")),
        cont: this.style.dim("· "),
        history: this.history,
        now: this.ctx.now,
        signal: this.ctx.signal,
        footer: this.footer,
        completeWord: (text) => completeMention(text, this.ctx.cwd),
        initial: draft ?? this.nextDraft,
      });
      draft = undefined;
      this.nextDraft = undefined;
      if (result.kind === "eof") return;
      if (result.kind === "suspend") {
        // Ctrl+Z: back to the shell; `fg` brings the prompt back with the draft as it was
        if (!(await this.screen.suspend())) this.say(this.style.dim("(cannot suspend here)"));
        draft = result.draft;
        continue;
      }
      if (result.kind === "interrupt") {
        interrupts = result.hadText ? 0 : interrupts + 1;
        if (interrupts >= 2) return;
        if (!result.hadText) this.say(this.style.dim("(press Ctrl+C again or Ctrl+D to exit)"));
        continue;
      }
      interrupts = 0;
      if (result.kind === "rewind") {
        await this.rewindMenu();
        continue;
      }
      if (result.text.trim() === "") continue;
      this.remember(result.text.trimEnd());
      if ((await this.dispatch(result.text, result.pasted === true)) === "exit") return;
    }
  }

  /** Persists one submitted input now, after those before it; a failure is said once. */
  private remember(entry: string): void {
    const save = this.options.saveHistory;
    if (!save) return;
    this.saving = this.saving
      .then(() => save([entry]))
      .catch((error: Error) => {
        if (this.historyWarned) return;
        this.historyWarned = true;
        this.say(this.style.yellow(`warning: could not save input history: ${error.message}`));
      });
  }

  /**
   * A slash command or a chat turn; an unexpected failure is printed, never fatal. A paste is always
   * a message (a pasted `/var/log/app.log:12: …` is not a command), and so is a line whose first word
   * only looks like a command (a path) — see `slashOrMessage`.
   */
  private async dispatch(text: string, pasted: boolean): Promise<"exit" | undefined> {
    try {
      if (!pasted && /^![^\s!]/.test(text.trimStart()) && this.services.shell) {
        await this.shellCommand(text.trimStart().slice(1).trim());
        return undefined;
      }
      const slash = pasted ? undefined : parseSlash(text);
      if (slash) {
        const route = await this.slashOrMessage(slash);
        if (route === "command") return await handleSlash(this, slash);
        if (route === "none") return undefined;
      }
      await this.chatTurn(text);
    } catch (error) {
      this.say(this.style.red(`Error: ${asText(error)}`));
    }
    return undefined;
  }

  /**
   * Whether a `/word …` line runs as a command. Known commands do, and an unknown word alone (it is
   * reported as unknown). A path (`/var/log/app.log:12: …`) is sent as a message; an unknown word
   * followed by text asks first (a typo must not become a paid request unasked).
   */
  private async slashOrMessage(slash: SlashInput): Promise<"command" | "message" | "none"> {
    if (looksLikePath(slash.name)) return "message";
    if (!slash.known && (await this.services.skillNamed?.(slash.name))) return "message";
    if (slash.known || slash.args === "") return "command"; // an unknown bare word: "Unknown command"
    const answer = await askYesNo(
      this.keys,
      this.screen,
      `/${slash.name} is not a command. Send the line as a message?`,
      this.menuOptions(),
    );
    return answer ? "message" : "none";
  }

  private async shutdown(): Promise<number> {
    await this.saving;
    try {
      const notice = await this.services.close();
      if (notice) this.say(this.style.dim(notice));
    } catch (error) {
      this.say(this.style.red(`Error saving the session: ${(error as Error).message}`));
    }
    const name = this.ctx.signalName();
    if (name === "SIGTERM") return EXIT.sigterm;
    if (name === "SIGINT") return EXIT.sigint;
    return EXIT.ok;
  }

  /** `!command` (see repl-shell.ts). */
  private shellCommand(command: string): Promise<void> {
    return runShellCommand(this, command);
  }

  /** One chat turn, streamed and rendered; Esc or Ctrl+C cancels it and nothing is added. */
  async chatTurn(typed: string): Promise<void> {
    const mentioned = expandMentions(typed, this.ctx.cwd);
    const { attached, skipped } = mentioned;
    const context = this.pendingContext.splice(0);
    const input =
      context.length > 0 ? `${mentioned.text}\n\n${context.join("\n\n")}` : mentioned.text;
    for (const path of attached) this.say(this.style.dim(`📎 ${path} attached`));
    for (const s of skipped) this.say(this.style.yellow(`📎 ${s.path} not attached: ${s.reason}`));
    const out = this.answerWriter();
    const result = await this.cancellable((signal) =>
      this.services.sendTurn(
        input,
        {
          onText: out.onText,
          onNotice: (line) => {
            out.break();
            this.say(this.style.dim(line));
          },
        },
        signal,
      ),
    );
    out.end();
    if (result.ok) {
      this.services.nudgeMemory();
      await this.updateStatus();
      return;
    }
    this.reportFailure(result, "Request");
  }

  /** `/agent` and `/coder`: the agent loop with approvals asked on this terminal. */
  async agentRun(mode: "agent" | "coder", task: string): Promise<void> {
    const out = this.answerWriter();
    const ticker = new CommandTicker(this.screen, this.style, this.ctx.now);
    const result = await this.cancellable((signal, { pause, cancel }) =>
      this.services.runAgent(
        mode,
        task,
        {
          onText: out.onText,
          onActivity: (line) => {
            ticker.stop();
            out.break();
            this.say(this.style.dim(line));
          },
          onCommand: (command) => {
            if (command === undefined) return ticker.stop();
            out.break();
            ticker.start(command);
          },
          approve: async (request: ApprovalRequest) => {
            out.break();
            if (request.alwaysKey && this.alwaysAllowed.has(request.alwaysKey)) {
              this.say(this.style.dim(`✓ ${request.tool} allowed (always, this session)`));
              return true;
            }
            const answer = await pause(() =>
              askApproval(this.keys, this.screen, request, this.menuOptions(signal)),
            );
            if (answer === "cancel") cancel();
            if (answer === "always" && request.alwaysKey) this.alwaysAllowed.add(request.alwaysKey);
            return answer === "yes" || answer === "always";
          },
        },
        signal,
      ),
    );
    ticker.stop();
    out.end();
    this.services.nudgeMemory();
    await this.updateStatus();
    if (!result.ok) this.reportFailure(result, `/${mode}`);
  }

  /** Recomputes the status row: `model · context 3.2k/200k (2%) · $0.0123`. Never fails a turn. */
  async updateStatus(): Promise<void> {
    try {
      const [context, cost] = [await this.services.context(), this.services.cost()];
      const used = context.parts.reduce((sum, p) => sum + p.tokens, 0);
      const share = context.window ? ` (${Math.round((used / context.window) * 100)}%)` : "";
      const window = context.window ? `/${compactCount(context.window)}` : "";
      const price = cost.costUsd === null ? "unpriced" : formatUsd(cost.costUsd);
      this.footer = this.style.dim(
        `  ${this.services.modelLabel()} · context ${compactCount(used)}${window}${share} · ${price}`,
      );
    } catch {
      this.footer = undefined;
    }
  }

  /** Prints why an operation did not finish. */
  reportFailure(result: Cancellable<unknown> & { ok: false }, what: string): void {
    if (result.cancelled) {
      this.say(
        this.style.yellow(
          `🛑 ${what} cancelled — the partial answer was discarded; the conversation is unchanged.`,
        ),
      );
    } else {
      this.say(this.style.red(`Error: ${result.error.message}`));
      // what to fix for a key or a setting (a 401 names the variable); retry advice is CLI talk
      const { hint, reason } = result.error as { hint?: unknown; reason?: unknown };
      const fixable = reason === "auth_error" || reason === "config_error";
      if (fixable && typeof hint === "string" && hint) this.say(this.style.dim(`  hint: ${hint}`));
    }
  }

  /** Opens the rewind menu and restores the chosen checkpoint (see repl-rewind.ts). */
  rewindMenu(): Promise<void> {
    return openRewindMenu(this);
  }

  menuOptions(signal?: AbortSignal) {
    return { color: this.options.color, now: this.ctx.now, signal: signal ?? this.ctx.signal };
  }

  /** Runs `fn` with Esc / Ctrl+C cancelling it (see `runCancellable`). */
  cancellable<T>(fn: CancellableFn<T>): Promise<Cancellable<T>> {
    return runCancellable(this.keys, this.ctx.signal, fn);
  }

  /**
   * Streams an answer through the markdown renderer, keeping track of the line end. Until the
   * first output a dim "thinking" hint shows that the request is on its way and how to cancel it.
   */
  private answerWriter(): TurnCallbacks & { end(): void; break(): void } {
    let lastChar = "\n";
    let hint = true;
    const started = this.ctx.now().getTime();
    let frame = 0;
    const draw = () => {
      const seconds = ((this.ctx.now().getTime() - started) / 1000).toFixed(1);
      const spin = SPINNER[frame++ % SPINNER.length];
      this.screen.write(
        `\r\u001b[K${this.style.dim(`${spin} thinking ${seconds}s (Esc cancels)`)}`,
      );
    };
    draw();
    const ticker = setInterval(draw, 100);
    ticker.unref?.();
    const clearHint = () => {
      if (hint) {
        clearInterval(ticker);
        this.screen.write("\r\u001b[K");
      }
      hint = false;
    };
    const md = createMarkdownStream(
      (text) => {
        clearHint();
        this.screen.write(text);
        lastChar = text.at(-1) ?? lastChar;
      },
      this.options.color,
      () => this.screen.columns,
    );
    const lineBreak = () => {
      md.end();
      clearHint();
      if (lastChar !== "\n") this.screen.write("\n");
      lastChar = "\n";
    };
    return { onText: (delta) => md.push(delta), break: lineBreak, end: lineBreak };
  }
}

/** Runs the interactive chat on `ctx`'s terminal until the user leaves; returns the exit code. */
export async function runRepl(
  ctx: Ctx,
  services: ReplServices,
  options: ReplOptions,
): Promise<number> {
  return new Repl(ctx, services, options).run();
}
