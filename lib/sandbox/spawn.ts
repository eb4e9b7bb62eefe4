/**
 * The one door: every process chatcli starts is started here (a test fails when another file of lib/
 * spawns). Callers that run something for the agent go through Sandbox.run, which wraps the argv in
 * the OS sandbox before it reaches spawnCapture. Programs the *user* configured — hooks and MCP
 * servers (lib/extensions) — are not the agent's commands: they start unconfined through
 * runUserProgram / spawnPiped, always with an environment the caller built (never chatcli's own).
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { kill } from "node:process";
import type { Duplex, Readable, Writable } from "node:stream";

export interface SpawnResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Bytes kept per stream; the rest is counted and dropped. */
  maxBytes?: number;
  /** A file the child gets as its fd 3, read from the start (bwrap reads its seccomp program there). */
  fd3Path?: string;
  /** Written to the child's stdin, which is then closed (default: no stdin). */
  input?: string;
  /**
   * Gives the child a socketpair end as its fd 4 and the other end to this callback (the network
   * bridge's pipe to chatcli's proxy). The callback's stream is destroyed when the child is gone.
   */
  channel?: (pipe: Duplex) => void;
}

/** How long a just-started process is left before an abort kills it (see onAbort). */
const STARTUP_GRACE_MS = 150;

/**
 * Runs a process in its own process group and session and collects its output. A timeout or an
 * abort kills the whole group (TERM, then KILL), so `sh -c "sleep 100 | cat"` never outlives the run.
 */
export function spawnCapture(argv: readonly string[], options: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now();
  const maxBytes = options.maxBytes ?? 1_000_000;
  // already cancelled: nothing is started (a process killed in its first microseconds can outlive the kill)
  if (options.signal.aborted)
    return Promise.resolve({
      stdout: "",
      stderr: "",
      exitCode: null,
      timedOut: false,
      aborted: true,
      durationMs: 0,
    });
  return new Promise((resolvePromise) => {
    const [cmd, ...args] = argv;
    // a fresh descriptor per child: the offset must be 0 for each reader
    const fd3 = options.fd3Path ? openSync(options.fd3Path, "r") : undefined;
    const stdin = options.input === undefined ? "ignore" : "pipe";
    const stdio: Array<"ignore" | "pipe" | number> =
      fd3 === undefined ? [stdin, "pipe", "pipe"] : [stdin, "pipe", "pipe", fd3];
    if (options.channel) stdio.push(...(fd3 === undefined ? ["ignore" as const] : []), "pipe");
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(cmd as string, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio,
      });
    } finally {
      if (fd3 !== undefined) closeSync(fd3);
    }
    const channel = options.channel ? (child.stdio[4] as Duplex | null) : null;
    if (channel) {
      channel.on("error", () => {});
      options.channel?.(channel);
    }
    if (options.input !== undefined && child.stdin) {
      // a child that exits without reading its stdin closes the pipe: EPIPE is not an error here
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
    const out = new HeadTail(maxBytes);
    const err = new HeadTail(maxBytes);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    (child.stdout as Readable | null)?.on("data", (chunk: Buffer) => out.push(chunk));
    (child.stderr as Readable | null)?.on("data", (chunk: Buffer) => err.push(chunk));
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      // never cancelled once stopping: what ignores TERM (a pid namespace's init ignores it) still goes
      setTimeout(() => killGroup("SIGKILL"), 1000).unref?.();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      // A sandbox launcher killed in its first moments can leave its child behind (bwrap sets the
      // child's parent-death signal a little after starting it): give it that moment first.
      const young = STARTUP_GRACE_MS - (performance.now() - started);
      if (young > 0) setTimeout(stop, young);
      else stop();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (code: number | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      channel?.destroy();
      resolvePromise({
        stdout: out.text(),
        stderr: (error ? `${error.message}\n` : "") + err.text(),
        exitCode: error ? 127 : code,
        timedOut,
        aborted,
        durationMs: performance.now() - started,
      });
    };
    child.on("error", (error) => finish(null, error));
    child.on("close", (code, sig) => finish(code ?? (sig ? 128 + signalNumber(sig) : null)));
    // Killed and exited, but something it left behind still holds the pipes (a process in another
    // session): the result does not wait for it.
    child.on("exit", (code, sig) => {
      if (!timedOut && !aborted) return;
      // the leader is gone: anything left in its group (bwrap's namespace init) is a straggler
      killGroup("SIGKILL");
      setTimeout(() => {
        (child.stdout as Readable | null)?.destroy();
        (child.stderr as Readable | null)?.destroy();
        channel?.destroy();
        finish(code ?? (sig ? 128 + signalNumber(sig) : null));
      }, 500).unref();
    });
  });
}

/**
 * Runs a program the user configured (a hook's command) to completion: unconfined, in its own
 * process group, with `options.env` exactly. Not for anything the agent asked for (Sandbox.run).
 */
export function runUserProgram(
  argv: readonly string[],
  options: SpawnOptions,
): Promise<SpawnResult> {
  return spawnCapture(argv, options);
}

/** A long-running child with its three pipes open (an MCP server over stdio). */
export interface PipedChild {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process has exited: its code, 128+signal, or 127 when it could not start. */
  readonly exited: Promise<number>;
  /** Resolves once the process is running (undefined), or with why it could not start (ENOENT …). */
  readonly started: Promise<string | undefined>;
  /** Closes stdin, then TERM to the whole group, KILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a program the user configured (an MCP server) and keeps it running with pipes on its
 * stdin, stdout and stderr; own process group, `options.env` exactly. `stop` ends the whole group.
 */
export function spawnPiped(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): PipedChild {
  const [cmd, ...args] = argv;
  const child = spawn(cmd as string, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let done = false;
  const started = new Promise<string | undefined>((resolveStart) => {
    child.once("spawn", () => resolveStart(undefined));
    child.once("error", (error) => resolveStart(error.message));
  });
  const exited = new Promise<number>((resolveExit) => {
    child.on("error", () => {
      done = true;
      resolveExit(127);
    });
    child.on("exit", (code, sig) => {
      done = true;
      resolveExit(code ?? (sig ? 128 + signalNumber(sig) : 1));
    });
  });
  (child.stdin as Writable).on("error", () => {}); // a server that exits mid-write: EPIPE
  const killGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  return {
    pid: child.pid,
    stdin: child.stdin as Writable,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    exited,
    started,
    async stop(graceMs = 1000) {
      (child.stdin as Writable).end();
      if (!done) killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      // the leader is gone: whatever it started in its group goes too
      killGroup("SIGKILL");
      (child.stdout as Readable).destroy();
      (child.stderr as Readable).destroy();
    },
  };
}

/** A long-lived child fed over its stdin (the sandboxed file worker). */
export interface WorkerChild {
  write(bytes: Uint8Array): void;
  /** While on, the child and its pipes keep chatcli's event loop alive. */
  hold(on: boolean): void;
  /** Kills its whole process group. */
  kill(): void;
}

/**
 * Starts a child that chatcli talks to over stdin/stdout; `exit` gets why it ended (its last stderr
 * line). It is idle-unreferenced: it never keeps chatcli alive on its own.
 */
export function spawnWorker(
  argv: readonly string[],
  options: Pick<SpawnOptions, "cwd" | "env" | "fd3Path">,
  events: { data: (chunk: Uint8Array) => void; exit: (why: string) => void },
): WorkerChild {
  const [cmd, ...args] = argv;
  const fd3 = options.fd3Path ? openSync(options.fd3Path, "r") : undefined;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(cmd as string, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: fd3 === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", fd3],
    });
  } finally {
    if (fd3 !== undefined) closeSync(fd3);
  }
  let stderr = "";
  let ended = false;
  const end = (why: string) => {
    if (ended) return;
    ended = true;
    events.exit(why);
  };
  child.stdout?.on("data", (chunk: Buffer) => events.data(chunk));
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  child.stdin?.on("error", () => {});
  child.on("error", (error) => end(error.message));
  child.on("close", (code, sig) => {
    const last = stderr.trim().split("\n").at(-1);
    end(`${sig ? `killed by ${sig}` : `exit ${code}`}${last ? `: ${last}` : ""}`);
  });
  type Refable = { ref?: () => void; unref?: () => void } | null | undefined;
  const streams = [child, child.stdout, child.stderr, child.stdin] as Refable[];
  const hold = (on: boolean) => {
    for (const s of streams) (on ? s?.ref : s?.unref)?.call(s);
  };
  hold(false);
  return {
    write: (bytes) => {
      if (!ended) child.stdin?.write(bytes);
    },
    hold,
    kill: () => {
      if (child.pid === undefined || ended) return;
      try {
        kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/**
 * Inside the sandbox: the network bridge runs the agent's command as its child, on the bridge's own
 * stdin, stdout and stderr (nothing else is inherited: the bridge's pipe to chatcli stays its own).
 * Resolves with its exit code, or 128 + the signal that ended it.
 */
export function runInheritingStdio(
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<number> {
  return new Promise((resolveExit) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: "inherit",
    });
    child.on("error", () => resolveExit(127));
    child.on("exit", (code, sig) =>
      resolveExit(code ?? 128 + ((sig && osConstants.signals[sig]) || 1)),
    );
  });
}

/** Starts chatcli itself detached (background memory compaction), never waiting for it. */
export function spawnDetachedSelf(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): void {
  const child = spawn(argv[0] as string, argv.slice(1), {
    detached: true,
    stdio: "ignore",
    env: { ...env },
  });
  child.on("error", () => {});
  child.unref();
}

/**
 * Keeps the first and the last `max / 2` bytes of a stream (a test run's summary is at its end),
 * with a marker naming how much was dropped in between.
 */
class HeadTail {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headRoom = Math.ceil(this.max / 2) - this.headBytes;
    if (headRoom > 0) {
      this.head.push(chunk.subarray(0, headRoom));
      this.headBytes += Math.min(headRoom, chunk.length);
      chunk = chunk.subarray(headRoom);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    const limit = Math.floor(this.max / 2);
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= limit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  text(): string {
    const limit = Math.floor(this.max / 2);
    let tail = Buffer.concat(this.tail);
    if (tail.length > limit) tail = tail.subarray(tail.length - limit);
    const dropped = this.total - this.headBytes - tail.length;
    const head = Buffer.concat(this.head).toString("utf8");
    if (dropped <= 0) return head + tail.toString("utf8");
    return `${head}\n[... ${dropped} bytes dropped ...]\n${tail.toString("utf8")}`;
  }
}

function signalNumber(sig: string): number {
  return sig === "SIGKILL" ? 9 : sig === "SIGTERM" ? 15 : sig === "SIGINT" ? 2 : 1;
}
