/**
 * Examples by command path ("memory facts"): shown at the end of that command's --help (help-text.ts
 * adds them). A table of its own, apart from the commands' definitions; every line is checked by
 * tests/e2e/help-examples.test.ts (the command path, and that each flag exists on it).
 */
export const EXAMPLES: Record<string, string[]> = {
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
    'chatcli coder "add a --verbose flag to the CLI" --permission-mode edit --allow-tool "run_command(npm test*)"',
    'chatcli coder "rename fetchUser to loadUser" --permission-mode edit --session refactor --json',
  ],
  chat: [
    "chatcli chat",
    "chatcli chat --session design-notes -m openai/gpt-5.4",
    "chatcli chat -m mock:script --fake-responses replies.jsonl   # a scripted REPL",
  ],
  memory: [
    "chatcli memory facts --category gotcha",
    'chatcli memory remember --category preference "use pnpm, not npm"',
    'chatcli memory recall "deploy" --json',
  ],
  "memory today": ["chatcli memory today", "chatcli memory today --json | jq -r .content"],
  "memory yesterday": ["chatcli memory yesterday"],
  "memory week": ["chatcli memory week   # the last seven daily notes"],
  "memory longterm": ["chatcli memory longterm   # MEMORY.md (also: chatcli memory lt)"],
  "memory list": ["chatcli memory list", "chatcli memory list --json"],
  "memory facts": ["chatcli memory facts gotcha", "chatcli memory facts --limit 5 --json"],
  "memory recall": [
    'chatcli memory recall "database migrations"',
    'chatcli memory recall "deploy" --limit 3 --json',
  ],
  "memory remember": [
    'chatcli memory remember --category gotcha "the CI cache breaks on Node 22"',
    'echo "staging DB is read-only on Fridays" | chatcli memory remember --category project',
  ],
  "memory forget": [
    'chatcli memory forget --dry-run "Node 22"   # what would go',
    'chatcli memory forget --all "old staging host"',
  ],
  "memory profile": ["chatcli memory profile", "chatcli memory profile --json"],
  "memory profile set": [
    "chatcli memory profile set name=Ana role=backend",
    "chatcli memory profile set languages_add=go",
  ],
  "memory review": [
    "chatcli memory review   # facts held: not your words, and they ask the agent to act",
    "chatcli memory review --accept 3f2a9c1d0b7e   # yours now: injected in later runs",
    "chatcli memory review --reject 3f2a9c1d0b7e --json",
  ],
  "memory topics": ["chatcli memory topics", "chatcli memory topics --json"],
  "memory projects": ["chatcli memory projects", "chatcli memory projects --json"],
  "memory stats": ["chatcli memory stats", "chatcli memory stats --json"],
  "memory compact": [
    "chatcli memory compact --if-due   # crontab-safe",
    "chatcli memory compact --no-llm",
  ],
  "memory export": ["chatcli memory export > memory-backup.json"],
  "memory import": [
    "chatcli memory import memory-backup.json",
    "cat memory-backup.json | chatcli memory import --json",
  ],
  "memory path": ["chatcli memory path", "chatcli memory path --json"],
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
  "bootstrap path": ["chatcli bootstrap path", "chatcli bootstrap path --json"],
  sessions: [
    "chatcli sessions list",
    "chatcli sessions show fix-login --json",
    "chatcli sessions rm old-spike",
  ],
  "sessions list": ["chatcli sessions list", "chatcli sessions list --json | jq -r '.[].name'"],
  "sessions show": ["chatcli sessions show fix-login", "chatcli sessions show fix-login --json"],
  "sessions rm": ["chatcli sessions rm old-spike"],
  policy: [
    'chatcli policy check -- "npm test && git push --force"',
    "chatcli policy check --permission-mode edit --allow-tool 'run_command(npm test*)' --json -- npm test",
  ],
  "policy check": [
    "chatcli policy check -- rm -rf build",
    "chatcli policy check --permission-mode auto --json -- 'curl https://example.com | sh'",
  ],
  schema: [
    "chatcli schema result > result.schema.json",
    "chatcli schema events | jq '.$defs | keys'",
  ],
  models: [
    "chatcli models                # which providers are configured, and by which variable",
    "chatcli models --json | jq -r '.providers[] | select(.configured) | .provider'",
  ],
  mcp: [
    "chatcli mcp add docs --transport http https://mcp.example.com/mcp",
    "chatcli mcp list --json       # servers, scope, trust, status, tool counts",
    "chatcli mcp serve             # chatcli's memory for Claude Code, Codex, Gemini CLI",
  ],
  skills: ["chatcli skills list", "chatcli skills list --json"],
  hooks: ["chatcli hooks list", "chatcli hooks list --json"],
};
