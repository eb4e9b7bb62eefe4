/**
 * A real terminal for end-to-end REPL tests: tmux on a private socket runs a command with a given
 * env in a given dir; tests type with `sendKeys`/`type` and read with `capturePane`/`waitForText`
 * (polling the screen — never a fixed sleep).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Whether tmux can be used here; tests skip with a clear message when it cannot. */
export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
}

export const TMUX_MISSING =
  "tmux is not installed (apt-get install -y tmux): REPL terminal tests skipped";

export interface TmuxOptions {
  /** argv of the program to run. */
  command: string[];
  /** The whole environment of the program (nothing is inherited but what you pass). */
  env: Record<string, string>;
  cwd: string;
  /** Where the exit-code file goes (defaults to cwd). */
  stateDir?: string;
  width?: number;
  height?: number;
}

export interface TmuxSession extends AsyncDisposable {
  /** tmux key names (`Enter`, `Escape`, `C-c`, `Up`, `Tab`…), sent one by one. */
  sendKeys(...keys: string[]): void;
  /** Literal text, typed as is (no key-name interpretation). */
  type(text: string): void;
  /** Pastes text the way a terminal does (bracketed when the program asked for it). */
  paste(text: string): void;
  /** The visible screen, trailing blank lines dropped. */
  capturePane(): string;
  /** The scrollback and the screen together. */
  captureHistory(): string;
  /** Polls the screen until `re` matches; returns the screen. Fails with the screen after `timeoutMs`. */
  waitForText(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for the program to end; returns its exit code. */
  waitForExit(timeoutMs?: number): Promise<number>;
  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(width: number, height: number): void;
  kill(): void;
}

let counter = 0;

/** Starts `command` in a detached tmux session on its own server socket. */
export function startTmux(options: TmuxOptions): TmuxSession {
  const socket = `chatcli-test-${process.pid}-${++counter}`;
  const stateDir = options.stateDir ?? options.cwd;
  const exitFile = join(stateDir, `.tmux-exit-${counter}`);
  const tmux = (...args: string[]) => {
    const r = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.trim()}`);
    return r.stdout;
  };
  const envArgs = Object.entries(options.env).map(([k, v]) => `${k}=${v}`);
  const script = `"$@"; echo $? > ${shellQuote(`${exitFile}.tmp`)} && mv ${shellQuote(`${exitFile}.tmp`)} ${shellQuote(exitFile)}`;
  const argv = ["env", "-i", ...envArgs, "sh", "-c", script, "sh", ...options.command];
  tmux(
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    String(options.width ?? 100),
    "-y",
    String(options.height ?? 30),
    "-c",
    options.cwd,
    argv.map(shellQuote).join(" "),
    ";",
    "set-option",
    "-t",
    "main",
    "remain-on-exit",
    "on",
  );

  const capturePane = () =>
    tmux("capture-pane", "-p", "-t", "main")
      .replace(/\s+$/, "")
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n");

  const captureHistory = () => tmux("capture-pane", "-p", "-S", "-", "-t", "main").trimEnd();

  const session: TmuxSession = {
    captureHistory,
    sendKeys(...keys) {
      for (const key of keys) tmux("send-keys", "-t", "main", key);
    },
    type(text) {
      tmux("send-keys", "-t", "main", "-l", text);
    },
    paste(text) {
      tmux("set-buffer", "-b", "paste", "--", text);
      tmux("paste-buffer", "-p", "-d", "-b", "paste", "-t", "main");
    },
    capturePane,
    async waitForText(re, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = capturePane();
        if (re.test(screen)) return screen;
        if (Date.now() > deadline) {
          throw new Error(`screen never matched ${re} within ${timeoutMs} ms:\n${screen}`);
        }
        await Bun.sleep(25);
      }
    },
    async waitForExit(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!existsSync(exitFile)) {
        if (Date.now() > deadline) {
          throw new Error(`program still running after ${timeoutMs} ms:\n${capturePane()}`);
        }
        await Bun.sleep(25);
      }
      return Number(readFileSync(exitFile, "utf8").trim());
    },
    resize(width, height) {
      tmux("resize-window", "-t", "main", "-x", String(width), "-y", String(height));
    },
    kill() {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
    async [Symbol.asyncDispose]() {
      session.kill();
    },
  };
  return session;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_\-./=:@%+,]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
