import { existsSync } from "node:fs";
import type { MemoryBackend } from "../agent/types.ts";
import type { Ctx, Env } from "../core/ctx.ts";
import { toChatcliError } from "../core/errors.ts";
import { memoryDir } from "../core/paths.ts";
import { envInt } from "../core/settings.ts";
import type { ChatMessage } from "../llm/types.ts";
import { type Emit, ev, note } from "../output/events.ts";

// lib/memory is loaded on first use: a run with no memory on disk (CI, a fresh machine) never pays
// for it at start-up.

export type MemoryAccess = "off" | "read" | "write";

/** `--memory` default (CONTRACT §7): write on an interactive terminal, read in CI and pipes. */
export function defaultMemoryAccess(env: Env, interactive: boolean): MemoryAccess {
  if (env["CHATCLI_MEMORY_ENABLED"] === "false") return "off";
  return interactive && !env["CI"] ? "write" : "read";
}

export interface RunMemoryInput {
  ctx: Pick<Ctx, "env" | "cwd" | "now" | "fetch" | "stderr" | "selfArgv">;
  env: Env;
  /** `env` plus the values of ignored settings, for redaction (settings.redactEnv). */
  redactEnv?: Env;
  workspace: string;
  access: MemoryAccess;
  emit: Emit;
}

/**
 * Memory for one run of ask/agent/coder: the prompt text (index digest in the cached prefix, or the
 * retrieved memory in the volatile tail), the `memory` tool's backend, extraction at the end of the
 * run (bounded; queued on disk when no provider answers), and compaction when due (detached).
 */
export class RunMemory {
  factsLoaded = 0;
  /** The prompt mode used (index, full, off), once prompt() ran. */
  mode: string = "off";
  /** The held other-tool facts were told once this run (lib/memory/foreign.ts). */
  private heldTold = false;
  constructor(private readonly input: RunMemoryInput) {}

  private get options() {
    const { ctx, env, workspace, emit, redactEnv } = this.input;
    return {
      env,
      ...(redactEnv ? { redactEnv } : {}),
      cwd: ctx.cwd,
      workspace,
      now: ctx.now,
      warn: (line: string, code?: string) =>
        code ? emit(ev("warning", { code, message: line })) : memoryNotice(emit, line),
      // CONTRACT §7: a run that reads memory never writes it (no access counts, no cap pruning).
      readOnly: this.input.access !== "write",
    };
  }

  get access(): MemoryAccess {
    return this.input.access;
  }

  /** The memory blocks of the system prompt (`full` for ask and chat, `index` by default for agents). */
  async prompt(query: string, surface: "agent" | "chat", mode?: "index" | "full") {
    if (this.input.access === "off" || !existsSync(memoryDir(this.input.env))) return undefined;
    const { memoryForPrompt } = await import("../memory/prompt.ts");
    // An unreadable store costs the run its memory, not the answer.
    const result = await memoryForPrompt({
      ...this.options,
      query,
      surface,
      ...(mode ? { mode } : {}),
    }).catch((error: unknown) => {
      const why = toChatcliError(error).message;
      this.input.emit(
        ev("warning", { code: "memory_failed", message: `memory: not loaded: ${why}` }),
      );
      return undefined;
    });
    if (!result) return undefined;
    if (result.heldOtherTool && !this.heldTold) {
      this.heldTold = true;
      const { otherToolNotice } = await import("../memory/foreign.ts");
      this.input.emit(
        ev("warning", { code: "memory_held", message: otherToolNotice(result.heldOtherTool) }),
      );
    }
    this.factsLoaded = result.factsLoaded;
    this.mode = result.mode;
    return { stable: result.stable, volatile: result.volatile };
  }

  /** The `memory` tool's store. */
  backend(): MemoryBackend {
    const call = async (cmd: string, args: Record<string, unknown>, source?: string) => {
      const { runMemoryTool } = await import("../memory/tool.ts");
      const outcome = await runMemoryTool(this.options, { cmd, args }, { source });
      if (outcome.isError) throw new Error(outcome.text);
      return outcome.text;
    };
    return {
      remember: (content, category, source) => call("remember", { content, category }, source),
      profile: (fields) => call("profile", { fields }),
      forget: (match) => call("forget", { match }),
      recall: (query) => call("recall", { query: query ?? "" }),
    };
  }

  /** After a run with --memory write: extract facts from the conversation (never longer than the bound). */
  async extract(
    messages: readonly ChatMessage[],
    options: { model?: string; configModel?: string; feature: string; isMock: boolean },
  ): Promise<number> {
    if (this.input.access !== "write" || options.isMock || messages.length < 2) return 0;
    const { ctx, env } = this.input;
    const [{ extractionChain }, { extractAfterRun }] = await Promise.all([
      import("../memory/llm-chain.ts"),
      import("../memory/extract.ts"),
    ]);
    const llm = await extractionChain(env, {
      fetch: ctx.fetch,
      model: options.model,
      configModel: options.configModel,
    });
    // The answer is already out: a memory store that cannot be written is a warning, not a failed run.
    const result = await extractAfterRun({
      ...this.options,
      messages,
      llm,
      timeoutMs: envInt(env, "CHATCLI_MEMORY_EXTRACT_TIMEOUT_MS", 15_000),
      stderr: ctx.stderr,
      feature: options.feature,
    }).catch((error: unknown) => {
      const why = toChatcliError(error).message;
      this.input.emit(
        ev("warning", {
          code: "memory_failed",
          message: `memory: facts from this run not saved: ${why}`,
        }),
      );
      return { factsWritten: 0 };
    });
    if (result.factsWritten > 0)
      this.input.emit(
        ev("memory.written", {
          source: "extraction",
          turn: null,
          id: null,
          cmd: null,
          facts: result.factsWritten,
          result: null,
          parent_id: null,
        }),
      );
    return result.factsWritten;
  }

  /**
   * With --memory write: queues messages that compaction is about to drop mid-run to `memory/pending/`,
   * so the extraction at the end of the run (which drains pending segments) still sees them.
   */
  async queueDropped(messages: readonly ChatMessage[]): Promise<void> {
    if (this.input.access !== "write" || messages.length === 0) return;
    const { ctx } = this.input;
    const { queueForExtraction } = await import("../memory/extract.ts");
    await queueForExtraction({ ...this.options, now: ctx.now }, messages).catch(
      (error: unknown) => {
        const why = toChatcliError(error).message;
        this.input.emit(
          ev("warning", {
            code: "memory_failed",
            message: `memory: compacted messages not queued: ${why}`,
          }),
        );
      },
    );
  }

  /** Starts `chatcli memory compact --if-due` detached when compaction is due; never waits for it. */
  async scheduleCompaction(): Promise<void> {
    // Compaction rewrites the store (and may call the LLM): only runs that may write start it.
    if (this.input.access !== "write" || !existsSync(memoryDir(this.input.env))) return;
    const [{ scheduleCompactionIfDue }, { openMemory }, spawn] = await Promise.all([
      import("../memory/compact.ts"),
      import("../memory/store.ts"),
      spawnSelfCompaction(this.input.ctx, this.input.env),
    ]);
    await scheduleCompactionIfDue(openMemory(this.options), spawn).catch(() => false);
  }
}

/**
 * The "spawn self" callback lib/memory is given: `chatcli memory compact --if-due`, detached, through
 * the one spawn door (lib/memory starts no process itself).
 */
export async function spawnSelfCompaction(
  ctx: Pick<Ctx, "env" | "selfArgv">,
  env: Env,
): Promise<() => void> {
  const [{ spawnDetachedSelf }, { withoutFileInjected }] = await Promise.all([
    import("../sandbox/spawn.ts"),
    import("../sandbox/env.ts"),
  ]);
  // chatcli itself honours BUN_OPTIONS (--preload FILE): a checkout's .env must not set it for the child
  return () =>
    spawnDetachedSelf(
      [...ctx.selfArgv, "memory", "compact", "--if-due"],
      withoutFileInjected(env, ctx.env),
    );
}

/**
 * The memory store's notices: warnings reach the envelope too (a quarantined file, facts dropped by
 * the threat scan, facts lost), progress (a migration) stays a stderr line.
 */
function memoryNotice(emit: Emit, line: string): void {
  if (/\bmigrated\b/.test(line)) {
    emit(note(line));
    return;
  }
  const code = /did not parse|is not a JSON/.test(line)
    ? "memory_quarantined"
    : /prompt injection|remote execution|not stored/.test(line)
      ? "memory_threat_dropped"
      : "memory_warning";
  emit(ev("warning", { code, message: line }));
}
