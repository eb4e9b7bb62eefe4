import type { Env } from "../core/ctx.ts";

/** What kind of action a tool performs; decides the permission column (CONTRACT §5). */
export type ToolKind = "read" | "edit" | "shell" | "network" | "memory";

/** The injected memory store (lib/memory provides the real one). Each method returns text for the model. */
export interface MemoryBackend {
  remember(content: string, category?: string): Promise<string>;
  profile(fields: Record<string, string>): Promise<string>;
  forget(match: string): Promise<string>;
  recall(query?: string): Promise<string>;
}

/** Everything a tool may touch: no globals, only this. */
export interface ToolContext {
  workspaceRoot: string;
  cwd: string;
  env: Env;
  signal: AbortSignal;
  fetch: typeof fetch;
  now: () => Date;
  /** Session scratch dir for web_fetch auto-save (else CHATCLI_AGENT_TMPDIR, else the OS temp dir). */
  scratchDir?: string;
  memory?: MemoryBackend;
  /** `--memory` mode: off disables the tool, read allows only recall. */
  memoryMode?: "off" | "read" | "write";
  /** Called before a file is created or modified (checkpoint snapshot). */
  beforeFileChange?: (absPath: string) => Promise<void> | void;
}

export interface FileChange {
  /** Absolute path. */
  path: string;
  change: "created" | "modified" | "deleted";
}

/** What a tool returns; `isError` results go back to the model as errors it can fix. */
export interface ToolOutcome {
  output: string;
  isError?: boolean;
  exitCode?: number | null;
  /** Short text for the stderr line (`exit 1`, `42 lines`). */
  summary?: string;
  filesChanged?: FileChange[];
}

export type JsonSchema = Record<string, unknown>;

/** A tool defined as data: the model sees name, description and schema; the loop calls execute. */
export interface Tool {
  name: string;
  description: string;
  input_schema: JsonSchema;
  kind: ToolKind;
  /** The text permission rules and progress lines see: a path, a command, a URL. */
  subject(args: Record<string, unknown>): string;
  /** Paths (relative or absolute) an edit tool writes, for the workspace check. */
  writes?(args: Record<string, unknown>): string[];
  /** Extra argument checks after the schema (returns an error message for the model). */
  validate?(args: Record<string, unknown>): string | undefined;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}
