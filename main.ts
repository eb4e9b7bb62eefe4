#!/usr/bin/env bun
import { fstatSync } from "node:fs";
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
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  stdoutClosed = true;
  stop("SIGPIPE");
});

function sink(stream: NodeJS.WriteStream, isClosed: () => boolean): Sink {
  return {
    write(text: string): boolean {
      if (isClosed()) return false;
      stream.write(text);
      return true;
    },
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
  stdout: sink(process.stdout, () => stdoutClosed),
  stderr: sink(process.stderr, () => false),
  signal: controller.signal,
  signalName: () => stopSignal,
  fetch: globalThis.fetch,
  execPath: process.execPath,
  version: pkg.version,
};

const code = await runCli(process.argv.slice(2), ctx);
const exitCode = stdoutClosed ? EXIT.sigpipe : code;
// Flush stdout, then exit: a stdin pipe that never closes must not keep the process alive.
if (stdoutClosed) process.exit(exitCode);
process.stdout.write("", () => process.exit(exitCode));
