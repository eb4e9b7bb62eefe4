/**
 * Shared set-up for the REPL terminal tests: the built binary (or `bun main.ts`) in tmux, pointed at
 * the mock LLM (tests/support/mock-llm.ts) with a temp HOME.
 */
import { test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { TEST_NOW } from "../support/binary.ts";
import type { MockLlm } from "../support/mock-llm.ts";
import { startTmux, TMUX_MISSING, type TmuxSession, tmuxAvailable } from "../support/tmux.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist/chatcli");
export const COMMAND = existsSync(BINARY) ? [BINARY] : [process.execPath, join(ROOT, "main.ts")];
export const HAS_TMUX = tmuxAvailable();
if (!HAS_TMUX) console.warn(TMUX_MISSING);

export const PROMPT_READY = /^❯$/m;

/** A terminal test: skipped (with the warning above) without tmux; a generous timeout. */
export function tmuxTest(name: string, fn: () => Promise<void>): void {
  (HAS_TMUX ? test : test.skip)(name, fn, 30_000);
}

export interface ChatTermOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Replace the `chat` subcommand (bare `chatcli`: []). */
  command?: string[];
  width?: number;
  height?: number;
}

/** `chatcli chat` in tmux against `llm` (OpenAI API, model gpt-test), memory worker off by default. */
export function chatTerm(home: string, llm: MockLlm, options: ChatTermOptions = {}): TmuxSession {
  return startTmux({
    command: [...COMMAND, ...(options.command ?? ["chat"]), ...(options.args ?? [])],
    cwd: home,
    width: options.width,
    height: options.height,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: home,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      NO_COLOR: "1",
      CHATCLI_NOW: TEST_NOW,
      ...llm.env("openai"),
      OPENAI_MODEL: "gpt-test",
      CHATCLI_MAX_RETRIES: "0",
      CHATCLI_MEMORY_ENABLED: "false",
      ...options.env,
    },
  });
}

/** Types a line and presses Enter. */
export function submit(t: TmuxSession, line: string): void {
  t.type(line);
  t.sendKeys("Enter");
}

/** The non-system messages of a recorded OpenAI request, as {role, content}. */
export function sentMessages(body: unknown): Array<{ role: string; content: unknown }> {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return messages
    .filter((m) => m.role !== "system")
    .map((m) => ({ role: m.role, content: m.content }));
}
