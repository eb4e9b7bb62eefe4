import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../commands/cli.ts";
import type { Ctx, Env, Sink, StdinKind, StopSignal } from "../../lib/core/ctx.ts";

export interface CapturedSink extends Sink {
  text(): string;
}

export function captureSink(isTTY = false): CapturedSink {
  const parts: string[] = [];
  return {
    write(text: string) {
      parts.push(text);
      return true;
    },
    isTTY,
    columns: 100,
    text: () => parts.join(""),
  };
}

export interface TestCtxOptions {
  env?: Env;
  cwd?: string;
  /** A string is piped stdin; "tty" and "null" are those kinds; default "null". */
  stdin?: string | Uint8Array | { kind: StdinKind; chunks?: () => AsyncIterable<Uint8Array> };
  now?: () => Date;
  stdoutTTY?: boolean;
  fetch?: typeof fetch;
}

export interface TestCtx extends Ctx {
  out(): string;
  err(): string;
  abort(name?: StopSignal): void;
}

/** A Ctx for in-process runs: captured stdio, explicit env, no process globals. */
export function testCtx(options: TestCtxOptions = {}): TestCtx {
  const stdout = captureSink(options.stdoutTTY ?? false);
  const stderr = captureSink(false);
  const controller = new AbortController();
  let signalName: StopSignal | undefined;
  const stdin = options.stdin;
  let kind: StdinKind = "null";
  let chunks: () => AsyncIterable<Uint8Array> = async function* () {};
  if (typeof stdin === "string" || stdin instanceof Uint8Array) {
    kind = "pipe";
    const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
    chunks = async function* () {
      yield bytes;
    };
  } else if (stdin) {
    kind = stdin.kind;
    if (stdin.chunks) chunks = stdin.chunks;
  }
  return {
    env: options.env ?? {},
    cwd: options.cwd ?? tmpdir(),
    now: options.now ?? (() => new Date()),
    stdin: { kind, chunks },
    stdout,
    stderr,
    signal: controller.signal,
    signalName: () => signalName,
    fetch: options.fetch ?? globalThis.fetch,
    execPath: process.execPath,
    selfArgv: [process.execPath, join(import.meta.dir, "../../main.ts")],
    version: "0.0.0-test",
    out: () => stdout.text(),
    err: () => stderr.text(),
    abort(name: StopSignal = "SIGINT") {
      signalName = name;
      controller.abort(new Error(name));
    },
  };
}

export interface TempDir extends AsyncDisposable {
  path: string;
}

/** A temp directory removed at the end of the test (`await using dir = await tempDir()`). */
export async function tempDir(prefix = "chatcli-test-"): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI in-process; returns the exit code and captured output. */
export async function run(
  argv: string[],
  options: TestCtxOptions = {},
): Promise<{ code: number; out: string; err: string; ctx: TestCtx }> {
  const ctx = testCtx(options);
  const code = await runCli(argv, ctx);
  return { code, out: ctx.out(), err: ctx.err(), ctx };
}
