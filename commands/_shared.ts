import { type CommandUnknownOpts, Help, Option } from "@commander-js/extra-typings";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { llmProviderValues, providerHelpLines } from "../lib/llm/provider-list.ts";
import type { OutputFormat } from "../lib/output/reporter.ts";
import { stripControl } from "../lib/output/terminal.ts";

/** Mutable result of one CLI run; commands set the exit code here (only main.ts touches process). */
export interface RunState {
  exitCode: number;
}

export const FORMAT_CHOICES = ["text", "json", "stream-json"] as const;

/** `--effort` levels (lib/llm/effort.ts maps them per provider). */
export const EFFORT_CHOICES = ["low", "medium", "high", "max"] as const;
export const EFFORT_HELP =
  "reasoning effort: low, medium, high or max (default: CHATCLI_EFFORT, else the model's own)";
export const SHOW_REASONING_HELP =
  "stream-json: emit the model's reasoning as reasoning.delta events (it never joins the answer)";

/**
 * The three output-format flags as Option objects. Note: adding them through addOption loses
 * extra-typings' inference; commands declare them inline (see ask.ts) to keep opts typed.
 */
export function outputFormatOptions() {
  return [
    new Option("--output-format <format>", "text, json or stream-json").choices([
      "text",
      "json",
      "stream-json",
    ] as const),
    new Option("--json", "same as --output-format json"),
    new Option("--jsonl", "same as --output-format stream-json"),
  ] as const;
}

/** Resolves the output format from the flags; only flags choose it (CONTRACT §2). */
export function outputFormatOf(opts: {
  outputFormat?: string;
  json?: boolean;
  jsonl?: boolean;
}): OutputFormat {
  const picked = [
    opts.outputFormat as OutputFormat | undefined,
    opts.json ? "json" : undefined,
    opts.jsonl ? "stream-json" : undefined,
  ].filter((v): v is OutputFormat => v !== undefined);
  const distinct = [...new Set(picked)];
  if (distinct.length > 1) {
    throw new UsageError(`conflicting output formats: ${distinct.join(", ")}`);
  }
  return distinct[0] ?? "text";
}

/** Parses an integer ≥ 1 (a cap where 0 would make every request fail, e.g. --max-tokens). */
export function parseAtLeastOne(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number ≥ 1`);
    return n;
  };
}

/** Parses a positive integer flag value (for commander's argParser). */
export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number`);
    return n;
  };
}

/** Parses a duration: `30`, `30s`, `500ms`, `5m`, `1h` → milliseconds. */
export function parseDuration(name: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
    if (!m) throw new UsageError(`${name} must be a duration like 30s, 500ms or 5m`);
    const n = Number(m[1]);
    const unit = m[2] ?? "s";
    const ms =
      unit === "ms" ? n : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n * 3_600_000;
    if (ms <= 0) throw new UsageError(`${name} must be greater than zero`);
    return ms;
  };
}

/** Prompt words joined; `-` (or nothing) means "read it from stdin". */
export function promptFromArgs(words: readonly string[]): string | undefined {
  if (words.length === 0) return undefined;
  if (words.length === 1 && words[0] === "-") return undefined;
  return words.join(" ");
}

/** Whether this run may talk to a human: stdin and stdout both TTYs and CI unset. */
export function isInteractive(ctx: Ctx): boolean {
  return ctx.stdin.kind === "tty" && ctx.stdout.isTTY && !ctx.env["CI"];
}

/** commander argParser for repeatable options: `-f a -f b` → ["a", "b"]. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Applies the in-process settings to a command tree (addCommand does not inherit them). */
export function configureTree(command: CommandUnknownOpts, ctx: Ctx): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => {
        ctx.stdout.write(text);
      },
      writeErr: (text) => {
        ctx.stderr.write(stripControl(text)); // it may quote what was typed
      },
      // parse errors are printed by runCli in chatcli's one style (commands/help-route.ts)
      outputError: () => {},
    })
    .configureHelp({
      // a repeatable flag's [] start value is not a default worth showing
      optionDescription(option) {
        return Help.prototype.optionDescription.call(this, option).replace(" (default: [])", "");
      },
    });
  for (const sub of command.commands) configureTree(sub, ctx);
}

/** The candidate within edit distance 2 of `word` (commander's suggestion rule), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = editDistance(word, name);
    if (d <= 2 && d < word.length && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * Document commands (memory, sessions) take `--json`; scripts that pass `--output-format json` or
 * `--jsonl` to every command get the same (a document is one line either way). Adds the flags to every
 * command of the tree that has --json, before parsing.
 */
export function acceptOutputFormat(command: CommandUnknownOpts): void {
  for (const sub of command.commands) acceptOutputFormat(sub);
  const has = (flag: string) => command.options.some((o) => o.long === flag);
  if (!has("--json") || has("--output-format")) return;
  command
    .addOption(
      new Option("--output-format <format>", "text, json or stream-json (same as --json)").choices(
        FORMAT_CHOICES,
      ),
    )
    .addOption(new Option("--jsonl", "same as --json here (one document)"))
    .hook("preAction", (self) => {
      const format = self.getOptionValue("outputFormat");
      const jsonl = self.getOptionValue("jsonl") === true;
      if (format === "json" || format === "stream-json" || jsonl) self.setOptionValue("json", true);
    });
}

/** The `--help` footer of ask/agent/coder: what a script needs besides the flags. */
export function runHelpFooter(command: "ask" | "agent" | "coder"): string {
  const tools =
    command === "ask"
      ? ""
      : "\n  4 --max-turns   5 --max-budget-usd   6 --on-ask fail, or every edit and command denied\n  (blocked) or unable to run for want of a sandbox or network (tools_unavailable)   7 stagnation";
  return `
Model selection (when -m is not given), from the environment, the "env" object of
~/.chatcli/config.json, or a .env file (CHATCLI_DOTENV=FILE, or ./.env in a trusted workspace):
  LLM_PROVIDER=${llmProviderValues()}
${providerHelpLines().join("\n")}
  OPENAI_API_URL (a full chat-completions URL), OPENAI_BASE_URL, OPENAI_USE_RESPONSES,
  <PROVIDER>_BASE_URL … (chatcli models lists every provider's variables and models)
  OPENAI_MAX_TOKENS, ANTHROPIC_MAX_TOKENS, OLLAMA_MAX_TOKENS, … (output cap without --max-tokens)
  CHATCLI_EFFORT=low|medium|high|max      reasoning effort without --effort
  CHATCLI_FALLBACK_PROVIDERS=CLAUDEAI,openai/gpt-5.4   tried in order once retries run out
  CHATCLI_MAX_RETRIES=4                   retries per provider on 429/5xx/network errors
  CHATCLI_RETRY_MAX_MS=30000              retry budget per provider; a longer retry-after gives up
  CHATCLI_STREAM_IDLE_TIMEOUT_MS=120000   a stream silent this long fails (a stall)

stdout carries only the answer (text) or the result envelope (--json, last line of stream-json);
progress, warnings and errors go to stderr.

Exit codes:
  0 ok   1 provider/API error after retries   2 usage or input   3 config or auth${tools}
  8 context overflow compaction could not fix
  124 --timeout   130/143 SIGINT/SIGTERM   141 stdout closed
`;
}
