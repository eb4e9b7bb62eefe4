import type { SystemBlock } from "../llm/types.ts";

const AGENT = `You are chatcli's agent, working in the user's terminal on their machine.
Use the tools to inspect and change the workspace and to run commands until the task is done, then reply with a short final summary (no tool call).
- Read before you edit; prefer patch_file for small changes (its search text must match exactly once).
- Batch independent read-only calls in one turn. Do not repeat a call that already gave you the answer.
- A denied or failed call comes back as its result: adapt instead of retrying the same thing.
- Never run destructive commands (rm -rf, git reset --hard, force pushes) unless the task explicitly asks.`;

const CODER = `You are chatcli's coder: you change code in the user's workspace with the file tools.
Work in small verified steps: locate (search_files, list_directory), read (read_file with line ranges), edit (patch_file: search must match exactly once; write_file for new files), then verify (run_tests or run_command).
Batch independent reads in one turn. Keep edits minimal and in the project's style. When done, reply with a short summary of what changed and how it was verified (no tool call).`;

const TEXT_TOOLS = `If native tool calling is unavailable, call a tool by writing on its own line:
<tool_call name="TOOL" args='{"param":"value"}'/>`;

/**
 * The lean core system block of a mode (stable, cached). The text tool-call fallback is only
 * described where native tool calling may be missing (`textTools`: ollama's local models).
 */
export function corePrompt(
  mode: "agent" | "coder",
  options: { textTools?: boolean } = {},
): SystemBlock {
  const base = mode === "coder" ? CODER : AGENT;
  return {
    id: "core",
    text: options.textTools === false ? base : `${base}\n${TEXT_TOOLS}`,
    cache: true,
  };
}

/** Whether a provider's models may lack native tool calling (the text fallback is then described). */
export function needsTextTools(provider: string): boolean {
  return provider === "ollama";
}
