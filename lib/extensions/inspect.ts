/**
 * What `chatcli mcp list|tools`, `skills list` and `hooks list` show: every configured extension
 * with its scope, source and whether it counts here (trust), in documents for --json.
 */
import type { Ctx, Env } from "../core/ctx.ts";
import { type HookConfig, loadHooks } from "./hooks/hooks.ts";
import { catalogOf } from "./mcp/catalog.ts";
import { expandServer, toolVisible } from "./mcp/config.ts";
import { loadMcpSources } from "./mcp/store.ts";
import { loadSkills } from "./skills/load.ts";

export interface ServerRow {
  name: string;
  transport: string;
  scope: string;
  source: string;
  enabled: boolean;
  trusted: boolean;
  status: "connected" | "failed" | "disabled" | "untrusted" | "not_checked";
  tools: number | null;
  error: string | null;
}

export interface InspectOptions {
  env: Env;
  workspaceRoot: string;
  trusted: boolean;
  mcpConfig?: readonly string[];
}

type Deps = Pick<Ctx, "cwd" | "fetch" | "version">;

/** Every server of every source (disabled and untrusted ones too); `connect` checks the rest. */
export async function listServers(
  ctx: Deps,
  o: InspectOptions,
  connect: boolean,
): Promise<{ rows: ServerRow[]; warnings: Array<{ code: string; message: string }> }> {
  const sources = await loadMcpSources({
    env: o.env,
    workspaceRoot: o.workspaceRoot,
    trusted: o.trusted,
    cwd: ctx.cwd,
    configFiles: o.mcpConfig,
  });
  const rows: ServerRow[] = [];
  const all = sources.servers; // disabled ones included (they are listed, never started)
  const checks = all.map(async (s): Promise<ServerRow> => {
    const base = {
      name: s.name,
      transport: s.transport,
      scope: s.scope,
      source: s.source,
      enabled: s.enabled,
      trusted: true,
      tools: null,
      error: null,
    };
    if (!s.enabled) return { ...base, status: "disabled" };
    if (!connect) return { ...base, status: "not_checked" };
    try {
      const { connectServer } = await import("./mcp/connect.ts");
      const conn = await connectServer(expandServer(s, o.env), {
        env: o.env,
        cwd: ctx.cwd,
        fetch: ctx.fetch,
        version: ctx.version,
      });
      const tools = conn.tools().filter((t) => toolVisible(s, t.name)).length;
      await conn.close();
      return { ...base, status: "connected", tools };
    } catch (error) {
      return { ...base, status: "failed", error: (error as Error).message };
    }
  });
  rows.push(...(await Promise.all(checks)));
  for (const u of sources.untrusted)
    rows.push({
      name: u.name,
      transport: u.transport,
      scope: u.scope,
      source: u.source,
      enabled: u.enabled,
      trusted: false,
      status: "untrusted",
      tools: null,
      error: null,
    });
  return {
    rows,
    warnings: sources.warnings.filter((w) => w.code !== "untrusted_workspace_setting"),
  };
}

/** One server's tools, as the model would see them. */
export async function serverTools(ctx: Deps, o: InspectOptions, name: string) {
  const sources = await loadMcpSources({
    env: o.env,
    workspaceRoot: o.workspaceRoot,
    trusted: o.trusted,
    cwd: ctx.cwd,
    configFiles: o.mcpConfig,
  });
  const server = sources.servers.find((s) => s.name === name);
  if (!server) {
    const untrusted = sources.untrusted.some((s) => s.name === name);
    return { server: undefined, untrusted, names: sources.servers.map((s) => s.name) };
  }
  const { connectServer } = await import("./mcp/connect.ts");
  const conn = await connectServer(expandServer(server, o.env), {
    env: o.env,
    cwd: ctx.cwd,
    fetch: ctx.fetch,
    version: ctx.version,
  });
  try {
    const visible = conn.tools().filter((t) => toolVisible(server, t.name));
    const entries = catalogOf([{ server: server.name, tools: visible }]);
    return {
      server,
      untrusted: false,
      names: [],
      tools: entries.map((e) => ({
        name: e.name,
        tool: e.tool,
        alias: e.alias ?? null,
        description: e.description,
        input_schema: e.inputSchema,
      })),
    };
  } finally {
    await conn.close();
  }
}

export async function listSkills(o: InspectOptions) {
  const { skills, warnings } = await loadSkills(o.env, o.workspaceRoot);
  return {
    warnings,
    rows: skills.map((s) => ({
      name: s.name,
      description: s.description,
      scope: s.scope,
      path: s.path,
      trusted: s.scope === "global" || o.trusted,
      triggers: s.triggers,
      paths: s.paths,
      allowed_tools: s.allowedTools,
      user_invocable: s.userInvocable,
      model_invocable: !s.disableModelInvocation,
      model: s.model ?? null,
      effort: s.effort ?? null,
      chars: s.body.length,
    })),
  };
}

export async function listHooks(o: InspectOptions) {
  const { hooks, untrusted, warnings } = await loadHooks(o.env, o.workspaceRoot, o.trusted);
  const row = (h: HookConfig, active: boolean) => ({
    name: h.name,
    event: h.event,
    type: h.type,
    command: h.command ?? null,
    url: h.url ?? null,
    timeout_ms: h.timeoutMs,
    enabled: h.enabled,
    tool_pattern: h.toolPattern ?? null,
    scope: h.scope,
    source: h.source,
    active: active && h.enabled,
  });
  return {
    warnings: warnings.filter((w) => w.code !== "untrusted_workspace_setting"),
    rows: [...hooks.map((h) => row(h, true)), ...untrusted.map((h) => row(h, false))],
  };
}
