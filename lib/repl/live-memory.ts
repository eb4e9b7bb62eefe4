import type { MemoryBackend } from "../agent/types.ts";
import type { ChatMessage } from "../llm/types.ts";

/** What the REPL needs from lib/memory: prompt text, the /memory command, the tool backend, the worker. */
export interface ReplMemory {
  forPrompt(
    input: string,
    history: readonly ChatMessage[],
  ): Promise<{ stable?: string; volatile?: string } | undefined>;
  command(args: string, signal: AbortSignal): Promise<string>;
  backend?: MemoryBackend;
  nudge(history: readonly ChatMessage[]): void;
  drainNotices(): string[];
  stop(): Promise<void>;
}
