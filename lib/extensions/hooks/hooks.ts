/**
 * Hooks in the Go ChatCLI's format: `hooks.json` = `{"hooks": [{name, event, type: "command"|"http",
 * command, url, timeout (ms, default 10,000), enabled (default true), toolPattern}]}`, from
 * `~/.chatcli/hooks.json` and — only when the workspace is trusted — `<workspace>/.chatcli/hooks.json`
 * (run after the global ones, as in Go).
 *
 * A command hook runs `sh -c COMMAND` with the event JSON on stdin (Go's fields) and
 * CHATCLI_HOOK_EVENT / CHATCLI_HOOK_TOOL / CHATCLI_HOOK_SESSION in a core environment (no provider
 * key); an http hook gets the JSON POSTed. For PreToolUse, exit 2 (or HTTP 403) blocks the tool, with
 * the hook's stderr (or the response body) as the reason. A hook that times out or crashes is a
 * warning, never a failed run.
 */
import { join } from "node:path";
import { readWorkspaceText } from "../../core/confined.ts";
import type { Env } from "../../core/ctx.ts";
import { readTextIfExists } from "../../core/fs.ts";
import { chatcliHome } from "../../core/paths.ts";
import { redact } from "../../core/redact.ts";
import { runUserProgram } from "../../sandbox/spawn.ts";
import { coreEnv } from "../mcp/env.ts";
import type { HookEvent, HookEventName, HookOutcome } from "../types.ts";

export const HOOK_EVENTS: readonly HookEventName[] = [
  "SessionStart",
  "SessionEnd",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "PreCompact",
  "PostCompact",
  "Notification",
];

export interface HookConfig {
  name: string;
  event: HookEventName;
  type: "command" | "http";
  command?: string;
  url?: string;
  timeoutMs: number;
  enabled: boolean;
  toolPattern?: string;
  scope: "global" | "workspace";
  source: string;
}

type Warning = { code: string; message: string };

function parseHooks(doc: unknown, source: string, scope: HookConfig["scope"], warnings: Warning[]) {
  const out: HookConfig[] = [];
  const list = (doc as { hooks?: unknown } | null)?.hooks;
  if (!Array.isArray(list)) {
    warnings.push({ code: "hooks_config_invalid", message: `${source}: no "hooks" list` });
    return out;
  }
  for (const [i, raw] of list.entries()) {
    const h = (raw ?? {}) as Record<string, unknown>;
    const name = typeof h["name"] === "string" && h["name"] ? h["name"] : `hook ${i + 1}`;
    const event = h["event"] as HookEventName;
    const type = h["type"];
    const problem = !HOOK_EVENTS.includes(event)
      ? `unknown event ${JSON.stringify(h["event"])}`
      : type !== "command" && type !== "http"
        ? `unknown type ${JSON.stringify(type)}`
        : type === "command" && (typeof h["command"] !== "string" || !h["command"].trim())
          ? "a command hook needs a command"
          : type === "http" && (typeof h["url"] !== "string" || !/^https?:\/\//i.test(h["url"]))
            ? "an http hook needs an http(s) url"
            : undefined;
    if (problem) {
      warnings.push({
        code: "hooks_config_invalid",
        message: `${source}: ${name}: ${problem}; skipped`,
      });
      continue;
    }
    const timeout = Number(h["timeout"]);
    out.push({
      name,
      event,
      type: type as HookConfig["type"],
      ...(type === "command" ? { command: h["command"] as string } : { url: h["url"] as string }),
      timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000,
      enabled: h["enabled"] !== false,
      ...(typeof h["toolPattern"] === "string" && h["toolPattern"]
        ? { toolPattern: h["toolPattern"] }
        : {}),
      scope,
      source,
    });
  }
  return out;
}

async function readHooksFile(
  path: string,
  scope: HookConfig["scope"],
  warnings: Warning[],
  root?: string,
) {
  // the workspace's file is read only inside it (`link_outside_workspace`)
  const text =
    root === undefined
      ? await readTextIfExists(path).catch(() => undefined)
      : readInside(path, root, warnings);
  if (text === undefined || !text.trim()) return [];
  try {
    return parseHooks(JSON.parse(text), path, scope, warnings);
  } catch (error) {
    warnings.push({
      code: "hooks_config_invalid",
      message: `${path} is not valid JSON (${(error as Error).message}); its hooks were not loaded`,
    });
    return [];
  }
}

function readInside(path: string, root: string, warnings: Warning[]): string | undefined {
  try {
    return readWorkspaceText(path, root, warnings);
  } catch {
    return undefined;
  }
}

/** Global hooks, then the trusted workspace's; an untrusted workspace's file is a warning. */
export async function loadHooks(
  env: Env,
  workspaceRoot: string,
  trusted: boolean,
): Promise<{ hooks: HookConfig[]; untrusted: HookConfig[]; warnings: Warning[] }> {
  const warnings: Warning[] = [];
  const globalPath = join(chatcliHome(env), "hooks.json");
  const workspacePath = join(workspaceRoot, ".chatcli", "hooks.json");
  const hooks = await readHooksFile(globalPath, "global", warnings);
  let untrusted: HookConfig[] = [];
  if (workspacePath !== globalPath) {
    const ws = await readHooksFile(workspacePath, "workspace", warnings, workspaceRoot);
    if (trusted) hooks.push(...ws);
    else if (ws.length) {
      untrusted = ws;
      warnings.push({
        code: "untrusted_workspace_setting",
        message: `ignored ${ws.length} hook${ws.length === 1 ? "" : "s"} from ${workspacePath}: the workspace is not trusted (pass --trust-workspace, set CHATCLI_TRUST_WORKSPACE=1 or add it to trusted_workspaces in ~/.chatcli/config.json)`,
      });
    }
  }
  return { hooks, untrusted, warnings };
}

/** Go's toolPattern: `*`, `prefix*`, or a name (any case); `*` may also sit elsewhere. */
export function toolPatternMatches(pattern: string, tool: string): boolean {
  if (pattern === "*") return true;
  const re = new RegExp(
    `^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`,
    "i",
  );
  return re.test(tool);
}

/** The event as Go marshals it: omitempty fields, toolArgs as a JSON string. */
export function eventJson(event: HookEvent): string {
  const out: Record<string, unknown> = { type: event.type, timestamp: event.timestamp };
  if (event.toolName) out["toolName"] = event.toolName;
  if (event.toolArgs && Object.keys(event.toolArgs).length)
    out["toolArgs"] = JSON.stringify(event.toolArgs);
  if (event.toolOutput) out["toolOutput"] = event.toolOutput;
  if (event.error) out["error"] = event.error;
  if (event.userPrompt) out["userPrompt"] = event.userPrompt;
  if (event.sessionId) out["sessionId"] = event.sessionId;
  if (event.workingDir) out["workingDir"] = event.workingDir;
  if (event.trigger) out["trigger"] = event.trigger;
  return JSON.stringify(out);
}

export interface HookRunner {
  env: Env;
  fetch: typeof fetch;
  signal: AbortSignal;
  /** Values never sent to a hook (configured keys): replaced by [REDACTED] in the event JSON. */
  secrets: readonly string[];
}

type Ran = HookOutcome["ran"][number];

async function runCommand(h: HookConfig, event: HookEvent, body: string, r: HookRunner) {
  const env = {
    ...coreEnv(r.env),
    CHATCLI_HOOK_EVENT: event.type,
    CHATCLI_HOOK_TOOL: event.toolName ?? "",
    CHATCLI_HOOK_SESSION: event.sessionId ?? "",
  };
  const res = await runUserProgram(["sh", "-c", h.command as string], {
    cwd: event.workingDir,
    env,
    timeoutMs: h.timeoutMs,
    signal: r.signal,
    input: body,
    maxBytes: 64 * 1024,
  });
  if (res.timedOut) return { status: "timeout" as const, why: `timed out after ${h.timeoutMs} ms` };
  if (res.aborted) return { status: "error" as const, why: "the run was cancelled" };
  if (res.exitCode === 0) return { status: "ok" as const };
  if (res.exitCode === 2) return { status: "blocked" as const, reason: res.stderr.trim() };
  const tail = res.stderr.trim().split("\n").slice(-2).join(" | ");
  return { status: "error" as const, why: `exited ${res.exitCode}${tail ? `: ${tail}` : ""}` };
}

async function runHttp(h: HookConfig, body: string, r: HookRunner) {
  const signal = AbortSignal.any([r.signal, AbortSignal.timeout(h.timeoutMs)]);
  try {
    // never followed: a redirect would re-send the event somewhere the user did not name
    const res = await r.fetch(h.url as string, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "chatcli-hooks/1.0" },
      body,
      signal,
      redirect: "manual",
    });
    const text = (await res.text().catch(() => "")).trim().slice(0, 2000);
    if (res.status === 403) return { status: "blocked" as const, reason: text };
    if (res.status >= 300) return { status: "error" as const, why: `HTTP ${res.status}` };
    return { status: "ok" as const };
  } catch (error) {
    if (r.signal.aborted) return { status: "error" as const, why: "the run was cancelled" };
    if ((error as Error).name === "TimeoutError")
      return { status: "timeout" as const, why: `timed out after ${h.timeoutMs} ms` };
    return { status: "error" as const, why: (error as Error).message };
  }
}

/** Fires every enabled hook of the event, in order; a PreToolUse block stops the rest. Never throws. */
export async function fireHooks(
  hooks: readonly HookConfig[],
  event: HookEvent,
  r: HookRunner,
): Promise<HookOutcome> {
  const outcome: HookOutcome = { blocked: false, ran: [], warnings: [] };
  const matching = hooks.filter(
    (h) =>
      h.enabled &&
      h.event === event.type &&
      (!h.toolPattern || !event.toolName || toolPatternMatches(h.toolPattern, event.toolName)),
  );
  if (!matching.length) return outcome;
  const body = redact(eventJson(event), r.secrets);
  for (const h of matching) {
    const started = performance.now();
    let result: Awaited<ReturnType<typeof runCommand>>;
    try {
      result =
        h.type === "command" ? await runCommand(h, event, body, r) : await runHttp(h, body, r);
    } catch (error) {
      result = { status: "error", why: (error as Error).message };
    }
    const blocks = result.status === "blocked" && event.type === "PreToolUse";
    const ran: Ran = {
      name: h.name,
      event: event.type,
      status: result.status === "blocked" && !blocks ? "ok" : result.status,
      duration_ms: Math.round(performance.now() - started),
    };
    outcome.ran.push(ran);
    if ("why" in result && result.why)
      outcome.warnings.push({
        code: result.status === "timeout" ? "hook_timeout" : "hook_failed",
        message: `hook ${h.name} (${event.type}) ${result.why}`,
      });
    if (blocks) {
      outcome.blocked = true;
      outcome.reason =
        ("reason" in result && result.reason) ||
        `blocked by ${h.type === "http" ? "HTTP hook" : "hook"}: ${h.name}`;
      break;
    }
  }
  return outcome;
}
