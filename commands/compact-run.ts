/**
 * `chatcli compact`'s run, without commander (commands/compact.ts is its adapter; commands/
 * fast-compact.ts calls it directly for the plainest forms). What only some runs need — a saved
 * session, stdin, the summariser and its provider chain — is loaded when they need it, so level 1
 * on a file loads none of it (issue 23: start-up is most of a 7 MB compaction).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { ChatcliError, EXIT, toChatcliError, UsageError } from "../lib/core/errors.ts";
import { releaseGarbage, releaseGarbageAfterTurn } from "../lib/core/heap.ts";
import { configuredSecrets, redact, redactPieces } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { type CompactLevel, type CompactResult, compactHistory } from "../lib/history/compact.ts";
import { parseConversation } from "../lib/history/formats.ts";
import type { Summarize } from "../lib/history/level2.ts";
import { compactionJson } from "../lib/history/progress.ts";
import { contextWindow } from "../lib/llm/context-window.ts";
import { type ModelRef, resolveModel } from "../lib/llm/models.ts";
import { addUsage, emptyUsage } from "../lib/llm/types.ts";
import { errorEvent, ev } from "../lib/output/events.ts";
import type { OutputFormat } from "../lib/output/reporter.ts";
import { bareStart, RunOutput } from "../lib/output/sinks.ts";
import { completedPayload, phaseEvent } from "../lib/run/compaction.ts";

export interface CompactFlags {
  session?: string;
  instruction?: string;
  level: string;
  llm: boolean;
  budget?: number;
  window?: number;
  ratio?: number;
  keep?: number;
  model?: string;
  fakeResponses?: string;
  /** Read by the caller (outputFormatOf), which passes the format in. */
  outputFormat?: string;
  json?: boolean;
  jsonl?: boolean;
}

/** Conversations larger than this are refused (the compact filter reads whole files). */
const MAX_INPUT_BYTES = 1024 * 1024 * 1024;
/**
 * From this size of input on, garbage is collected while compacting (lib/core/heap.ts): below it a
 * collection (1–3 ms) frees less than it costs — the text is under a megabyte (issue 23).
 */
const COLLECT_FROM_CHARS = 1 << 20;

async function readInput(ctx: Ctx, file: string | undefined): Promise<string> {
  if (file !== undefined && file !== "-") {
    try {
      return await readFile(resolve(ctx.cwd, file), "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`, {
        reason: "bad_input",
      });
    }
  }
  const { readStdin } = await import("../lib/core/input.ts");
  const read = await readStdin(ctx.stdin, {
    hasPrompt: false,
    giveUpOnSilentPipe: true,
    firstByteTimeoutMs: 3000,
    maxBytes: MAX_INPUT_BYTES,
  });
  if (read.text === undefined) {
    throw new UsageError("no conversation to compact: pipe one on stdin, or pass --session NAME", {
      reason: "no_prompt",
    });
  }
  return read.text;
}

/**
 * The conversation on stdin or in FILE, and its text's length. The text is garbage once this
 * returned: the caller collects it (issue 23: held through compaction it was 1× the input more at
 * the peak).
 */
async function readConversation(ctx: Ctx, file: string | undefined) {
  const text = await readInput(ctx, file);
  return { conversation: parseConversation(text), chars: text.length };
}

export async function runCompact(
  ctx: Ctx,
  file: string | undefined,
  flags: CompactFlags,
  format: OutputFormat,
): Promise<number> {
  const started = performance.now();
  // the one workspace-root rule of every run: the workspace's config, from anywhere inside it
  const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
  const settings = await loadSettings(ctx, { workspaceRoot });
  const env = settings.env;
  const output = new RunOutput(ctx, {
    format,
    command: "compact",
    streamText: false,
    secrets: configuredSecrets(settings.redactEnv),
    progress: { phasePrefix: "  │ ", reportEveryCompaction: true },
  });
  const emit = output.emit;
  let code: number = EXIT.ok;
  try {
    const start = bareStart("compact", ctx.version, ctx.cwd);
    emit({ ...start, session_id: flags.session ?? null, workspace: workspaceRoot });
    for (const w of settings.warnings) emit(ev("warning", w));
    const instruction = flags.instruction?.trim() || undefined;
    if (instruction && !flags.llm)
      throw new UsageError("--instruction needs an LLM; drop --no-llm");
    const maxLevel = Number(flags.level) as CompactLevel;
    if (instruction && maxLevel < 2) throw new UsageError("--instruction needs --level 2 or 3");
    let ref: ModelRef | undefined;
    let refError: unknown;
    try {
      ref = resolveModel(flags.model, env, settings.config.model);
    } catch (error) {
      refError = error;
      if (instruction || flags.model) throw error;
    }
    const window =
      flags.window ??
      (ref ? contextWindow(ref, env) : contextWindow({ provider: "", model: "" }, env));
    const budget = flags.budget ?? Math.floor(window * (flags.ratio ?? 0.5));
    let calls = 0;
    let usage = emptyUsage();
    const summarize: Summarize | undefined =
      flags.llm && maxLevel >= 2
        ? async (prompt, signal) => {
            if (!ref) throw refError;
            const [{ buildProviderChain, answeredBy }, { providerSummarizer }] = await Promise.all([
              import("../lib/run/provider.ts"),
              import("../lib/history/summarizer.ts"),
            ]);
            // the one provider chain: retries, CHATCLI_FALLBACK_PROVIDERS, idle timeout, events
            const provider = await buildProviderChain(ref, {
              env,
              fetch: ctx.fetch,
              emit,
              ...(flags.fakeResponses
                ? { fakeResponsesPath: resolve(ctx.cwd, flags.fakeResponses) }
                : {}),
            });
            const turn = ++calls;
            emit(ev("turn.started", { turn, parent_id: null }));
            const run = providerSummarizer(provider, ref.model, (u, ms) => {
              usage = addUsage(usage, u);
              emit(
                ev("turn.completed", {
                  turn,
                  usage: u,
                  cumulative_usage: usage,
                  cost_usd: null,
                  cumulative_cost_usd: null,
                  duration_api_ms: Math.round(ms),
                  model: answeredBy(provider).label,
                  parent_id: null,
                }),
              );
            });
            return run(prompt, signal);
          }
        : undefined;

    if (flags.session && file !== undefined) {
      throw new UsageError("give either FILE or --session, not both");
    }
    const session = flags.session
      ? await (await import("../lib/history/session.ts")).openSession(ctx, {
          name: flags.session,
          strict: true,
        })
      : undefined;
    if (session?.isNew) {
      throw new UsageError(`no session named ${JSON.stringify(flags.session)}`, {
        reason: "bad_input",
        hint: "list them with: chatcli sessions list",
      });
    }
    const read = session ? undefined : await readConversation(ctx, file);
    const conversation = read?.conversation;
    const collect = (read?.chars ?? 0) >= COLLECT_FROM_CHARS;
    if (collect) await releaseGarbageAfterTurn(); // its text: only the messages are needed now
    const messages = session ? session.messages : (conversation?.messages ?? []);
    emit(
      ev("compaction.started", {
        trigger: "command",
        messages: messages.length,
        tokens: null,
        budget_tokens: budget,
      }),
    );
    const result: CompactResult = await compactHistory(messages, {
      budgetTokens: budget,
      ...(flags.keep !== undefined ? { keepLast: flags.keep } : {}),
      ...(instruction ? { instruction } : {}),
      maxLevel,
      ...(summarize ? { summarize } : {}),
      summarizerWindowTokens: ref ? contextWindow(ref, env) : 128_000,
      signal: ctx.signal,
      onPhase: (phase, info) => emit(phaseEvent(phase, info)),
    });
    if (result.status === "cancelled") {
      throw new ChatcliError("cancelled", "compaction cancelled; nothing was changed");
    }
    if (result.summaryError)
      emit(
        ev("warning", {
          code: "summary_failed",
          message: `level 2 failed (${result.summaryError}); used level 3`,
        }),
      );
    if (!result.underBudget) {
      if (maxLevel === 3) {
        throw new ChatcliError(
          "context_overflow",
          `cannot compact below ${budget} tokens (got ~${result.after.tokens}); nothing was written`,
          { hint: "raise --budget, or lower --keep" },
        );
      }
      emit(
        ev("warning", {
          code: "over_budget",
          message: `still ~${result.after.tokens} tokens, over the budget of ${budget} (--level ${maxLevel})`,
        }),
      );
    }
    const json = compactionJson(result, { format: conversation?.format ?? "chatcli-session" });
    emit(ev("compaction.completed", completedPayload(json)));
    if (session) {
      if (result.status === "compacted") {
        await session.checkpoint("(before compact)");
        session.replaceMessages(result.messages);
        await session.save();
      }
    } else if (conversation && format === "text") {
      // Streamed message by message, never held whole (issue 23); the same bytes as below.
      if (collect) releaseGarbage();
      let written = 0;
      for (const chunk of redactPieces(
        conversation.parts(result.messages),
        configuredSecrets(env),
      )) {
        output.writeText(chunk);
        written += chunk.length;
        if (written >= 4 << 20) {
          written = 0;
          releaseGarbage(); // the pieces written so far
        }
      }
    } else if (conversation) {
      // The conversation is JSON like the envelope: secrets redacted (CONTRACT §9).
      const text = redact(conversation.render(result.messages), configuredSecrets(env));
      emit(
        ev("message.completed", {
          turn: calls,
          role: "assistant",
          text,
          tool_calls: [],
          parent_id: null,
        }),
      );
    }
  } catch (error) {
    const failure = toChatcliError(error);
    code =
      failure.reason === "cancelled" && ctx.signalName() === "SIGTERM" ? 143 : failure.exitCode;
    emit(errorEvent(failure, code, failure.reason));
  }
  output.finish(performance.now() - started);
  return code;
}
