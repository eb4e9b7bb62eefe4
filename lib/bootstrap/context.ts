import { resolve } from "node:path";
import type { Env } from "../core/ctx.ts";
import { localParts, localZoneIsUtc } from "../core/local-time.ts";
import { bootstrapGlobalDir } from "../core/paths.ts";
import type { Warning } from "../core/warning.ts";
import type { SystemBlock } from "../llm/types.ts";
import { type AttachedFile, renderAttachments } from "./attachments.ts";
import { BootstrapCache } from "./cache.ts";
import {
  bootstrapEnabled,
  bootstrapMaxBytes,
  type LoadedBootstrapFile,
  loadBootstrapFiles,
  renderBootstrap,
} from "./files.ts";
import { loadRules, pathCandidates, type RuleInfo, renderRules, ruleApplies } from "./rules.ts";
import { neutralizeInjections, threatscanEnabled } from "./threatscan.ts";
import { detectWorkspaceRoot } from "./workspace.ts";

export type PromptMode = "ask" | "agent" | "coder" | "chat";

/** Anthropic accepts at most this many cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** How blocks are joined when a provider takes the system prompt as one string (as Go's agent does). */
export const SYSTEM_BLOCK_SEPARATOR = "\n\n";

export interface SystemContextInput {
  env: Env;
  cwd: string;
  now: Date;
  mode: PromptMode;
  corePrompt: string;
  toolCatalogue?: string;
  /** `stable`: the memory index digest (cached); `volatile`: retrieved memory, inserted verbatim. */
  memory?: { stable?: string; volatile?: string };
  attachments?: readonly AttachedFile[];
  /** Paths named in the prompt or read/written by tools: selects path-specific rules. */
  touchedPaths?: readonly string[];
  /** `--bare`/`--no-bootstrap`: no bootstrap files, rules or memory. */
  bare?: boolean;
  /** The run's (or session's) cache; a fresh one is used when absent. */
  cache?: BootstrapCache;
  /** Cap on `cache: true` blocks (default 4; a provider that marks its last tool passes 3). */
  maxCacheBreakpoints?: number;
}

/** A bootstrap file as reported (no content). */
export type BootstrapFileEntry = Omit<LoadedBootstrapFile, "content">;

export interface SystemContext {
  /** Stable blocks first (`cache: true`), then volatile ones (`cache: false`). */
  blocks: SystemBlock[];
  files: BootstrapFileEntry[];
  rules: RuleInfo[];
  warnings: Warning[];
  workspaceRoot: string;
  globalDir: string;
  /** False when CHATCLI_BOOTSTRAP_ENABLED=false or bare. */
  bootstrapEnabled: boolean;
}

/**
 * Assembles the system prompt for one request: core prompt, tool catalogue, bootstrap files,
 * attachments and memory index as cached blocks; retrieved memory, matching path rules and the
 * date/cwd block last, uncached. Byte-identical stable blocks while no file changes.
 */
export async function buildSystemContext(input: SystemContextInput): Promise<SystemContext> {
  const cache = input.cache ?? new BootstrapCache();
  const workspaceRoot = detectWorkspaceRoot(input.cwd);
  const globalDir = bootstrapGlobalDir(input.env);
  const enabled = !input.bare && bootstrapEnabled(input.env);
  const scan = threatscanEnabled(input.env);
  const warnings: Warning[] = [];
  let files: LoadedBootstrapFile[] = [];
  let rules: RuleInfo[] = [];
  let bootstrapText = "";
  let rulesText = "";
  if (enabled) {
    const loaded = loadBootstrapFiles({ env: input.env, workspaceRoot, cache });
    files = loaded.files;
    warnings.push(...loaded.warnings);
    bootstrapText = guard(renderBootstrap(files), scan, "bootstrap files", warnings);
    const maxBytes = bootstrapMaxBytes(input.env);
    const ruleSet = await loadRules({ globalDir, workspaceRoot, cache, maxBytes });
    warnings.push(...ruleSet.warnings);
    const candidates = pathCandidates(input.touchedPaths ?? [], input.cwd, workspaceRoot);
    const applied = ruleSet.rules.filter((r) => ruleApplies(r, candidates));
    rules = ruleSet.rules.map((r) => ({
      name: r.name,
      scope: r.scope,
      path: r.path,
      paths: r.paths,
      applies: applied.includes(r),
    }));
    rulesText = guard(renderRules(applied), scan, "path rules", warnings);
  }
  const memory = input.bare ? undefined : input.memory;
  // Go injects bootstrap files, memory and rules as one workspace part joined by `\n\n---\n\n`
  // (§1.5); here they are separate blocks joined by `\n\n`, so each part after the first carries the
  // rule itself. The `[MEMORY AUTO-RECALL]` block belongs to Go's dynamic part: no rule before it.
  const workspace = rulePrefixer();
  const bootstrapPart = workspace(bootstrapText);
  const indexPart = workspace(memory?.stable);
  const memoryPart = memory?.volatile?.startsWith("[")
    ? memory.volatile
    : workspace(memory?.volatile);
  const rulesPart = workspace(rulesText);
  const stable: SystemBlock[] = [
    block("core", input.corePrompt, true),
    block("tools", input.toolCatalogue, true),
    block("bootstrap", bootstrapPart, true),
    block("attachments", renderAttachments(input.attachments ?? []), true),
    block("memory_index", indexPart, true),
  ].filter((b): b is SystemBlock => b !== undefined);
  const volatile: SystemBlock[] = [
    block("memory", memoryPart, false),
    block("rules", rulesPart, false),
    block(
      "dynamic",
      dynamicContext(input.now, input.cwd, workspaceRoot, { utc: localZoneIsUtc(input.env) }),
      false,
    ),
  ].filter((b): b is SystemBlock => b !== undefined);
  const max = Math.max(1, input.maxCacheBreakpoints ?? MAX_CACHE_BREAKPOINTS);
  return {
    blocks: [...coalesce(stable, max), ...volatile],
    files: files.map(({ content: _content, ...info }) => info),
    rules,
    warnings,
    workspaceRoot,
    globalDir,
    bootstrapEnabled: enabled,
  };
}

/** Prefixes `---\n\n` to every non-blank part after the first one it was given. */
function rulePrefixer(): (text: string | undefined) => string | undefined {
  let seen = false;
  return (text) => {
    if (text === undefined || text.trim() === "") return text;
    const out = seen ? `---\n\n${text}` : text;
    seen = true;
    return out;
  };
}

function block(id: string, text: string | undefined, cache: boolean): SystemBlock | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  return { id, text, cache };
}

function guard(text: string, scan: boolean, what: string, warnings: Warning[]): string {
  if (!scan || text === "") return text;
  const result = neutralizeInjections(text);
  if (result.blocked > 0) {
    warnings.push({
      code: "prompt_injection_blocked",
      message: `${result.blocked} line(s) of the ${what} looked like a prompt injection and were replaced`,
    });
  }
  return result.text;
}

/** Merges the earliest stable blocks until at most `max` remain, so the latest breakpoints survive. */
export function coalesce(stable: readonly SystemBlock[], max: number): SystemBlock[] {
  const out = [...stable];
  while (out.length > max) {
    const [a, b] = out as [SystemBlock, SystemBlock];
    out.splice(0, 2, {
      id: `${a.id}+${b.id}`,
      text: `${a.text}${SYSTEM_BLOCK_SEPARATOR}${b.text}`,
      cache: true,
    });
  }
  return out;
}

/** The system prompt as one string (for providers without blocks, and `bootstrap show`). */
export function systemText(blocks: readonly SystemBlock[]): string {
  return blocks.map((b) => b.text).join(SYSTEM_BLOCK_SEPARATOR);
}

function pad(n: number, width = 2): string {
  return String(Math.trunc(n)).padStart(width, "0");
}

/** Go's `2006-01-02 15:04:05 MST` in local time; the zone is `UTC` or a numeric `-03`/`+0530`. */
export function formatLocalTime(now: Date, utc = false): string {
  if (utc) {
    const date = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}`;
    return `${date} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} UTC`;
  }
  const t = localParts(now);
  const offset = t.offsetMinutes;
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const zone =
    offset === 0 ? "UTC" : `${sign}${pad(abs / 60)}${abs % 60 === 0 ? "" : pad(abs % 60)}`;
  const date = `${t.year}-${pad(t.month)}-${pad(t.day)}`;
  const time = `${pad(t.hours)}:${pad(t.minutes)}:${pad(t.seconds)}`;
  return `${date} ${time} ${zone}`;
}

/** `2026-07-30 (UTC)` / `2026-07-30 (-03)`: formatLocalTime without the time of day. */
export function formatLocalDate(now: Date, utc = false): string {
  const full = formatLocalTime(now, utc);
  return `${full.slice(0, 10)} (${full.slice(20)})`;
}

/**
 * The last, uncached block: the date, cwd (and workspace root), and how to resolve "here". The date
 * has day granularity (Go sends the time to the second): two runs on the same day then share the
 * whole request prefix up to the conversation — system prompt, tools, and the task — in the
 * provider's prompt cache. A model that needs the time of day can run `date`.
 */
export function dynamicContext(
  now: Date,
  cwd: string,
  workspaceRoot: string,
  options: { utc?: boolean } = {},
): string {
  const dir = resolve(cwd);
  const lines = [
    `Current date: ${formatLocalDate(now, options.utc)}`,
    `Current working directory: ${dir}`,
  ];
  if (workspaceRoot !== dir) lines.push(`Workspace root: ${workspaceRoot}`);
  lines.push(
    'IMPORTANT: When the user refers to "here", "this project", "current directory", or uses relative paths, ALWAYS resolve them against the current working directory above — NOT against paths from long-term memory or previous sessions. Memory may contain paths from other projects; treat those as historical context only.',
  );
  return lines.join("\n");
}
