/**
 * INTEGRATION POINTS for the pieces built in parallel (sessions, bootstrap, memory, compaction,
 * pricing). Each function here is the default the agent command uses today; the lead replaces the
 * body with the real module after merging, keeping the signature. Nothing else in lib/agent needs
 * to change.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Env } from "../core/ctx.ts";
import type { ModelRef } from "../llm/models.ts";
import type { ChatMessage, SystemBlock, Usage } from "../llm/types.ts";
import type { Reporter } from "../output/reporter.ts";
import { contextBlock, corePrompt } from "./prompts.ts";
import type { AgentHooks, MemoryBackend } from "./types.ts";

export interface WiringContext {
  env: Env;
  cwd: string;
  workspaceRoot: string;
  mode: "agent" | "coder";
  /** `-s/--system` text, appended as its own block. */
  extraSystem?: string;
  /** `--bare`: no bootstrap files, no memory. */
  bare: boolean;
  memoryMode: "off" | "read" | "write";
  sessionName?: string;
  ephemeral: boolean;
}

/** INTEGRATION (lib/bootstrap): workspace detection. Default: the nearest dir with .git or .chatcli, else cwd. */
export function detectWorkspaceRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git")) || existsSync(join(dir, ".chatcli"))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

/**
 * INTEGRATION (lib/bootstrap + lib/memory): the system blocks, stable first (cached), volatile last.
 * Default: core prompt, optional -s text, then the working directory. The bootstrap builder should
 * insert its files and the memory index between core and dynamic, keeping this order.
 */
export async function buildSystemBlocks(w: WiringContext): Promise<{
  blocks: SystemBlock[];
  bootstrapFiles: Array<{
    name: string;
    path: string;
    scope: "workspace" | "global";
    bytes: number;
  }>;
}> {
  const blocks: SystemBlock[] = [corePrompt(w.mode)];
  if (w.extraSystem?.trim())
    blocks.push({ id: "user_system", text: w.extraSystem.trim(), cache: true });
  blocks.push(contextBlock(w.cwd, w.workspaceRoot));
  return { blocks, bootstrapFiles: [] };
}

/** INTEGRATION (lib/memory): the store behind the `memory` tool. Default: none (the tool reports it is off). */
export async function openMemory(_w: WiringContext): Promise<MemoryBackend | undefined> {
  return undefined;
}

/** INTEGRATION (lib/history): the prior conversation of `--session NAME`. Default: empty. */
export async function loadSessionHistory(
  _w: WiringContext,
): Promise<{ sessionId: string | null; history: ChatMessage[] }> {
  return { sessionId: _w.sessionName ?? null, history: [] };
}

/** INTEGRATION (lib/history): save the run's messages (not when --ephemeral). Default: no-op. */
export async function saveSessionHistory(
  _w: WiringContext,
  _messages: ChatMessage[],
): Promise<void> {}

/**
 * INTEGRATION (lib/history): checkpoints, compaction and file snapshots. Default: none. The reporter
 * is passed so hooks can emit `checkpoint.created` / `compaction.*` events and warnings.
 */
export function agentHooks(_w: WiringContext, _reporter: Reporter): AgentHooks {
  return {};
}

/** INTEGRATION (lib/llm pricing): USD cost of one request; null = unpriced. Default: mock models are free. */
export function costFunction(ref: ModelRef): ((usage: Usage) => number | null) | undefined {
  if (ref.protocol === "mock") return () => 0;
  return undefined;
}

/** INTEGRATION (lib/history): the session scratch dir for web_fetch auto-save. Default: the OS temp dir. */
export function scratchDirFor(_w: WiringContext): string | undefined {
  return undefined;
}
