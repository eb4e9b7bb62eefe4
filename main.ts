#!/usr/bin/env bun
import type { Ctx, Sink, StdinKind, StopSignal } from "./lib/core/ctx.ts";
import pkg from "./package.json" with { type: "json" };

const argv = process.argv.slice(2);
const isVersionFlag = (arg: string | undefined) =>
  arg === "--version" || arg === "-V" || arg === "version";

/** The version probes' one line: Bun's own writer (node:fs alone costs ~2 ms of start-up). */
async function probe(line: string): Promise<never> {
  try {
    await Bun.write(Bun.stdout, line);
  } catch {
    process.exit(141); // EXIT.sigpipe: stdout closed
  }
  process.exit(0); // EXIT.ok
}
// Scripts call these to probe the tool: nothing else needs to load.
if (argv.length === 1 && isVersionFlag(argv[0])) await probe(`${pkg.version}\n`);
if (argv.length === 2 && argv.includes("--json") && argv.some(isVersionFlag)) {
  const { buildInfo } = await import("./lib/core/build-info.ts");
  const host = { platform: process.platform, arch: process.arch, bun: process.versions["bun"] };
  await probe(`${JSON.stringify(buildInfo(pkg.version, host))}\n`);
}
// Loaded after the version probes, which need none of them.
const [{ fstatSync, readlinkSync, writeSync }, { clockFromEnv }, errors, localTime] =
  await Promise.all([
    import("node:fs"),
    import("./lib/core/clock.ts"),
    import("./lib/core/errors.ts"),
    import("./lib/core/local-time.ts"),
  ]);
const { EXIT, formatError, toChatcliError } = errors;
// Local calendar maths without the engine's zone database when the zone is UTC (lib/core/local-time.ts).
localTime.useLocalZone(() => localTime.localZoneIsUtc(process.env));

if (argv[0] === "__net-bridge") {
  // Internal: a command's network bridge inside its sandbox (lib/sandbox/net-bridge.ts).
  const { serveNetBridge } = await import("./lib/sandbox/net-bridge.ts");
  try {
    process.exit(await serveNetBridge(argv.slice(1), { cwd: process.cwd(), env: process.env }));
  } catch (error) {
    writeSync(2, `chatcli network bridge: ${(error as Error).message}\n`);
    process.exit(125);
  }
}
if (argv[0] === "__file-worker" && argv.length === 1) {
  // Internal: the run's file worker, started by chatcli inside its sandbox (lib/sandbox/file-worker.ts).
  const { serveFileWorker } = await import("./lib/sandbox/file-worker.ts");
  const pauseOut = new Int32Array(new SharedArrayBuffer(4));
  await serveFileWorker(process.stdin as AsyncIterable<Uint8Array>, (bytes) => {
    for (let done = 0; done < bytes.length; ) {
      try {
        done += writeSync(1, bytes, done, bytes.length - done);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        Atomics.wait(pauseOut, 0, 0, 2); // the pipe is full: chatcli reads it soon
      }
    }
  });
  process.exit(0);
}

/**
 * A promise nobody awaited failed, or a callback threw: one line on stderr instead of Bun's source
 * excerpt and stack. A rejection lets the run finish but turns a success into exit 1; a throw ends it.
 */
let backgroundFailure = false;
function reportFatal(error: unknown): void {
  try {
    writeSync(2, formatError(toChatcliError(error)).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, ""));
  } catch {
    // stderr is gone too: nothing left to tell
  }
}
process.on("unhandledRejection", (error) => {
  backgroundFailure = true;
  reportFatal(error);
});
process.on("uncaughtException", (error) => {
  reportFatal(error);
  if (process.stdin.isTTY) process.stdin.setRawMode?.(false); // never leave the terminal raw
  process.exit(EXIT.failure);
});

/** node:tty's isatty where /proc cannot say (node:tty costs ~2 ms of start-up). */
const isatty = process.platform === "linux" ? undefined : (await import("node:tty")).isatty;

/** Whether fd is a terminal. Linux: read /proc; else node:tty. */
function isTerminal(fd: number): boolean {
  if (isatty) return isatty(fd);
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
    return /^\/dev\/(pts\/|tty)/.test(readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return false;
  }
}

/** Asked on first use, once: `memory facts --json` never asks (~0.3 ms of its start). */
function once<T>(get: () => T): () => T {
  let known: { value: T } | undefined;
  return () => {
    known ??= { value: get() };
    return known.value;
  };
}
const stdinIsTTY = once(() => isTerminal(0));
const stdoutIsTTY = once(() => isTerminal(1));
const stderrIsTTY = once(() => isTerminal(2));

function stdinKind(): StdinKind {
  try {
    if (stdinIsTTY()) return "tty";
    const info = fstatSync(0);
    if (info.isFIFO() || info.isSocket()) return "pipe";
    if (info.isFile()) return "file";
    return "null"; // /dev/null and other character devices
  } catch {
    return "null";
  }
}

const controller = new AbortController();
let stopSignal: StopSignal | undefined;
function stop(name: StopSignal): void {
  if (stopSignal === "SIGINT" && name === "SIGINT") process.exit(EXIT.sigint); // second Ctrl+C
  stopSignal ??= name;
  controller.abort(new Error(name));
}
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));

let stdoutClosed = false;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes synchronously to a file descriptor: a closed reader (`| head`) surfaces at once as EPIPE,
 * ordering between stdout and stderr is kept, and nothing is left unflushed at exit.
 */
function writeAll(fd: number, text: string): boolean {
  if (fd === 1 && stdoutClosed) return false;
  // The text as it is first (no copy into a Buffer: ~0.3 ms for `memory facts --json`'s 180 KB);
  // a Buffer only for what a short write left.
  let buffer: Buffer | undefined;
  while (buffer === undefined ? text !== "" : buffer.length > 0) {
    try {
      if (buffer === undefined) {
        const wrote = writeSync(fd, text);
        if (wrote >= Buffer.byteLength(text)) return true;
        buffer = Buffer.from(text).subarray(wrote);
      } else buffer = buffer.subarray(writeSync(fd, buffer));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 2); // a non-blocking pipe is full: wait for the reader
        continue;
      }
      if (code === "EPIPE" && fd === 1) {
        stdoutClosed = true;
        stop("SIGPIPE");
      }
      return false;
    }
  }
  return true;
}

function sink(fd: 1 | 2, isTTY: () => boolean): Sink {
  return {
    write: (text: string) => writeAll(fd, text),
    get isTTY() {
      return isTTY();
    },
    get columns() {
      return (fd === 1 ? process.stdout : process.stderr).columns;
    },
    get rows() {
      return (fd === 1 ? process.stdout : process.stderr).rows;
    },
    onResize(listener: () => void) {
      const stream = fd === 1 ? process.stdout : process.stderr;
      stream.on("resize", listener);
      return () => stream.off("resize", listener);
    },
  };
}

const kind = once(stdinKind);
const ctx: Ctx = {
  env: process.env,
  cwd: process.cwd(),
  now: clockFromEnv(process.env),
  stdin: {
    get kind() {
      return kind();
    },
    chunks: () => process.stdin as AsyncIterable<Uint8Array>,
    get setRawMode() {
      return kind() === "tty" ? (on: boolean) => process.stdin.setRawMode(on) : undefined;
    },
    get suspend() {
      return kind() === "tty"
        ? () =>
            new Promise<void>((resolve) => {
              process.once("SIGCONT", () => resolve());
              process.kill(process.pid, "SIGTSTP");
            })
        : undefined;
    },
  },
  stdout: sink(1, stdoutIsTTY),
  stderr: sink(2, stderrIsTTY),
  signal: controller.signal,
  signalName: () => stopSignal,
  fetch: globalThis.fetch,
  execPath: process.execPath,
  // A compiled binary runs its embedded entry (/$bunfs/…); `bun main.ts` needs the script path.
  selfArgv:
    process.argv[1] &&
    !process.argv[1].startsWith("/$bunfs") &&
    process.argv[1] !== process.execPath
      ? [process.execPath, process.argv[1]]
      : [process.execPath],
  version: pkg.version,
};

// The hot read-only commands in their plainest forms skip commander (commands/fast.ts); the rest,
// and --help, typos and errors in flags, go through commands/cli.ts.
const { fastCli } = await import("./commands/fast.ts");
const code =
  (await fastCli(argv, ctx)) ?? (await (await import("./commands/cli.ts")).runCli(argv, ctx));
// Writes are synchronous, so everything is flushed: exit now (an open stdin pipe must not keep us alive).
process.exit(
  stdoutClosed ? EXIT.sigpipe : backgroundFailure && code === EXIT.ok ? EXIT.failure : code,
);
