import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  llmProviderValues,
  modelSpecExamples,
  providerHelpLines,
} from "../lib/llm/provider-list.ts";
import { EXAMPLES } from "./examples.ts";

/**
 * Help that teaches: `chatcli --help` ends with examples, the variables that choose a model and the
 * exit codes; each command's `--help` with 2–3 examples (config and completion carry their own).
 */

/** The four lines at the top of the README. */
const TOP_EXAMPLES = `  cat build.log | chatcli ask "why did it fail"
  git diff | chatcli ask "review this" --json | jq -r .result
  chatcli agent "fix the failing tests" --permission-mode edit --allow-tool 'run_command(npm test*)' --json
  chatcli memory facts --category gotcha`;

export const ROOT_EXAMPLES = `
Examples:
${TOP_EXAMPLES}`;

/** After the bare-prompt rule (commands/typos.ts): model variables (from lib/llm's table), exit codes. */
export const ROOT_REFERENCE = `Choosing a model: -m provider/model (${modelSpecExamples()}),
else LLM_PROVIDER=${llmProviderValues()}
and the provider's variables — from the environment, the "env" object of ~/.chatcli/config.json, or a
.env file (CHATCLI_DOTENV=FILE, or ./.env in a trusted workspace):
${providerHelpLines().join("\n")}
  CHATCLI_FALLBACK_PROVIDERS=CLAUDEAI,openai/gpt-5.4   tried in order once retries run out
else "model" in config.json, else the first provider configured. \`chatcli config\` shows which won;
\`chatcli models\` lists every provider and model.

Exit codes:
  0    success
  1    provider/API error after retries, internal error
  2    usage: bad flags, no prompt, input too large, binary input
  3    configuration or authentication
  4    --max-turns reached
  5    --max-budget-usd reached
  6    the permission policy blocked completion (--on-ask fail), or the run could do none of
       what it tried (blocked: every edit and command denied; tools_unavailable: no sandbox/network)
  7    stagnation (the model repeated the same tool calls)
  8    context overflow compaction could not fix
  9    rewind conflict
  124  --timeout
  130  SIGINT (Ctrl+C); the envelope is still printed
  143  SIGTERM; the envelope is still printed
  141  stdout closed (| head)

More: chatcli COMMAND --help, man chatcli, chatcli completion bash|zsh|fish
`;

/** Adds the examples of `command` and its subcommands to their --help (path: the command's own). */
export function addExamples(command: CommandUnknownOpts, path: string[] = [command.name()]): void {
  const examples = EXAMPLES[path.join(" ")];
  if (examples) {
    command.addHelpText("after", `\nExamples:\n${examples.map((e) => `  ${e}`).join("\n")}\n`);
  }
  for (const sub of command.commands) addExamples(sub, [...path, sub.name()]);
}
