import { createTtyAsk } from "../agent/tty-ask.ts";
import { showSystemContext } from "../bootstrap/show.ts";
import { detectWorkspaceRoot } from "../bootstrap/workspace.ts";
import type { Ctx } from "../core/ctx.ts";
import { toChatcliError } from "../core/errors.ts";
import { readPromptInput } from "../core/input.ts";
import { configuredSecrets } from "../core/redact.ts";
import { loadSettings } from "../core/settings.ts";
import { CompactionGuard } from "../history/compact.ts";
import { costOf } from "../llm/cost.ts";
import { resolveEffort } from "../llm/effort.ts";
import { overflowReport } from "../llm/errors.ts";
import { modelLabel, resolveModel } from "../llm/models.ts";
import { addUsage, type ChatMessage, emptyUsage, type SystemBlock } from "../llm/types.ts";
import { settle } from "../output/envelope.ts";
import type { Reporter } from "../output/reporter.ts";
import { runSignal } from "./abort.ts";
import { compactForRequest } from "./compaction.ts";
import { defaultMemoryAccess, type MemoryAccess, RunMemory } from "./memory.ts";
import { answeredBy, buildProviderChain } from "./provider.ts";
import { partialOf, streamAnswer } from "./stream-answer.ts";

export interface AskOptions {
  prompt: string | undefined;
  model?: string;
  system?: string;
  maxTokens?: number;
  /** `--effort` (else CHATCLI_EFFORT); `--show-reasoning`. */
  effort?: string;
  showReasoning?: boolean;
  timeoutMs?: number;
  noStdin?: boolean;
  stdinTimeoutMs: number;
  maxInputBytes: number;
  truncateInput?: boolean;
  fakeResponses?: string;
  maxRetries?: number;
  /** `-f/--file` paths and globs attached to the cached system prompt. */
  files?: string[];
  /** `--bare`: no bootstrap files, rules or memory. */
  bare?: boolean;
  /** `--session NAME`: continue (or create) a saved conversation. */
  session?: string;
  /** `-c/--continue`: the latest session of this workspace. */
  continueLatest?: boolean;
  /** Read the session (--session/-c) but write nothing: no checkpoint, no save. */
  ephemeral?: boolean;
  /** `--no-auto-compact`. */
  noAutoCompact?: boolean;
  /** `--memory off|read|write` (default: write on a TTY, read in CI and pipes). */
  memory?: MemoryAccess;
  /** Both stdin and stdout are terminals and CI is unset. */
  interactive: boolean;
  /** `--trust-workspace`: the workspace's .chatcli/config.json and .env count in full. */
  trustWorkspace?: boolean;
}

/** `chatcli ask`: one answer, streamed; the envelope is filled on the reporter. Never throws. */
export async function runAsk(options: AskOptions, ctx: Ctx, reporter: Reporter): Promise<void> {
  const started = Date.now();
  const envelope = reporter.envelope;
  const stop = runSignal(ctx, options.timeoutMs);
  let usage = emptyUsage();
  /** SIGINT/SIGTERM mid-answer: save the session with the question and what arrived (CONTRACT §6). */
  let saveInterrupted: ((partial: string) => Promise<void>) | undefined;
  try {
    const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
    const settings = await loadSettings(ctx, {
      workspaceRoot,
      trustWorkspace: options.trustWorkspace,
      // on a terminal, an untrusted workspace with settings to ignore is asked about once
      askTrust: options.interactive ? createTtyAsk(ctx).trust : undefined,
    });
    for (const w of settings.warnings) reporter.warn(w.code, w.message);
    reporter.addSecrets(configuredSecrets(settings.redactEnv));
    const ref = resolveModel(options.model, settings.env, settings.config.model);
    envelope.model = modelLabel(ref);
    const effort = resolveEffort(options.effort, settings.env);
    const { text: input, warnings } = await readPromptInput(ctx.stdin, options.prompt, {
      noStdin: options.noStdin,
      firstByteTimeoutMs: options.stdinTimeoutMs,
      maxBytes: options.maxInputBytes,
      truncate: options.truncateInput,
      signal: stop.signal,
    });
    for (const w of warnings) reporter.warn(w.code, w.message);
    // ask keeps its conversation (so `ask -c` follows up, as `llm -c` and `mods -C`): --session
    // NAME, -c, or else an autosave session outside CI; --ephemeral keeps nothing.
    const { autosaveEnabled, openSession } = await import("../history/session.ts");
    const keep =
      options.ephemeral !== true &&
      (options.session !== undefined ||
        options.continueLatest === true ||
        autosaveEnabled(settings.env));
    const session = await openSession(
      { ...ctx, env: settings.env },
      {
        name: options.session,
        continueLatest: options.continueLatest,
        ephemeral: !keep,
        workspace: workspaceRoot,
      },
    );
    for (const w of session.warnings) reporter.warn(w.code, w.message);
    envelope.session_id = keep ? session.name : null;
    const access = options.bare
      ? "off"
      : (options.memory ?? defaultMemoryAccess(settings.env, options.interactive));
    const memory = new RunMemory({
      ctx,
      env: settings.env,
      workspace: workspaceRoot,
      access,
      reporter,
    });
    const { context, document } = await showSystemContext(ctx, {
      mode: "ask",
      env: settings.env,
      files: options.files ?? [],
      prompt: input,
      bare: options.bare,
      memory: async (q) =>
        q.memoryMode === "off" ? undefined : memory.prompt(input, "chat", q.memoryMode),
    });
    envelope.memory = {
      mode: access === "off" ? "off" : document.memory_mode,
      access,
      facts_loaded: memory.factsLoaded,
      facts_written: 0,
    };
    for (const w of context.warnings) reporter.warn(w.code, w.message);
    envelope.bootstrap_files = [
      ...context.files.map(({ name, path, scope, bytes }) => ({ name, path, scope, bytes })),
      ...document.attachments.map(({ name, path, bytes }) => ({
        name,
        path,
        scope: "attachment" as const,
        bytes,
      })),
    ];
    const system: SystemBlock[] = [...context.blocks];
    if (options.system) {
      system.push({
        id: "user_system",
        text: `## Additional instructions\n\n${options.system}`,
        cache: false,
      });
    }
    const provider = await buildProviderChain(ref, {
      env: settings.env,
      fetch: ctx.fetch,
      fakeResponsesPath: options.fakeResponses,
      maxRetries: options.maxRetries,
      reporter,
    });
    reporter.event("session.started", {
      schema_version: envelope.schema_version,
      command: envelope.command,
      model: envelope.model,
      cwd: ctx.cwd,
      workspace: workspaceRoot,
      permission_mode: null,
      tools: [],
      bootstrap_files: envelope.bootstrap_files,
      memory: envelope.memory,
      limits: { timeout_ms: options.timeoutMs ?? null, max_tokens: options.maxTokens ?? null },
    });
    // A checkpoint to rewind to; a fresh autosave has nothing before the question to go back to.
    const autosaved = options.session === undefined && !options.continueLatest && session.isNew;
    if (keep && !autosaved) {
      const record = await session.checkpoint(input);
      reporter.event("checkpoint.created", { id: record.id, messages: session.messages.length });
    }
    // A session's earlier turns, minus other modes' system messages (the system prompt is fresh).
    const guard = new CompactionGuard();
    const compaction = {
      ref,
      env: settings.env,
      provider,
      reporter,
      guard,
      signal: stop.signal,
      onUsage: (u: typeof usage) => {
        usage = addUsage(usage, u);
      },
    };
    let messages: ChatMessage[] = [
      ...session.messages.filter((m) => m.role !== "system"),
      { role: "user", content: input },
    ];
    if (!options.noAutoCompact) messages = await compactForRequest(messages, compaction);
    if (keep) {
      saveInterrupted = async (partial) => {
        const note = partial.trim()
          ? [{ role: "assistant" as const, content: `${partial}\n\n[answer interrupted]` }]
          : [];
        session.replaceTurns([...messages, ...note]);
        await session.save();
      };
    }
    reporter.event("turn.started", { turn: 1 });
    let answer: Awaited<ReturnType<typeof streamAnswer>> | undefined;
    try {
      answer = await streamAnswer(
        provider,
        {
          model: ref.model,
          system,
          messages,
          maxTokens: options.maxTokens,
          effort,
          showReasoning: options.showReasoning,
        },
        {
          reporter,
          signal: stop.signal,
          onOverflow: options.noAutoCompact
            ? undefined
            : async (request, error) => {
                messages = await compactForRequest(messages, {
                  ...compaction,
                  afterOverflowError: true,
                  overflow: overflowReport(error),
                });
                return { ...request, messages };
              },
        },
      );
    } finally {
      envelope.num_turns = 1;
      if (answer) envelope.duration_api_ms = answer.apiMs;
    }
    usage = addUsage(usage, answer.usage);
    envelope.usage = usage;
    // after a CHATCLI_FALLBACK_PROVIDERS fallback answered, name and price the model that did
    const answered = answeredBy(provider);
    envelope.model = answered.label;
    envelope.result = answer.text;
    reporter.endText();
    reporter.event("message.completed", { role: "assistant", text: answer.text });
    reporter.event("turn.completed", { turn: 1, usage: answer.usage, cumulative_usage: usage });
    const stopped = stop.stopError();
    if (stopped) await saveInterrupted?.(answer.text);
    if (!stopped && keep) {
      session.replaceTurns([...messages, { role: "assistant", content: answer.text }]);
      await session.save();
      const checkpoints = await session.listCheckpoints();
      envelope.checkpoints = { count: checkpoints.length, last: checkpoints.at(-1)?.id ?? null };
    }
    priceRun(reporter, answered, usage);
    if (!stopped && envelope.memory) {
      envelope.memory.facts_written = await memory.extract(
        [
          { role: "user", content: input },
          { role: "assistant", content: answer.text },
        ],
        {
          model: options.model,
          configModel: settings.config.model,
          feature: "run",
          isMock: ref.protocol === "mock",
        },
      );
      await memory.scheduleCompaction();
    }
    if (stopped) reporter.fail(stopped.error, stopped.exitCode, { quiet: stopped.quiet });
    else {
      if (!answer.text.trim())
        reporter.warn("empty_answer", 'the model returned an empty answer (exit 0, result "")');
      settle(envelope, "completed");
    }
  } catch (error) {
    reporter.endText();
    const partial = partialOf(error);
    if (partial) {
      envelope.result = partial.text || null; // nothing arrived: null, as agent (CONTRACT §2)
      envelope.usage = addUsage(usage, partial.usage);
      envelope.duration_api_ms = partial.apiMs;
    }
    const stopped = stop.stopError();
    if (stopped) {
      await saveInterrupted?.(partial?.text ?? "").catch((saveError: unknown) =>
        reporter.warn(
          "session_not_saved",
          `the interrupted session was not saved: ${toChatcliError(saveError).message}`,
        ),
      );
    }
    if (stopped) reporter.fail(stopped.error, stopped.exitCode, { quiet: stopped.quiet });
    else reporter.fail(toChatcliError(error));
  } finally {
    stop.dispose();
    envelope.duration_ms = Date.now() - started;
  }
}

function priceRun(
  reporter: Reporter,
  ref: Parameters<typeof costOf>[0],
  usage: ReturnType<typeof emptyUsage>,
): void {
  const cost = costOf(ref, usage);
  reporter.envelope.total_cost_usd = cost;
  if (cost === null) {
    reporter.warn(
      "unpriced_model",
      `no price known for ${ref.provider}/${ref.model}; total_cost_usd is null`,
    );
  }
}
