import type { Ctx } from "../core/ctx.ts";
import { type Key, KeyDecoder } from "./keys.ts";

/**
 * Keys from the terminal, one consumer at a time. Reading is pull-based (`next`), so the prompt, a
 * menu and the "cancel this request" watcher can take turns on the same stdin.
 */
export class KeyReader {
  private readonly queue: Key[] = [];
  private waiter: ((key: Key | undefined) => void) | undefined;
  private done = false;
  private started = false;
  private readonly decoder = new KeyDecoder();

  constructor(private readonly source: () => AsyncIterable<Uint8Array>) {}

  /** True once stdin has ended. */
  get closed(): boolean {
    return this.done && this.queue.length === 0;
  }

  /** The next key; undefined at end of input or when `signal` aborts first. */
  next(signal?: AbortSignal): Promise<Key | undefined> {
    this.start();
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.done || signal?.aborted) return Promise.resolve(undefined);
    if (this.waiter) throw new Error("KeyReader: two readers at once");
    return new Promise((resolve) => {
      const onAbort = () => {
        this.waiter = undefined;
        resolve(undefined);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiter = (key) => {
        signal?.removeEventListener("abort", onAbort);
        this.waiter = undefined;
        resolve(key);
      };
    });
  }

  /** Hands `key` to whoever is reading now (a resize matters only to what is on screen). */
  inject(key: Key): void {
    this.waiter?.(key);
  }

  /** Puts keys back at the front (typed ahead while a request ran). */
  unread(keys: readonly Key[]): void {
    this.queue.unshift(...keys);
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      for await (const chunk of this.source()) {
        for (const key of this.decoder.push(chunk)) this.deliver(key);
      }
    } catch {
      // stdin went away: same as its end
    }
    this.done = true;
    this.waiter?.(undefined);
  }

  private deliver(key: Key): void {
    if (this.waiter) this.waiter(key);
    else this.queue.push(key);
  }
}

/** The terminal the REPL draws on: raw mode, width, and `\n` → `\r\n` while raw. */
export class Screen {
  private raw = false;

  constructor(private readonly ctx: Ctx) {}

  get columns(): number {
    return this.ctx.stdout.columns || 80;
  }

  get rows(): number {
    return this.ctx.stdout.rows || 24;
  }

  write(text: string): void {
    if (text === "") return;
    this.ctx.stdout.write(this.raw ? text.replace(/\r?\n/g, "\r\n") : text);
  }

  /**
   * Ctrl+Z: gives the terminal back (cooked mode, no bracketed paste), stops the process, and takes
   * it again once the shell continues it (`fg`). False where it cannot suspend.
   */
  async suspend(): Promise<boolean> {
    const suspend = this.ctx.stdin.suspend;
    if (!suspend) return false;
    const wasRaw = this.raw;
    this.rawMode(false);
    await suspend();
    if (wasRaw) this.rawMode(true);
    return true;
  }

  /** Raw mode on: keys arrive one by one, no echo, Ctrl+C is a key (not SIGINT). */
  rawMode(on: boolean): void {
    if (this.raw === on) return;
    this.raw = on;
    this.ctx.stdin.setRawMode?.(on);
    // Bracketed paste: the terminal marks pasted text so newlines in it do not submit.
    this.ctx.stdout.write(on ? "\u001b[?2004h" : "\u001b[?2004l");
  }
}
