/**
 * ReplServices built only from what lib/ offers today: the provider registry for chat turns,
 * in-memory checkpoints with the Go tool's semantics, interim v2 session files, usage totals and
 * chars/4 context estimates. Memory, the agent loop and compaction report "not available" until
 * lib/memory, lib/agent and lib/history are wired in (see `commands/chat.ts`).
 */
import type { Ctx } from "../core/ctx.ts";
import { envBool } from "../core/settings.ts";
import { type ModelRef, modelLabel, resolveModel } from "../llm/models.ts";
import { createProvider } from "../llm/registry.ts";
import type { ChatMessage, Provider, SystemBlock } from "../llm/types.ts";
import { addUsage, emptyUsage } from "../llm/types.ts";
import { MemoryWorker, type MemoryWorkerDeps } from "./memory-worker.ts";
import type {
  CheckpointInfo,
  CompactOutcome,
  ContextSummary,
  CostSummary,
  ReplServices,
  SessionEntry,
  TurnCallbacks,
  TurnResult,
} from "./services.ts";
import {
  listSessionFiles,
  loadSessionFile,
  removeSessionFile,
  saveSessionFile,
} from "./session-files.ts";

const CHAT_PROMPT =
  "You are ChatCLI, an assistant working in the user's terminal. Answer concisely; use Markdown " +
  "(code blocks with a language, short lists) only where it helps.";

const MAX_CHECKPOINTS = 20;

interface Checkpoint {
  time: Date;
  history: ChatMessage[];
  label: string;
}

export interface StandaloneOptions {
  model: ModelRef;
  /** Session to continue (loaded when it exists) and keep saved. */
  session?: string;
  /** The system prompt; defaults to a short chat prompt. */
  system?: SystemBlock[];
  /** lib/memory's extraction; when given, the background memory worker runs on it. */
  extractMemory?: MemoryWorkerDeps["extract"];
}

/** A ReplServices implementation that needs nothing beyond lib/core and lib/llm. */
export async function createStandaloneServices(
  ctx: Ctx,
  options: StandaloneOptions,
): Promise<ReplServices> {
  const services = new StandaloneServices(ctx, options);
  if (options.session) await services.bind(options.session);
  return services;
}

class StandaloneServices implements ReplServices {
  private messages: ChatMessage[] = [];
  private checkpoints: Checkpoint[] = [];
  private bound: string | undefined;
  private provider: Provider | undefined;
  private model: ModelRef;
  private usage = emptyUsage();
  private requests = 0;
  private readonly worker: MemoryWorker | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: StandaloneOptions,
  ) {
    this.model = options.model;
    if (options.extractMemory) {
      this.worker = new MemoryWorker({ extract: options.extractMemory, now: ctx.now });
      this.worker.startTicker(() => this.messages);
    }
  }

  async bind(name: string): Promise<void> {
    this.messages = (await loadSessionFile(this.ctx.env, name)) ?? [];
    this.bound = name;
  }

  modelLabel(): string {
    return modelLabel(this.model);
  }
  history(): readonly ChatMessage[] {
    return this.messages;
  }

  private system(): SystemBlock[] {
    return this.options.system ?? [{ id: "core", text: CHAT_PROMPT, cache: true }];
  }

  async sendTurn(
    input: string,
    callbacks: TurnCallbacks,
    signal: AbortSignal,
  ): Promise<TurnResult> {
    this.checkpoint();
    this.provider ??= await createProvider(this.model, { fetch: this.ctx.fetch });
    const user: ChatMessage = { role: "user", content: input };
    const request = {
      model: this.model.model,
      system: this.system(),
      messages: [...this.messages, user],
    };
    let text = "";
    let usage = emptyUsage();
    this.requests += 1;
    for await (const event of this.provider.stream(request, signal)) {
      if (signal.aborted) break;
      if (event.type === "text") {
        text += event.text;
        callbacks.onText(event.text);
      } else if (event.type === "usage") usage = addUsage(usage, event.usage);
    }
    this.usage = addUsage(this.usage, usage);
    if (signal.aborted) throw new Error("cancelled");
    this.messages.push(user, { role: "assistant", content: text });
    if (this.bound) await saveSessionFile(this.ctx.env, this.bound, this.messages);
    return { text, usage };
  }

  /** Go semantics: label = the last user message already in history, `(start)` when none. */
  private checkpoint(): void {
    const last = this.messages.filter((m) => m.role === "user").at(-1)?.content;
    let label = last === undefined ? "(start)" : last.replace(/\r?\n/g, " ");
    if (new TextEncoder().encode(label).length > 60) label = `${cutBytes(label, 57)}...`;
    this.checkpoints.push({ time: this.ctx.now(), history: [...this.messages], label });
    if (this.checkpoints.length > MAX_CHECKPOINTS) this.checkpoints.shift();
  }

  listCheckpoints(): CheckpointInfo[] {
    const n = this.checkpoints.length;
    return this.checkpoints
      .map((c, i) => ({ index: n - i, time: c.time, messages: c.history.length, label: c.label }))
      .reverse();
  }

  async rewind(index: number): Promise<CheckpointInfo> {
    const pos = this.checkpoints.length - index;
    const cp = this.checkpoints[pos];
    if (!cp) throw new Error(`no checkpoint [${index}]`);
    this.messages = [...cp.history];
    this.checkpoints = this.checkpoints.slice(0, pos + 1);
    return { index, time: cp.time, messages: cp.history.length, label: cp.label };
  }

  async compact(): Promise<CompactOutcome> {
    if (this.messages.length < 4) {
      return { status: "skipped", message: "History too short to compact." };
    }
    throw new Error("compaction is not available in this build yet");
  }

  async memory(): Promise<string> {
    return "Memory system not available.";
  }

  async runAgent(): Promise<TurnResult> {
    throw new Error("the agent is not available in this build yet");
  }

  sessionName(): string | undefined {
    return this.bound;
  }
  async saveSession(name: string): Promise<void> {
    await saveSessionFile(this.ctx.env, name, this.messages);
    this.bound = name;
  }
  async loadSession(name: string): Promise<void> {
    const loaded = await loadSessionFile(this.ctx.env, name);
    if (!loaded) throw new Error(`sessão '${name}' não encontrada`);
    this.messages = loaded;
    this.checkpoints = [];
    this.bound = name;
  }
  listSessions(): Promise<SessionEntry[]> {
    return listSessionFiles(this.ctx.env);
  }
  newSession(): void {
    this.messages = [];
    this.checkpoints = [];
    this.bound = undefined;
  }
  async removeSession(name: string): Promise<boolean> {
    await removeSessionFile(this.ctx.env, name);
    if (this.bound !== name) return false;
    this.newSession();
    return true;
  }

  cost(): CostSummary {
    return { requests: this.requests, usage: this.usage, costUsd: null, costIsEstimate: true };
  }

  async context(): Promise<ContextSummary> {
    const parts = this.system().map((b) => part(`system: ${b.id}`, b.text.length));
    const chars = this.messages.reduce((sum, m) => sum + m.content.length, 0);
    parts.push(part("conversation", chars));
    return { parts, messages: this.messages.length };
  }

  async setModel(spec: string): Promise<string> {
    this.model = resolveModel(spec, this.ctx.env);
    this.provider = undefined;
    return modelLabel(this.model);
  }

  nudgeMemory(): void {
    this.worker?.nudge(this.messages);
  }
  drainNotices(): string[] {
    return this.worker?.drainNotices() ?? [];
  }

  async close(): Promise<string | undefined> {
    await this.worker?.stop();
    if (this.bound) {
      await saveSessionFile(this.ctx.env, this.bound, this.messages);
      return `Session '${this.bound}' saved.`;
    }
    const turns = this.messages.filter((m) => m.role !== "system").length;
    if (turns < 2 || !envBool(this.ctx.env, "CHATCLI_SESSION_AUTOSAVE", true)) return undefined;
    const name = `autosave-${stamp(this.ctx.now())}`;
    await saveSessionFile(this.ctx.env, name, this.messages);
    return `session auto-saved as ${name} (disable with CHATCLI_SESSION_AUTOSAVE=false)`;
  }
}

function part(label: string, chars: number) {
  return { label, chars, tokens: Math.ceil(chars / 4) };
}

function cutBytes(text: string, max: number): string {
  let out = "";
  let used = 0;
  for (const ch of text) {
    const size = new TextEncoder().encode(ch).length;
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}

/** `YYYYMMDD-HHMMSS` in local time. */
function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}
