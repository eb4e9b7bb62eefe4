/** A terminal and services the REPL tests drive by hand: keys in, screen bytes out, no timers. */
import type { Ctx, Sink } from "../../../lib/core/ctx.ts";
import type { ChatMessage } from "../../../lib/llm/types.ts";
import { emptyUsage } from "../../../lib/llm/types.ts";
import type {
  AgentCallbacks,
  CheckpointInfo,
  CompactOutcome,
  ReplServices,
  SessionEntry,
  TurnCallbacks,
  TurnResult,
} from "../../../lib/repl/services.ts";

/** The keyboard: `type` queues bytes for the REPL; `end` closes stdin. */
export class FakeKeyboard {
  private readonly pending: Array<{ text: string; consumed: () => void }> = [];
  private wake: (() => void) | undefined;
  private ended = false;
  rawModes: boolean[] = [];

  /**
   * Queues chunks (each one `read()` of the terminal); resolves once the REPL has taken them all
   * and handled the keys they held.
   */
  type(...chunks: string[]): Promise<void> {
    const all = chunks.map(
      (text) =>
        new Promise<void>((consumed) => {
          this.pending.push({ text, consumed });
        }),
    );
    this.wake?.();
    return Promise.all(all).then(() => {});
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  async *chunks(): AsyncIterable<Uint8Array> {
    const enc = new TextEncoder();
    for (;;) {
      const next = this.pending.shift();
      if (next !== undefined) {
        yield enc.encode(next.text);
        next.consumed();
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}

/** The screen: everything written, with a promise that resolves when a pattern shows up. */
export class FakeScreen implements Sink {
  readonly isTTY = true;
  readonly columns = 80;
  private text = "";
  private readonly watchers: Array<{ re: RegExp; from: number; resolve: () => void }> = [];
  write(chunk: string): boolean {
    this.text += chunk;
    for (const w of [...this.watchers]) {
      if (w.re.test(this.text.slice(w.from))) {
        this.watchers.splice(this.watchers.indexOf(w), 1);
        w.resolve();
      }
    }
    return true;
  }
  /** Raw bytes written so far. */
  raw(): string {
    return this.text;
  }
  /** Output with escape sequences removed and \r\n folded. */
  plain(): string {
    return this.text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r\n/g, "\n");
  }
  /** Resolves once `re` matches output written after this call (or already present when `fromStart`). */
  waitFor(re: RegExp, fromStart = false): Promise<void> {
    const from = fromStart ? 0 : this.text.length;
    if (fromStart && re.test(this.text)) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ re, from, resolve }));
  }
  mark(): number {
    return this.text.length;
  }
  since(mark: number): string {
    return this.text
      .slice(mark)
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
      .replace(/\r\n/g, "\n");
  }
}

export interface FakeTty {
  ctx: Ctx;
  keyboard: FakeKeyboard;
  screen: FakeScreen;
  stderr: FakeScreen;
  clock: { now: number };
  abort(name: "SIGINT" | "SIGTERM"): void;
}

/** A Ctx whose stdin is a TTY fed by `keyboard` and whose stdout is `screen`. */
export function fakeTty(env: Record<string, string> = {}): FakeTty {
  const keyboard = new FakeKeyboard();
  const screen = new FakeScreen();
  const stderr = new FakeScreen();
  const clock = { now: Date.UTC(2026, 10, 29, 12, 0, 0) };
  const controller = new AbortController();
  let signalName: "SIGINT" | "SIGTERM" | undefined;
  const ctx: Ctx = {
    env,
    cwd: "/tmp",
    now: () => new Date(clock.now),
    stdin: {
      kind: "tty",
      chunks: () => keyboard.chunks(),
      setRawMode: (on) => keyboard.rawModes.push(on),
    },
    stdout: screen,
    stderr,
    signal: controller.signal,
    signalName: () => signalName,
    fetch: globalThis.fetch,
    execPath: "/bin/true",
    selfArgv: ["/bin/true"],
    version: "0.0.0-test",
  };
  return {
    ctx,
    keyboard,
    screen,
    stderr,
    clock,
    abort(name) {
      signalName = name;
      controller.abort(new Error(name));
    },
  };
}

/** A reply the fake model gives: deltas, then either the end or a wait for `release`/abort. */
export interface ScriptedReply {
  deltas: string[];
  /** When set, the reply stalls after the deltas until this promise resolves. */
  hold?: Promise<void>;
}

/** In-memory ReplServices with the Go tool's checkpoint semantics; records what it was asked. */
export class FakeServices implements ReplServices {
  messages: ChatMessage[] = [];
  checkpoints: Array<{ time: Date; history: ChatMessage[]; label: string }> = [];
  replies: ScriptedReply[] = [];
  sessions = new Map<string, ChatMessage[]>();
  bound: string | undefined;
  calls: string[] = [];
  notices: string[] = [];
  closed = false;
  agentScript?: (cb: AgentCallbacks, signal: AbortSignal) => Promise<TurnResult>;
  compactScript?: (signal: AbortSignal, onPhase: (l: string) => void) => Promise<CompactOutcome>;

  constructor(private readonly now: () => Date) {}

  modelLabel(): string {
    return "mock/test";
  }
  history(): readonly ChatMessage[] {
    return this.messages;
  }
  private checkpoint(): void {
    const lastUser = this.messages.filter((m) => m.role === "user").at(-1)?.content ?? "(start)";
    this.checkpoints.push({ time: this.now(), history: [...this.messages], label: lastUser });
    if (this.checkpoints.length > 20) this.checkpoints.shift();
  }
  async sendTurn(input: string, cb: TurnCallbacks, signal: AbortSignal): Promise<TurnResult> {
    this.calls.push(`turn:${input}`);
    this.checkpoint();
    const reply = this.replies.shift() ?? { deltas: [`echo: ${input}`] };
    let text = "";
    for (const d of reply.deltas) {
      if (signal.aborted) throw new Error("aborted");
      cb.onText(d);
      text += d;
    }
    if (reply.hold) {
      await Promise.race([
        reply.hold,
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
        ),
      ]);
    }
    if (signal.aborted) throw new Error("aborted");
    this.messages.push({ role: "user", content: input }, { role: "assistant", content: text });
    return { text };
  }
  async compact(
    instruction: string | undefined,
    signal: AbortSignal,
    onPhase: (line: string) => void,
  ): Promise<CompactOutcome> {
    this.calls.push(`compact:${instruction ?? ""}`);
    if (this.compactScript) return this.compactScript(signal, onPhase);
    return { status: "skipped", message: "History too short to compact." };
  }
  listCheckpoints(): CheckpointInfo[] {
    return this.checkpoints
      .map((c, i) => ({
        index: this.checkpoints.length - i,
        time: c.time,
        messages: c.history.length,
        label: c.label,
      }))
      .reverse();
  }
  async rewind(index: number): Promise<CheckpointInfo> {
    const pos = this.checkpoints.length - index;
    const cp = this.checkpoints[pos];
    if (!cp) throw new Error("no such checkpoint");
    this.messages = [...cp.history];
    this.checkpoints = this.checkpoints.slice(0, pos + 1);
    this.calls.push(`rewind:${index}`);
    return { index, time: cp.time, messages: cp.history.length, label: cp.label };
  }
  async memory(args: string): Promise<string> {
    this.calls.push(`memory:${args}`);
    return `  OK memory ${args}`;
  }
  async runAgent(
    mode: "agent" | "coder",
    task: string,
    cb: AgentCallbacks,
    signal: AbortSignal,
  ): Promise<TurnResult> {
    this.calls.push(`${mode}:${task}`);
    if (this.agentScript) return this.agentScript(cb, signal);
    return { text: "done" };
  }
  sessionName(): string | undefined {
    return this.bound;
  }
  async saveSession(name: string): Promise<void> {
    this.sessions.set(name, [...this.messages]);
    this.bound = name;
  }
  async loadSession(name: string): Promise<void> {
    const found = this.sessions.get(name);
    if (!found) throw new Error(`session '${name}' not found`);
    this.messages = [...found];
    this.checkpoints = [];
    this.bound = name;
  }
  async listSessions(): Promise<SessionEntry[]> {
    return [...this.sessions.keys()].sort().map((name) => ({ name }));
  }
  async newSession(): Promise<void> {
    this.messages = [];
    this.checkpoints = [];
    this.bound = undefined;
  }
  async removeSession(name: string): Promise<boolean> {
    if (!this.sessions.delete(name)) throw new Error(`session '${name}' not found`);
    return false;
  }
  cost() {
    return { requests: 2, usage: emptyUsage(), costUsd: 0.0123, costIsEstimate: true };
  }
  async context() {
    return {
      parts: [{ label: "system", chars: 400, tokens: 100 }],
      messages: this.messages.length,
    };
  }
  attached: string[] = [];
  async attach(pattern: string): Promise<string> {
    this.attached.push(pattern);
    return `attached: ${this.attached.join(", ")}`;
  }
  async detach(name: string): Promise<string> {
    this.attached = this.attached.filter((a) => a !== name);
    return `attached: ${this.attached.join(", ")}`;
  }
  async attachments(): Promise<string> {
    return this.attached.length ? `attached: ${this.attached.join(", ")}` : "no attached context";
  }
  async setModel(spec: string): Promise<string> {
    return spec;
  }
  nudgeMemory(): void {
    this.calls.push("nudge");
  }
  drainNotices(): string[] {
    return this.notices.splice(0);
  }
  async close(): Promise<string | undefined> {
    this.closed = true;
    return this.bound ? `session saved as ${this.bound}` : undefined;
  }
}
