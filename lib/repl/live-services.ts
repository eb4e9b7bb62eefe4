/**
 * The REPL's services over the same lib/ the one-shot commands use: sessions and checkpoints
 * (lib/history), the bootstrap system context, automatic and guided compaction, the agent loop,
 * memory, retries/fallback and pricing. The REPL itself only draws and routes keys.
 */
import { isAbsolute, relative } from "node:path";
import { BootstrapCache } from "../bootstrap/cache.ts";
import { buildSystemContext } from "../bootstrap/context.ts";
import { corePromptFor } from "../bootstrap/core-prompt.ts";
import { extractPathHints } from "../bootstrap/rules.ts";
import { detectWorkspaceRoot } from "../bootstrap/workspace.ts";
import type { Ctx } from "../core/ctx.ts";
import { configuredSecrets } from "../core/redact.ts";
import { loadSettings, type Settings } from "../core/settings.ts";
import { loadSkills } from "../extensions/skills/load.ts";
import { applyRewind, planRewind } from "../history/rewind.ts";
import type { Session } from "../history/session.ts";
import { contextWindow } from "../llm/context-window.ts";
import { type ModelRef, modelLabel, resolveModel } from "../llm/models.ts";
import type { ResilientProvider } from "../llm/retry.ts";
import type { ChatMessage, Effort, SystemBlock } from "../llm/types.ts";
import type { Emitted } from "../output/events.ts";
import { retryLine } from "../output/progress.ts";
import { quotedLine } from "../output/terminal.ts";
import { openRunExtensions, type SessionExtensions, shareExtensions } from "../run/extensions.ts";
import { buildProviderChain } from "../run/provider.ts";
import { type LiveRunInput, runChatTurn, runReplAgent } from "./live-agent.ts";
import { Attachments } from "./live-attachments.ts";
import { SessionBinding } from "./live-binding.ts";
import { compactConversation, guidedTooFew } from "./live-compact.ts";
import type { ReplMemory } from "./live-memory.ts";
import { contextSummary, UsageMeter } from "./live-meter.ts";
import { runReplShell } from "./live-shell.ts";
import { rewoundPrompt } from "./repl-rewind.ts";
import type * as S from "./services.ts";

export interface LiveOptions {
  model?: string;
  session?: string;
  memory?: ReplMemory;
  /** Shared with the memory worker, so `/cost` counts its extraction requests too. */
  meter?: UsageMeter;
  /** `--effort` / CHATCLI_EFFORT, on every chat and agent request. */
  effort?: Effort;
  /** `--fake-responses FILE`: the replies of `-m mock:script`. */
  fakeResponses?: string;
}

/** Builds the REPL's services: settings, model, and the session (named, or a new autosave one). */
export async function createLiveServices(ctx: Ctx, options: LiveOptions): Promise<S.ReplServices> {
  const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
  const settings = await loadSettings(ctx, { workspaceRoot });
  // what an untrusted checkout tried to set (CONTRACT §5), said once before the prompt
  for (const w of settings.warnings)
    if (
      w.code === "untrusted_workspace_setting" ||
      w.code === "credential_endpoint_mismatch" ||
      w.code === "link_outside_workspace"
    )
      ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message)}\n`);
  const ref = resolveModel(options.model, settings.env, settings.config.model);
  const live = new LiveServices(ctx, settings, workspaceRoot, ref, options.memory, options.meter);
  live.effort = options.effort;
  live.fakeResponses = options.fakeResponses;
  await live.open(options.session);
  options.memory?.startTicker(() => live.history());
  return live;
}

/** `path` relative to `root` when inside it (how the rewind menu names files). */
function relativeTo(root: string, path: string): string {
  const rel = relative(root, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

class LiveServices implements S.ReplServices {
  effort: Effort | undefined;
  fakeResponses: string | undefined;
  private readonly binding: SessionBinding;
  private provider: ResilientProvider | undefined;
  private readonly cache = new BootstrapCache();
  private readonly attached: Attachments;
  /** Where the provider chain's retry/fallback lines go: the operation running now. */
  private providerLine: (line: string) => void = () => {};
  /** Warnings already shown (a run's settings warnings repeat on every line: shown once). */
  private readonly shown = new Set<string>();
  private readonly fallbacks = new Set<string>();

  constructor(
    private readonly ctx: Ctx,
    private readonly settings: Settings,
    private readonly workspaceRoot: string,
    private ref: ModelRef,
    private readonly mem: ReplMemory | undefined,
    private readonly meter: UsageMeter = new UsageMeter(),
  ) {
    this.binding = new SessionBinding({ ...ctx, env: settings.env }, workspaceRoot);
    this.attached = new Attachments(ctx.cwd, settings.env);
  }

  private get env() {
    return this.settings.env;
  }

  private get session(): Session {
    return this.binding.session;
  }

  async open(name?: string): Promise<void> {
    await this.binding.open(name);
    this.mem?.baseline(this.session.messages);
  }

  /** The provider chain (built once per model); its notices go to `onLine` for this operation. */
  private async chain(onLine: (line: string) => void): Promise<ResilientProvider> {
    this.providerLine = onLine;
    this.provider ??= await buildProviderChain(this.ref, {
      env: this.env,
      fetch: this.ctx.fetch,
      fakeResponsesPath: this.fakeResponses,
      emit: (event) => this.notice(event, (line) => this.providerLine(line)),
    });
    return this.provider;
  }

  /** A retry, fallback or warning of the chain as one line (each warning once per session). */
  private notice(event: Emitted, onLine: (line: string) => void): void {
    if (event.type === "warning") {
      if (!this.shown.has(event.message))
        onLine(`warning: ${quotedLine(event.message, configuredSecrets(this.settings.redactEnv))}`);
      this.shown.add(event.message);
    } else if (event.type === "retry") {
      const line = retryLine(event, this.fallbacks);
      if (line) onLine(line.replace(/^chatcli: /, ""));
    }
  }

  /** What the REPL's runs share: the session, the chain, the model; warnings said once. */
  private runInput(provider: ResilientProvider): LiveRunInput {
    return {
      ctx: this.ctx,
      binding: this.binding,
      ref: this.ref,
      provider,
      memory: this.mem !== undefined,
      ...(this.effort ? { effort: this.effort } : {}),
      once: this.shown,
      secrets: configuredSecrets(this.settings.redactEnv),
      extensions: () => this.extensions(),
    };
  }

  /** MCP servers, skills and hooks, opened once for the session (servers start on the first /agent). */
  private shared: Promise<SessionExtensions> | undefined;
  private extensions(): Promise<SessionExtensions> {
    this.shared ??= openRunExtensions({
      ctx: this.ctx,
      env: this.settings.env,
      workspaceRoot: this.workspaceRoot,
      trusted: this.settings.trust.trusted,
      bare: false,
      enabled: true,
    }).then(shareExtensions);
    return this.shared;
  }

  async skillNamed(name: string): Promise<boolean> {
    const { skills } = await loadSkills(this.settings.env, this.workspaceRoot);
    return skills.some((s) => s.name === name && s.userInvocable);
  }

  modelLabel(): string {
    return modelLabel(this.ref);
  }
  history(): readonly ChatMessage[] {
    return this.session.messages;
  }

  private async systemBlocks(input: string): Promise<SystemBlock[]> {
    const memory = await this.mem?.forPrompt(input, this.session.messages);
    const attached = await this.attached.files(this.session);
    const context = await buildSystemContext({
      attachments: attached.files,
      env: this.env,
      cwd: this.ctx.cwd,
      now: this.ctx.now(),
      mode: "chat",
      corePrompt: corePromptFor("chat"),
      memory,
      touchedPaths: extractPathHints(input),
      cache: this.cache,
    });
    return context.blocks;
  }

  async sendTurn(
    input: string,
    callbacks: S.TurnCallbacks,
    signal: AbortSignal,
  ): Promise<S.TurnResult> {
    try {
      return await this.turn(input, callbacks, signal);
    } catch (error) {
      await this.binding.refresh(); // the menu must not list the dropped checkpoint
      throw error;
    }
  }

  private async turn(
    input: string,
    callbacks: S.TurnCallbacks,
    signal: AbortSignal,
  ): Promise<S.TurnResult> {
    const notice = (line: string) =>
      callbacks.onNotice ? callbacks.onNotice(line) : callbacks.onText(`\n${line}\n`);
    const provider = await this.chain(notice);
    await this.binding.reloadIfChanged(notice);
    const checkpoint = await this.binding.checkpoint(input);
    try {
      return await this.answer(input, callbacks, signal, provider, notice);
    } catch (error) {
      // Nothing changed: a failed or cancelled turn leaves no checkpoint behind.
      await this.session.dropCheckpointIfUnused(checkpoint).catch(() => {});
      throw error;
    }
  }

  private async answer(
    input: string,
    callbacks: S.TurnCallbacks,
    signal: AbortSignal,
    provider: ResilientProvider,
    notice: (line: string) => void,
  ): Promise<S.TurnResult> {
    const system = await this.systemBlocks(input);
    this.meter.request("chat");
    const turn = await runChatTurn(
      this.runInput(provider),
      input,
      system,
      { onText: callbacks.onText, onNotice: notice },
      signal,
    );
    // priced by the model that answered (a fallback's after a fallback), as headless runs
    this.meter.add(turn.answered, turn.usage, "chat");
    this.session.replaceTurns(turn.messages);
    await this.binding.persist();
    await this.binding.refresh();
    return { text: turn.text, usage: turn.usage };
  }

  async compact(
    instruction: string | undefined,
    signal: AbortSignal,
    onPhase: (line: string) => void,
  ): Promise<S.CompactOutcome> {
    await this.binding.reloadIfChanged(onPhase);
    const messages = this.session.messages;
    if (messages.filter((m) => m.role !== "system").length < 4) {
      return { status: "skipped", message: "History too short to compact." };
    }
    const tooFew = instruction ? guidedTooFew(messages) : undefined;
    if (tooFew) return { status: "skipped", message: tooFew };
    const provider = await this.chain(onPhase);
    const result = await compactConversation(messages, {
      ref: this.ref,
      env: this.env,
      provider,
      instruction,
      signal,
      onPhase,
      onUsage: (u) => {
        this.meter.add(this.ref, u, "compaction");
        this.meter.request("compaction");
      },
    });
    if (result.status === "cancelled") throw new Error("cancelled");
    if (result.status === "unchanged") {
      return { status: "compacted", before: result.before.messages, after: result.after.messages };
    }
    await this.binding.checkpoint(`/compact${instruction ? ` ${instruction}` : ""}`);
    this.session.replaceMessages(result.messages);
    await this.binding.persist();
    await this.binding.refresh();
    return { status: "compacted", before: result.before.messages, after: result.after.messages };
  }

  listCheckpoints(): S.CheckpointInfo[] {
    return this.binding.checkpoints.list();
  }

  async rewindFiles(index: number): Promise<S.RewindFile[]> {
    const target = this.binding.checkpoints.find(index);
    if (!target) return [];
    const plan = await planRewind(this.session, target.id, "code");
    return plan.files.flatMap((f) =>
      f.action === "unchanged" || f.change === null
        ? []
        : [
            {
              path: relativeTo(this.workspaceRoot, f.path),
              change: f.change,
              conflict: f.conflict,
            },
          ],
    );
  }

  async rewind(
    index: number,
    scope: S.RewindScopeChoice = "conversation",
  ): Promise<S.CheckpointInfo> {
    const target = this.binding.checkpoints.find(index);
    if (!target) throw new Error(`no checkpoint [${index}]`);
    const plan = await planRewind(this.session, target.id, scope);
    const before = [...this.session.messages];
    await applyRewind(this.session, plan);
    await this.binding.persist();
    await this.binding.refresh();
    const prompt =
      scope === "code" ? undefined : rewoundPrompt(before, this.session.messages, target.label);
    return { index, time: target.time, messages: target.messages, label: target.label, prompt };
  }

  shell(
    command: string,
    signal: AbortSignal,
    hooks: { confirmDangerous(reason: string): Promise<boolean>; onNotice(line: string): void },
  ) {
    return runReplShell({
      ctx: this.ctx,
      env: this.env,
      config: this.settings.config,
      workspaceRoot: this.workspaceRoot,
      command,
      signal,
      ...hooks,
    });
  }

  async memory(args: string, signal: AbortSignal): Promise<string> {
    if (!this.mem) return "Memory system not available.";
    return this.mem.command(args, signal);
  }

  async runAgent(
    mode: "agent" | "coder",
    task: string,
    callbacks: S.AgentCallbacks,
    signal: AbortSignal,
  ): Promise<S.TurnResult> {
    const provider = await this.chain(callbacks.onActivity);
    await this.binding.reloadIfChanged(callbacks.onActivity);
    const result = await runReplAgent(this.runInput(provider), mode, task, callbacks, signal);
    if (result.usage) this.meter.add(result.answered, result.usage, "agent");
    if (result.requests) for (let i = 0; i < result.requests; i++) this.meter.request("agent");
    return result;
  }

  sessionName(): string | undefined {
    return this.binding.bound;
  }
  saveSession(name: string): Promise<void> {
    return this.binding.saveAs(name);
  }
  async loadSession(name: string): Promise<void> {
    await this.binding.open(name, true);
    this.mem?.baseline(this.session.messages);
  }
  listSessions(): Promise<S.SessionEntry[]> {
    return this.binding.list();
  }
  newSession(): Promise<void> {
    return this.binding.fresh();
  }
  removeSession(name: string): Promise<boolean> {
    return this.binding.remove(name);
  }

  cost(): S.CostSummary {
    return this.meter.summary();
  }

  attach(pattern: string): Promise<string> {
    return this.attached.attach(this.session, pattern);
  }
  detach(name: string): Promise<string> {
    return this.attached.detach(this.session, name);
  }
  async attachments(): Promise<string> {
    return (await this.attached.files(this.session)).summary;
  }

  async context(): Promise<S.ContextSummary> {
    const model = { provider: this.ref.provider, model: this.ref.model };
    const window = contextWindow(model, this.env);
    return contextSummary(await this.systemBlocks(""), this.session.messages, window);
  }

  async setModel(spec: string): Promise<string> {
    this.ref = resolveModel(spec, this.env);
    this.provider = undefined;
    return modelLabel(this.ref);
  }

  nudgeMemory(): void {
    this.mem?.nudge(this.session.messages);
  }
  drainNotices(): string[] {
    return [...this.binding.notices.splice(0), ...(this.mem?.drainNotices() ?? [])];
  }

  async close(): Promise<string | undefined> {
    await this.mem?.stop();
    const shared = await this.shared?.catch(() => undefined);
    await shared?.end(
      (event) => {
        if (event.type === "warning") this.ctx.stderr.write(`chatcli: warning: ${event.message}\n`);
      },
      {
        sessionId: this.session.name,
        workingDir: this.ctx.cwd,
        timestamp: this.ctx.now().toISOString(),
      },
    );
    return this.binding.close();
  }
}
