import { contextBlock, corePrompt } from "./prompts.ts";
import { toolsFor } from "./tools/registry.ts";

export interface FirstRequestSize {
  mode: "agent" | "coder";
  system_chars: number;
  tool_definition_chars: number;
  tools: number;
}

/** The size of the first request's fixed part (system prompt and tool definitions), for `npm run bench`. */
export function firstRequestSize(mode: "agent" | "coder", cwd = "/work/project"): FirstRequestSize {
  const system = [corePrompt(mode), contextBlock(cwd, cwd)];
  const tools = toolsFor(mode).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  }));
  return {
    mode,
    system_chars: system.map((b) => b.text).join("\n\n").length,
    tool_definition_chars: JSON.stringify(tools).length,
    tools: tools.length,
  };
}
