import type { Env } from "../../core/ctx.ts";
import { type PermissionMode, parseRule } from "../../policy/permissions.ts";
import type { Tool } from "../types.ts";
import { gitDiffTool, gitLogTool, gitStatusTool } from "./git.ts";
import { listDirectoryTool } from "./list-directory.ts";
import { memoryTool } from "./memory.ts";
import { multipatchTool } from "./multipatch.ts";
import { patchFileTool } from "./patch-file.ts";
import { readFileTool } from "./read-file.ts";
import { runCommandTool } from "./run-command.ts";
import { runTestsTool } from "./run-tests.ts";
import { searchFilesTool } from "./search-files.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTools } from "./web-search.ts";
import { writeFileTool } from "./write-file.ts";

const CODER: Tool[] = [
  readFileTool,
  writeFileTool,
  patchFileTool,
  multipatchTool,
  listDirectoryTool,
  searchFilesTool,
  runCommandTool,
  gitStatusTool,
  gitDiffTool,
  gitLogTool,
  runTestsTool,
];

/** The tool set of a mode, sorted by name (stable bytes for the prompt cache). */
export function toolsFor(
  mode: "agent" | "coder",
  options: { memory?: boolean; env?: Env } = {},
): Tool[] {
  // web_search only where a search backend is configured (lib/agent/tools/web-search.ts)
  const web = [webFetchTool, ...webSearchTools(options.env ?? {})];
  const tools = mode === "coder" ? [...CODER] : [...CODER, ...web];
  if (options.memory !== false) tools.push(memoryTool);
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What decides whether a tool could ever be allowed in a run. */
export interface OfferPolicy {
  mode: PermissionMode;
  allow: readonly string[];
  deny: readonly string[];
  /** A person can answer an ask (a TTY, or an injected answerer). */
  attended: boolean;
}

/**
 * The tools worth offering: when no human can approve, a read-only run never allows an edit, so
 * write_file, patch_file and multipatch are not offered unless an allow rule names them; a tool denied by a
 * bare deny rule is never offered. Fewer definitions, a leaner first request.
 */
export function offeredTools(tools: readonly Tool[], policy: OfferPolicy): Tool[] {
  const allow = policy.allow.map(parseRule).filter((r) => r !== undefined);
  const deny = policy.deny.map(parseRule).filter((r) => r !== undefined);
  return tools.filter((tool) => {
    if (deny.some((r) => r.tool.test(tool.name) && (r.arg === undefined || /^\**$/.test(r.arg))))
      return false;
    if (tool.kind !== "edit" || policy.attended || policy.mode !== "read-only") return true;
    return allow.some((r) => r.tool.test(tool.name));
  });
}
