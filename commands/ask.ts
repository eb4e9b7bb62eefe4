import { Command, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { RunOutput } from "../lib/output/sinks.ts";
import type { ColorChoice } from "../lib/output/terminal.ts";
import type { RunSpec } from "../lib/run/spec.ts";
import {
  collect,
  EFFORT_CHOICES,
  EFFORT_HELP,
  FORMAT_CHOICES,
  isInteractive,
  outputFormatOf,
  parseAtLeastOne,
  parseDuration,
  parsePositiveInt,
  promptFromArgs,
  type RunState,
  runHelpFooter,
  SHOW_REASONING_HELP,
} from "./_shared.ts";
import { withColoredStderr } from "./color.ts";

/** `chatcli ask [PROMPT…]`: one answer; stdin is context or the prompt. */
export function askCommand(ctx: Ctx, state: RunState) {
  const command = new Command("ask")
    .description("one answer; stdin is context (logs, diffs) or the prompt")
    .argument("[prompt...]", "the question or instruction (`-` or none: read stdin)")
    .option(
      "-m, --model <provider/model>",
      "model, e.g. anthropic/claude-sonnet-4-6, openai/gpt-5.4, mock:echo",
    )
    .option("-s, --system <text>", "extra system instructions")
    .option(
      "--max-tokens <n>",
      "cap on output tokens (default: <PROVIDER>_MAX_TOKENS, else the model's)",
      parseAtLeastOne("--max-tokens"),
    )
    .option(
      "--timeout <duration>",
      "give up after this long (exit 124), e.g. 30s, 5m (default: none)",
      parseDuration("--timeout"),
    )
    .option("--no-stdin", "never read stdin")
    .option(
      "--stdin-timeout <duration>",
      "wait this long for the first byte of a piped stdin when a prompt is given (default 3s)",
      parseDuration("--stdin-timeout"),
    )
    .option(
      "--max-input-bytes <n>",
      "largest stdin accepted (default 8 MiB)",
      parsePositiveInt("--max-input-bytes"),
    )
    .option("--truncate-input", "cut stdin at --max-input-bytes instead of failing")
    .option(
      "-f, --file <path>",
      "attach a file or glob to the cached system context (repeatable)",
      collect,
      [] as string[],
    )
    .option("--bare", "no bootstrap files, path rules or memory")
    .option("--session <name>", "continue (or create) this saved conversation")
    .option("-c, --continue", "continue the latest session of this workspace")
    .option("--ephemeral", "write nothing (with --session or -c: read it, do not save)")
    .option(
      "--trust-workspace",
      "honour this workspace's .chatcli/config.json and .env in full (else only what tightens applies)",
    )
    .option("--no-auto-compact", "never compact the conversation automatically")
    .addOption(
      new Option(
        "--memory <access>",
        "memory: off, read, or write (extract facts after the answer) (default: write on a TTY, read in CI and pipes)",
      ).choices(["off", "read", "write"] as const),
    )
    .option("--no-bootstrap", "same as --bare")
    .addOption(
      new Option(
        "--color <when>",
        "colour the diagnostics on stderr: auto (a terminal), always, never; the answer is never coloured",
      ).choices(["auto", "always", "never"] as const satisfies readonly ColorChoice[]),
    )
    .addOption(new Option("--effort <level>", EFFORT_HELP).choices(EFFORT_CHOICES))
    .option("--show-reasoning", SHOW_REASONING_HELP)
    .option("--fake-responses <file>", "scripted replies (JSONL) for -m mock:script")
    .option(
      "--max-retries <n>",
      "retries per provider on 429/5xx/network errors (default 10 within the 30 s budget, or CHATCLI_MAX_RETRIES)",
      parsePositiveInt("--max-retries"),
    )
    .addOption(
      new Option("--output-format <format>", "text, json or stream-json (default text)").choices(
        FORMAT_CHOICES,
      ),
    )
    .option("--json", "same as --output-format json")
    .option("--jsonl", "same as --output-format stream-json")
    .addHelpText("after", runHelpFooter("ask"));
  return command.action(async (words, opts) => {
    const run = withColoredStderr(ctx, opts.color); // stderr's diagnostics; the answer stays plain
    const format = outputFormatOf(opts);
    const spec: RunSpec = {
      command: "ask",
      mode: "ask",
      input: {
        prompt: promptFromArgs(words),
        noStdin: opts.stdin === false,
        firstByteTimeoutMs: opts.stdinTimeout ?? 3000,
        maxBytes: opts.maxInputBytes ?? 8 * 1024 * 1024,
        truncate: opts.truncateInput === true,
      },
      model: opts.model,
      system: opts.system,
      maxTokens: opts.maxTokens,
      effort: opts.effort,
      showReasoning: opts.showReasoning === true,
      timeoutMs: opts.timeout,
      fakeResponses: opts.fakeResponses,
      maxRetries: opts.maxRetries,
      files: opts.file ?? [],
      bare: opts.bare === true || opts.bootstrap === false,
      session: {
        name: opts.session,
        continueLatest: opts.continue === true,
        ephemeral: opts.ephemeral === true,
      },
      trustWorkspace: opts.trustWorkspace === true,
      noAutoCompact: opts.autoCompact === false,
      memory: opts.memory,
      interactive: isInteractive(run),
      // text streams the answer to stdout, stream-json each delta: a broken reply is not asked again
      liveDeltas: format !== "json",
    };
    const output = new RunOutput(run, {
      format,
      command: "ask",
      streamText: true,
      secrets: configuredSecrets(run.env),
    });
    const { runHeadless } = await import("../lib/run/headless.ts");
    state.exitCode = await runHeadless(run, spec, output);
  });
}
