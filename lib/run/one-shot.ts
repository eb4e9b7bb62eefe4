import { showSystemContext } from "../bootstrap/show.ts";
import { detectWorkspaceRoot } from "../bootstrap/workspace.ts";
import type { Ctx } from "../core/ctx.ts";
import { ChatcliError, toChatcliError } from "../core/errors.ts";
import { composePrompt, readStdin } from "../core/input.ts";
import { configuredSecrets } from "../core/redact.ts";
import { loadSettings } from "../core/settings.ts";
import { costOf } from "../llm/cost.ts";
import { modelLabel, resolveModel } from "../llm/models.ts";
import { addUsage, type ChatMessage, emptyUsage, type SystemBlock } from "../llm/types.ts";
import { settle } from "../output/envelope.ts";
import type { Reporter } from "../output/reporter.ts";
import { runSignal } from "./abort.ts";
import { buildProviderChain } from "./provider.ts";

export interface AskOptions {
  prompt: string | undefined;
  model?: string;
  system?: string;
  maxTokens?: number;
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
}

/** `chatcli ask`: one answer, streamed; the envelope is filled on the reporter. Never throws. */
export async function runAsk(options: AskOptions, ctx: Ctx, reporter: Reporter): Promise<void> {
  const started = Date.now();
  const envelope = reporter.envelope;
  const stop = runSignal(ctx, options.timeoutMs);
  let apiMs = 0;
  try {
    const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
    const settings = await loadSettings(ctx, { workspaceRoot });
    reporter.addSecrets(configuredSecrets(settings.env));
    const ref = resolveModel(options.model, settings.env, settings.config.model);
    envelope.model = modelLabel(ref);
    const stdin = await readStdin(ctx.stdin, {
      hasPrompt: options.prompt !== undefined,
      noStdin: options.noStdin,
      firstByteTimeoutMs: options.stdinTimeoutMs,
      maxBytes: options.maxInputBytes,
      truncate: options.truncateInput,
    });
    for (const w of stdin.warnings) reporter.warn(w.code, w.message);
    const input = composePrompt(options.prompt, stdin);
    if (input === undefined) {
      throw new ChatcliError(
        "no_prompt",
        "no prompt: pass one as an argument or pipe it on stdin",
        {
          hint: 'chatcli ask "why did the build fail" < build.log',
        },
      );
    }
    const { context } = await showSystemContext(ctx, {
      mode: "ask",
      files: options.files ?? [],
      prompt: input,
      bare: options.bare,
    });
    for (const w of context.warnings) reporter.warn(w.code, w.message);
    envelope.bootstrap_files = context.files.map(({ name, path, scope, bytes }) => ({
      name,
      path,
      scope,
      bytes,
    }));
    const system: SystemBlock[] = [...context.blocks];
    if (options.system) {
      system.push({
        id: "user_system",
        text: `## Additional instructions\n\n${options.system}`,
        cache: false,
      });
    }
    const messages: ChatMessage[] = [{ role: "user", content: input }];
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
    reporter.event("turn.started", { turn: 1 });
    let text = "";
    let usage = emptyUsage();
    const apiStart = Date.now();
    try {
      for await (const event of provider.stream(
        { model: ref.model, system, messages, maxTokens: options.maxTokens },
        stop.signal,
      )) {
        if (event.type === "text") {
          text += event.text;
          reporter.text(event.text);
          if (reporter.stdoutClosed) break;
        } else if (event.type === "usage") {
          usage = addUsage(usage, event.usage);
        } else if (event.type === "done" && event.stop === "max_tokens") {
          reporter.warn(
            "max_tokens",
            "the answer was cut at the output token limit (--max-tokens)",
          );
        }
      }
    } finally {
      apiMs += Date.now() - apiStart;
      envelope.usage = usage;
      envelope.result = text;
      envelope.num_turns = 1;
    }
    reporter.endText();
    reporter.event("message.completed", { role: "assistant", text });
    reporter.event("turn.completed", { turn: 1, usage, cumulative_usage: usage });
    const cost = costOf(ref, usage);
    envelope.total_cost_usd = cost;
    if (cost === null) {
      reporter.warn(
        "unpriced_model",
        `no price known for ${modelLabel(ref)}; total_cost_usd is null`,
      );
    }
    const stopped = stop.stopError();
    if (stopped) reporter.fail(stopped.error, stopped.exitCode, { quiet: stopped.quiet });
    else settle(envelope, "completed");
  } catch (error) {
    reporter.endText();
    const stopped = stop.stopError();
    if (stopped) reporter.fail(stopped.error, stopped.exitCode, { quiet: stopped.quiet });
    else reporter.fail(toChatcliError(error));
  } finally {
    stop.dispose();
    envelope.duration_ms = Date.now() - started;
    envelope.duration_api_ms = apiMs;
  }
}
