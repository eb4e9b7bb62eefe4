import { spawn } from "node:child_process";
import { kill } from "node:process";
import type { Env } from "../../core/ctx.ts";

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/** The environment commands run with: variables whose names look like secrets are removed. */
export function scrubEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    out[name] = value;
  }
  return out;
}

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
}

/**
 * Runs a process in its own process group and collects its output. A timeout or an abort kills the
 * whole group (TERM, then KILL), so `sh -c "sleep 100 | cat"` never outlives the run.
 */
export function spawnCapture(argv: string[], options: SpawnOptions): Promise<SpawnResult> {
  const started = performance.now();
  const maxBytes = options.maxBytes ?? 1_000_000;
  return new Promise((resolvePromise) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const collect = (store: Buffer[], which: "out" | "err") => (chunk: Buffer) => {
      const used = which === "out" ? outBytes : errBytes;
      if (used < maxBytes) store.push(chunk.subarray(0, maxBytes - used));
      if (which === "out") outBytes += chunk.length;
      else errBytes += chunk.length;
    };
    child.stdout?.on("data", collect(out, "out"));
    child.stderr?.on("data", collect(err, "err"));
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), 1000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (code: number | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal.removeEventListener("abort", onAbort);
      const tail = (bytes: number) =>
        bytes > maxBytes ? `\n[... ${bytes - maxBytes} more bytes dropped ...]` : "";
      resolvePromise({
        stdout: Buffer.concat(out).toString("utf8") + tail(outBytes),
        stderr:
          (error ? `${error.message}\n` : "") +
          Buffer.concat(err).toString("utf8") +
          tail(errBytes),
        exitCode: error ? 127 : code,
        timedOut,
        aborted,
        durationMs: performance.now() - started,
      });
    };
    child.on("error", (error) => finish(null, error));
    child.on("close", (code, sig) => finish(code ?? (sig ? 128 + signalNumber(sig) : null)));
  });
}

function signalNumber(sig: string): number {
  return sig === "SIGKILL" ? 9 : sig === "SIGTERM" ? 15 : sig === "SIGINT" ? 2 : 1;
}

/** The combined stdout/stderr text a model sees for a finished command. */
export function formatProcessOutput(result: SpawnResult, timeoutMs: number): string {
  const parts: string[] = [];
  if (result.timedOut)
    parts.push(`[timed out after ${Math.round(timeoutMs / 1000)} s; process killed]`);
  if (result.aborted) parts.push("[cancelled; process killed]");
  parts.push(`exit code: ${result.exitCode ?? "none"}`);
  if (result.stdout) parts.push(result.stdout.trimEnd());
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.trimEnd()}`);
  return parts.join("\n");
}
