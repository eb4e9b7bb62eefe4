import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist", "chatcli");

/** Fails loudly when the e2e suite runs without a build (npm test builds first). */
export function requireBinary(): string {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\` first`);
  return BINARY;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** string: piped and closed; "pipe-open": a pipe that never writes; "null": /dev/null; default "null". */
  stdin?: string | Uint8Array | "pipe-open" | "null";
  timeoutMs?: number;
}

export interface Spawned {
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  /** Resolves when the process exits, with everything it printed. */
  done: Promise<{ code: number; stdout: string; stderr: string }>;
  /** Resolves once stdout contains `needle`. */
  waitForStdout(needle: string): Promise<void>;
}

/**
 * The instant every spawned binary's clock starts at (CHATCLI_NOW): fixture dates are relative to it,
 * so no test depends on today's date.
 */
export const TEST_NOW = "2026-11-29T20:00:00Z";
const LOADED_AT = Date.now();

/**
 * An env whose CHATCLI_NOW is TEST_NOW moves it on by the time elapsed since this module loaded, so
 * processes spawned one after another see time advance (ordering of sessions, queued segments, locks).
 */
export function withTestClock(
  env: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (env?.["CHATCLI_NOW"] !== TEST_NOW) return env;
  const now = new Date(Date.parse(TEST_NOW) + (Date.now() - LOADED_AT)).toISOString();
  return { ...env, CHATCLI_NOW: now };
}

/** A minimal env: no keys from the developer's machine leak into tests; the clock is TEST_NOW. */
export function baseEnv(
  home: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    CHATCLI_HOME: join(home, ".chatcli"),
    NO_COLOR: "1",
    CHATCLI_NOW: TEST_NOW,
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Spawns dist/chatcli with full control of stdin. */
export function spawnChatcli(args: string[], options: SpawnOptions = {}): Spawned {
  const stdin = options.stdin ?? "null";
  const proc = Bun.spawn([requireBinary(), ...args], {
    cwd: options.cwd,
    env: withTestClock(options.env as Record<string, string>),
    stdin: stdin === "null" ? "ignore" : "pipe",
    stdout: "pipe",
    stderr: "pipe",
  }) as unknown as Bun.Subprocess<"pipe", "pipe", "pipe">;
  if (stdin !== "null" && stdin !== "pipe-open") {
    proc.stdin.write(stdin);
    void proc.stdin.end();
  }
  let out = "";
  const waiters: Array<{ needle: string; resolve: () => void }> = [];
  const decoder = new TextDecoder();
  const stdoutDone = (async () => {
    for await (const chunk of proc.stdout) {
      out += decoder.decode(chunk, { stream: true });
      for (const w of waiters.splice(0)) {
        if (out.includes(w.needle)) w.resolve();
        else waiters.push(w);
      }
    }
  })();
  const done = (async () => {
    const [stderr, code] = await Promise.all([
      new Response(proc.stderr).text(),
      proc.exited,
      stdoutDone,
    ]);
    if (stdin === "pipe-open") void proc.stdin.end();
    return { code, stdout: out, stderr };
  })();
  return {
    proc,
    done,
    waitForStdout(needle: string) {
      if (out.includes(needle)) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ needle, resolve }));
    },
  };
}

/** Spawns and waits for exit. */
export async function runChatcli(args: string[], options: SpawnOptions = {}) {
  return spawnChatcli(args, options).done;
}

/** Runs `script` in bash (e.g. `chatcli … | head -c1; echo rc=${PIPESTATUS[0]}`): stdout and stderr. */
export async function runShell(
  script: string,
  options: { env: Record<string, string>; cwd: string },
): Promise<{ stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bash", "-c", script], {
    ...options,
    env: withTestClock(options.env),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  await proc.exited;
  return { stdout, stderr };
}
