import type { Tool } from "../types.ts";
import { gitDiffTool, gitLogTool, gitStatusTool } from "./git.ts";
import { listDirectoryTool } from "./list-directory.ts";
import { memoryTool } from "./memory.ts";
import { patchFileTool } from "./patch-file.ts";
import { readFileTool } from "./read-file.ts";
import { runCommandTool } from "./run-command.ts";
import { runTestsTool } from "./run-tests.ts";
import { searchFilesTool } from "./search-files.ts";
import { webFetchTool } from "./web-fetch.ts";
import { writeFileTool } from "./write-file.ts";

const CODER: Tool[] = [
  readFileTool,
  writeFileTool,
  patchFileTool,
  listDirectoryTool,
  searchFilesTool,
  runCommandTool,
  gitStatusTool,
  gitDiffTool,
  gitLogTool,
  runTestsTool,
];

/** The tool set of a mode, sorted by name (stable bytes for the prompt cache). */
export function toolsFor(mode: "agent" | "coder", options: { memory?: boolean } = {}): Tool[] {
  const tools = mode === "coder" ? [...CODER] : [...CODER, webFetchTool];
  if (options.memory !== false) tools.push(memoryTool);
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
