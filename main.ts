#!/usr/bin/env bun
import { fstatSync, writeSync } from "node:fs";
import { isatty } from "node:tty";
import { runCli } from "./commands/cli.ts";
import type { Ctx, Sink, StdinKind, StopSignal } from "./lib/core/ctx.ts";
import { EXIT } from "./lib/core/errors.ts";
import pkg from "./package.json" with { type: "json" };

function stdinKind(): StdinKind {
  try {
    if (isatty(0)) return "tty";
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
  let buffer = Buffer.from(text);
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(fd, buffer));
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

function sink(fd: 1 | 2, stream: NodeJS.WriteStream): Sink {
  return {
    write: (text: string) => writeAll(fd, text),
    isTTY: Boolean(stream.isTTY),
    get columns() {
      return stream.columns;
    },
  };
}

const kind = stdinKind();
const ctx: Ctx = {
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
  stdin: {
    kind,
    chunks: () => process.stdin as AsyncIterable<Uint8Array>,
    setRawMode: kind === "tty" ? (on: boolean) => process.stdin.setRawMode(on) : undefined,
  },
  stdout: sink(1, process.stdout),
  stderr: sink(2, process.stderr),
  signal: controller.signal,
  signalName: () => stopSignal,
  fetch: globalThis.fetch,
  execPath: process.execPath,
  version: pkg.version,
};

const code = await runCli(process.argv.slice(2), ctx);
// Writes are synchronous, so everything is flushed: exit now (an open stdin pipe must not keep us alive).
process.exit(stdoutClosed ? EXIT.sigpipe : code);
