import type { CommandUnknownOpts } from "@commander-js/extra-typings";

/**
 * Help that teaches: `chatcli --help` ends with examples, the variables that choose a model and the
 * exit codes; each command's `--help` with 2–3 examples (config and completion carry their own).
 */

/** The four lines at the top of the README. */
const TOP_EXAMPLES = `  cat build.log | chatcli ask "why did it fail"
  git diff | chatcli ask "review this" --json | jq -r .result
  chatcli agent "fix the failing tests" --json          # tool loop that never waits for a human in CI
  chatcli memory facts --category gotcha`;

export const ROOT_EXAMPLES = `
Examples:
${TOP_EXAMPLES}`;

/** After the bare-prompt rule (commands/typos.ts): model variables, exit codes. */
export const ROOT_REFERENCE = `Choosing a model: -m provider/model (openai/…, anthropic/…, ollama/…, openrouter/…, xai/…, mock:echo),
else these variables (environment, ./.env or CHATCLI_DOTENV, the "env" object of ~/.chatcli/config.json):
  LLM_PROVIDER=OPENAI|CLAUDEAI|OLLAMA|OPENROUTER|XAI   which provider
  OPENAI_API_KEY, OPENAI_MODEL, OPENAI_BASE_URL, OPENAI_API_URL
  ANTHROPIC_API_KEY, ANTHROPIC_MODEL, ANTHROPIC_BASE_URL
  OLLAMA_BASE_URL, OLLAMA_MODEL   OPENROUTER_API_KEY   XAI_API_KEY
  CHATCLI_FALLBACK_PROVIDERS=CLAUDEAI,openai/gpt-5.4   tried in order once retries run out
else "model" in config.json, else the first provider with a key. \`chatcli config\` shows which won.

Exit codes:
  0    success
  1    provider/API error after retries, internal error
  2    usage: bad flags, no prompt, input too large, binary input
  3    configuration or authentication
  4    --max-turns reached
  5    --max-budget-usd reached
  6    the permission policy blocked completion (--on-ask fail)
  7    stagnation (the model repeated the same tool calls)
  8    context overflow compaction could not fix
  9    rewind conflict
  124  --timeout
  130  SIGINT (Ctrl+C); the envelope is still printed
  143  SIGTERM; the envelope is still printed
  141  stdout closed (| head)

More: chatcli COMMAND --help, man chatcli, chatcli completion bash|zsh|fish
`;

/** Examples by command path ("memory facts"): shown at the end of that command's --help. */
const EXAMPLES: Record<string, string[]> = {
  ask: [
    'cat build.log | chatcli ask "why did it fail"',
    'git diff | chatcli ask -m anthropic/claude-sonnet-4-6 "review this" --json | jq -r .result',
    'chatcli ask --session triage -f src/app.ts "where is the retry logic?"',
  ],
  agent: [
    'chatcli agent "fix the failing tests" --permission-mode edit --allow-tool "run_command(npm test*)" --json',
    'chatcli agent "summarise the TODOs" --max-turns 10 --max-budget-usd 0.50 --timeout 5m',
    'chatcli agent -m mock:script --fake-responses replies.jsonl "task" --json   # a CI test without a model',
  ],
  coder: [
    'chatcli coder "add a --verbose flag to the CLI" --permission-mode edit',
    'chatcli coder "rename fetchUser to loadUser" --session refactor --json',
  ],
  chat: ["chatcli chat", "chatcli chat --session design-notes -m openai/gpt-5.4"],
  memory: [
    "chatcli memory facts --category gotcha",
    'chatcli memory remember --category preference "use pnpm, not npm"',
    'chatcli memory recall "deploy" --json',
  ],
  "memory facts": ["chatcli memory facts gotcha", "chatcli memory facts --limit 5 --json"],
  "memory recall": ['chatcli memory recall "database migrations"'],
  "memory remember": ['chatcli memory remember --category gotcha "the CI cache breaks on Node 22"'],
  compact: [
    "chatcli compact --session fix-login",
    "cat conversation.json | chatcli compact --budget 8000 --no-llm > smaller.json",
  ],
  rewind: [
    "chatcli rewind --session fix-login --list",
    "chatcli rewind --session fix-login --to 3 --both --dry-run",
  ],
  bootstrap: ['chatcli bootstrap show "a prompt"', "chatcli bootstrap path --json"],
  "bootstrap show": [
    "chatcli bootstrap show --mode agent",
    "chatcli bootstrap show -f README.md --json",
  ],
  sessions: [
    "chatcli sessions list",
    "chatcli sessions show fix-login --json",
    "chatcli sessions rm old-spike",
  ],
  mcp: [
    "chatcli mcp add docs --transport http https://mcp.example.com/mcp",
    "chatcli mcp list --json       # servers, scope, trust, status, tool counts",
    "chatcli mcp serve             # chatcli's memory for Claude Code, Codex, Gemini CLI",
  ],
  skills: ["chatcli skills list", "chatcli skills list --json"],
  hooks: ["chatcli hooks list", "chatcli hooks list --json"],
  models: [
    "chatcli models                # which providers are configured, and by which variable",
    "chatcli models --json | jq -r '.providers[] | select(.configured) | .provider'",
  ],
};

/** Adds the examples of `command` and its subcommands to their --help (path: the command's own). */
export function addExamples(command: CommandUnknownOpts, path: string[] = [command.name()]): void {
  const examples = EXAMPLES[path.join(" ")];
  if (examples) {
    command.addHelpText("after", `\nExamples:\n${examples.map((e) => `  ${e}`).join("\n")}\n`);
  }
  for (const sub of command.commands) addExamples(sub, [...path, sub.name()]);
}
