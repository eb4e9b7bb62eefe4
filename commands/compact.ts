import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Command, Option } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { ChatcliError, EXIT, toChatcliError, UsageError } from "../lib/core/errors.ts";
import { releaseGarbage, releaseGarbageAfterTurn } from "../lib/core/heap.ts";
import { readStdin } from "../lib/core/input.ts";
import { configuredSecrets, redact, redactPieces } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import { type CompactLevel, type CompactResult, compactHistory } from "../lib/history/compact.ts";
import { parseConversation } from "../lib/history/formats.ts";
import type { Summarize } from "../lib/history/level2.ts";
import { compactionJson } from "../lib/history/progress.ts";
import { openSession } from "../lib/history/session.ts";
import { providerSummarizer } from "../lib/history/summarizer.ts";
import { contextWindow } from "../lib/llm/context-window.ts";
import { type ModelRef, resolveModel } from "../lib/llm/models.ts";
import { addUsage, emptyUsage } from "../lib/llm/types.ts";
import { ev } from "../lib/output/events.ts";
import { bareStart, RunOutput } from "../lib/output/sinks.ts";
import { completedPayload, phaseEvent } from "../lib/run/compaction.ts";
import { answeredBy, buildProviderChain } from "../lib/run/provider.ts";
import { outputFormatOf, outputFormatOptions, parsePositiveInt, type RunState } from "./_shared.ts";

interface CompactFlags {
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
  outputFormat?: string;
  json?: boolean;
  jsonl?: boolean;
}

/** Conversations larger than this are refused (the compact filter reads whole files). */
const MAX_INPUT_BYTES = 1024 * 1024 * 1024;

function parseRatio(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError("--ratio must be in (0, 1]");
  return n;
}

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
 * The conversation on stdin or in FILE. Its text is garbage once this returned: the caller collects
 * it (issue 23: held through compaction it was 1× the input more at the peak).
 */
async function readConversation(ctx: Ctx, file: string | undefined) {
  return parseConversation(await readInput(ctx, file));
}

/** `chatcli compact`: a filter that compacts a conversation in any supported format. */
export function compactCommand(ctx: Ctx, state: RunState) {
  const command = new Command("compact")
    .description(
      "compact a conversation (ChatCLI session/messages, OpenAI or Anthropic body) from stdin, FILE or --session",
    )
    .argument("[file]", "read the conversation from FILE instead of stdin (- = stdin)")
    .option("--session <name>", "compact a saved session in place")
    .option("--instruction <text>", "guided: what the summary must keep")
    .addOption(
      new Option("--level <n>", "highest level allowed: 1 trim, 2 summarise, 3 truncate")
        .choices(["1", "2", "3"])
        .default("3"),
    )
    .option("--no-llm", "levels 1 and 3 only (no model call)")
    .option("--budget <tokens>", "target size in tokens", parsePositiveInt("--budget"))
    .option(
      "--window <tokens>",
      "context window in tokens (with --ratio)",
      parsePositiveInt("--window"),
    )
    .option("--ratio <r>", "fraction of the window to aim for (default 0.5)", parseRatio)
    .option(
      "--keep <n>",
      "messages kept verbatim at the end (default 10, 4 with --instruction)",
      parsePositiveInt("--keep"),
    )
    .option("-m, --model <model>", "summariser model, provider/model")
    .addOption(
      new Option("--fake-responses <file>", "scripted responses for mock:script").hideHelp(),
    );
  for (const option of outputFormatOptions()) command.addOption(option);
  return command.action(async (file, flags) => {
    state.exitCode = await runCompact(ctx, file, flags as CompactFlags);
  });
}

async function runCompact(
  ctx: Ctx,
  file: string | undefined,
  flags: CompactFlags,
): Promise<number> {
  const started = performance.now();
  const format = outputFormatOf(flags);
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
      ? await openSession(ctx, { name: flags.session, strict: true })
      : undefined;
    if (session?.isNew) {
      throw new UsageError(`no session named ${JSON.stringify(flags.session)}`, {
        reason: "bad_input",
        hint: "list them with: chatcli sessions list",
      });
    }
    const conversation = session ? undefined : await readConversation(ctx, file);
    if (conversation) await releaseGarbageAfterTurn(); // its text: only the messages are needed now
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
      releaseGarbage();
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
    emit(
      ev("error", {
        code: failure.code,
        message: failure.message,
        retryable: failure.retryable,
        hint: failure.hint ?? null,
        exit_code: code,
        terminal_reason: failure.reason,
      }),
    );
  }
  output.finish(performance.now() - started);
  return code;
}
