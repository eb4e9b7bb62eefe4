/**
 * `openExtensions`: the real RunExtensions of one run — MCP servers (started on the first tools()
 * call, not before), skills and hooks, each read from the user's files and, when the workspace is
 * trusted, the workspace's. Reading the files is all it does up front.
 */
import type { Ctx, Env } from "../core/ctx.ts";
import { configuredSecrets } from "../core/redact.ts";
import { fireHooks, type HookConfig, loadHooks } from "./hooks/hooks.ts";
import { toolBudget } from "./mcp/catalog.ts";
import { McpManager } from "./mcp/manager.ts";
import { loadMcpSources } from "./mcp/store.ts";
import { SkillSet } from "./skills/activate.ts";
import { skillEffects } from "./skills/effects.ts";
import { loadSkills } from "./skills/load.ts";
import type { ExtensionTool, HookOutcome, RunExtensions } from "./types.ts";
import { noExtensions } from "./types.ts";

export interface ExtensionsOptions {
  /** The run's settings env (process env over .env over config.json). */
  env: Env;
  workspaceRoot: string;
  /** Whether the workspace's own files count (lib/core/trust.ts). */
  trusted: boolean;
  /** `--mcp-config FILE` (repeatable) and `--strict-mcp-config`. */
  mcpConfig?: readonly string[];
  strictMcpConfig?: boolean;
  /** `--bare`: no MCP servers, skills or hooks (only --mcp-config files still count). */
  bare?: boolean;
  /** Values never sent to a hook or an MCP server's logs (default: the configured secrets of env). */
  secrets?: readonly string[];
}

/** Opens one run's extensions (cheap: files are read, no server is started). */
export async function openExtensions(
  ctx: Pick<Ctx, "cwd" | "fetch" | "version" | "signal">,
  options: ExtensionsOptions,
): Promise<RunExtensions & { pids(): number[] }> {
  const { env, workspaceRoot, trusted } = options;
  const pending: Array<{ code: string; message: string }> = [];
  const warn = (code: string, message: string) => pending.push({ code, message });
  const bare = options.bare === true;
  const [sources, skillFiles, hookFiles] = await Promise.all([
    loadMcpSources({
      env,
      workspaceRoot,
      trusted,
      cwd: ctx.cwd,
      configFiles: options.mcpConfig,
      strict: options.strictMcpConfig || bare,
    }),
    bare ? { skills: [], warnings: [] } : loadSkills(env, workspaceRoot),
    bare
      ? { hooks: [] as HookConfig[], untrusted: [], warnings: [] }
      : loadHooks(env, workspaceRoot, trusted),
  ]);
  for (const w of [...sources.warnings, ...skillFiles.warnings, ...hookFiles.warnings])
    warn(w.code, w.message);
  const mcp = new McpManager({
    servers: sources.servers,
    untrusted: sources.untrusted,
    env,
    cwd: ctx.cwd,
    fetch: ctx.fetch,
    version: ctx.version,
    budget: toolBudget(env),
    warn,
  });
  const skills = new SkillSet(skillFiles.skills, { env, cwd: ctx.cwd, workspaceRoot, trusted });
  const hooks = hookFiles.hooks;
  const secrets = options.secrets ?? configuredSecrets(env);
  const none: HookOutcome = { blocked: false, ran: [], warnings: [] };
  const skillTool = skills.tool();
  return {
    ...noExtensions(),
    systemBlocks() {
      const blocks = [
        { id: "skills_index", text: skills.indexText() },
        { id: "mcp_servers", text: mcp.systemText() },
      ];
      return blocks.filter((b) => b.text);
    },
    async tools(): Promise<ExtensionTool[]> {
      const out = mcp.configured ? await mcp.tools() : [];
      return skillTool ? [skillTool, ...out] : out;
    },
    newTools: () => mcp.newTools(),
    contextFor(input, paths) {
      const blocks = skills.activate(input, paths);
      for (const w of skills.warnings.splice(0)) warn(w.code, w.message);
      return blocks;
    },
    skillEffects(current) {
      const fx = skillEffects(
        skills.activeSkills().map((a) => a.skill),
        (s) => skills.trustedSkill(s),
        current,
      );
      for (const w of fx.warnings) warn(w.code, w.message);
      const { warnings: _, ...rest } = fx;
      return rest;
    },
    async fire(event) {
      if (!hooks.length) return none;
      try {
        return await fireHooks(hooks, event, {
          env,
          fetch: ctx.fetch,
          signal: ctx.signal,
          secrets,
        });
      } catch (error) {
        return { ...none, warnings: [{ code: "hook_failed", message: (error as Error).message }] };
      }
    },
    servers: () =>
      mcp.servers().map(({ name, status, tools, scope, error }) => ({
        name,
        status,
        tools,
        scope,
        ...(error ? { error } : {}),
      })),
    warnings: () => {
      for (const w of skills.warnings.splice(0)) warn(w.code, w.message);
      return pending.splice(0);
    },
    close: () => mcp.close(),
    pids: () => mcp.pids(),
  };
}
