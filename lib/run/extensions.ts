/**
 * The one place a run gets its extensions (MCP servers, skills, hooks). Until lib/extensions lands,
 * every run has none; when it does, this file opens the real ones (one line).
 */
import type { Ctx, Env } from "../core/ctx.ts";
import { noExtensions, type RunExtensions } from "../extensions/types.ts";

export interface ExtensionsInput {
  ctx: Pick<Ctx, "cwd" | "fetch">;
  env: Env;
  workspaceRoot: string;
  /** Whether the workspace's own files (.mcp.json, its hooks and skills) count. */
  trusted: boolean;
  /** `--bare`: none at all. */
  bare: boolean;
}

/** The extensions of one run (lazily started: a run that offers no tools starts no server). */
export async function openExtensions(_input: ExtensionsInput): Promise<RunExtensions> {
  return noExtensions();
}
