/**
 * Secrets chatcli knows, echoed back by a steered model (in its answer, a tool argument, a fact it
 * asks to remember): what chatcli itself writes — stdout in each format, the progress on stderr,
 * the saved session, the memory files — must not carry them.
 */
export const SOURCES = [
  "process-env-token",
  "provider-api-key",
  "workspace-dotenv-ignored",
  "user-config-env-secret",
] as const;
export const TRANSCRIPT_SINKS = [
  "answer.text",
  "answer.json",
  "answer.jsonl",
  "progress.stderr",
  "session-file",
  "memory-file",
] as const;

export const transcriptIds = () =>
  SOURCES.flatMap((s) => TRANSCRIPT_SINKS.map((k) => `transcript.${s}.${k}`));
