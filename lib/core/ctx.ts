/** The world a command sees. main.ts builds the real one; tests build their own. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Where text goes: stdout or stderr. `write` returns false once the reader is gone (EPIPE). */
export interface Sink {
  write(text: string): boolean;
  readonly isTTY: boolean;
  readonly columns?: number;
  /** The terminal's height, when it is one. */
  readonly rows?: number;
  /** Calls `listener` after each resize of the terminal (SIGWINCH); returns how to stop. */
  onResize?(listener: () => void): () => void;
}

/** What kind of thing stdin is; decides whether and how it may be read (CONTRACT §4). */
export type StdinKind = "tty" | "pipe" | "file" | "null";

export interface Stdin {
  readonly kind: StdinKind;
  /** Raw byte chunks: the piped/file input, or (kind tty) the keypresses the REPL reads in raw mode. */
  chunks(): AsyncIterable<Uint8Array>;
  /** For the REPL: raw keypresses on a TTY. Absent when stdin is not a TTY. */
  setRawMode?(on: boolean): void;
  /** For the REPL's Ctrl+Z: stops the process (SIGTSTP) and resolves once it is continued (fg). */
  suspend?(): Promise<void>;
}

export type StopSignal = "SIGINT" | "SIGTERM" | "SIGPIPE";

export interface Ctx {
  readonly env: Env;
  readonly cwd: string;
  readonly now: () => Date;
  readonly stdin: Stdin;
  readonly stdout: Sink;
  readonly stderr: Sink;
  /** Aborted on SIGINT/SIGTERM or when stdout's reader goes away; `signalName` says which. */
  readonly signal: AbortSignal;
  readonly signalName: () => StopSignal | undefined;
  readonly fetch: typeof fetch;
  /** Path of the running executable. */
  readonly execPath: string;
  /** argv that starts this same chatcli again (the binary, or `bun main.ts`), for detached work. */
  readonly selfArgv: readonly string[];
  readonly version: string;
  /**
   * Waits before a retry. Absent: a real timer. A test that brings its own (a virtual clock) brings
   * the `now` it advances too, so a 27 s retry-after takes no real time.
   */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}
