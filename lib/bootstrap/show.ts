import { existsSync } from "node:fs";
import type { Ctx, Env } from "../core/ctx.ts";
import { bootstrapGlobalDir } from "../core/paths.ts";
import { configuredSecrets } from "../core/redact.ts";
import { loadSettings } from "../core/settings.ts";
import type { Warning } from "../core/warning.ts";
import { type AttachedFile, estimateTokens, loadAttachments } from "./attachments.ts";
import {
  type BootstrapFileEntry,
  buildSystemContext,
  type PromptMode,
  type SystemContext,
} from "./context.ts";
import { corePromptFor } from "./core-prompt.ts";
import { BOOTSTRAP_FILES, bootstrapEnabled } from "./files.ts";
import { extractPathHints, type RuleInfo, ruleDirs } from "./rules.ts";
import { detectWorkspaceRoot } from "./workspace.ts";

export type MemoryMode = "full" | "index" | "off";

/** Memory text for the system prompt, supplied by the memory module once it exists. */
export type MemorySource = (query: {
  env: Env;
  cwd: string;
  workspaceRoot: string;
  mode: PromptMode;
  memoryMode: MemoryMode;
  hints: string[];
}) => Promise<{ stable?: string; volatile?: string } | undefined>;

/**
 * CHATCLI_MEMORY_MODE for a command: off when memory is disabled; `ask` and `chat` have no memory
 * tool to recall with, so they promote index → full.
 */
export function memoryModeFor(env: Env, mode: PromptMode): MemoryMode {
  if (env["CHATCLI_MEMORY_ENABLED"] === "false") return "off";
  const raw = (env["CHATCLI_MEMORY_MODE"] ?? "").trim().toLowerCase();
  const chosen: MemoryMode = raw === "full" || raw === "off" ? raw : "index";
  return (mode === "ask" || mode === "chat") && chosen === "index" ? "full" : chosen;
}

export interface ShowOptions {
  mode: PromptMode;
  files: readonly string[];
  prompt?: string;
  bare?: boolean;
  memory?: MemorySource;
  /** The layered env when the caller already loaded settings (saves reading them twice). */
  env?: Env;
  /** `-m provider/model`, and the config's `model` when the caller loaded settings. */
  model?: string;
  configModel?: string;
  /**
   * Only the blocks and warnings are wanted (`bootstrap show` as text): the model is not resolved
   * (`model: null`), so the provider tables are not loaded (issue 23, start-up).
   */
  blocksOnly?: boolean;
}

/** The `bootstrap show --json` document. */
export interface ShowDocument {
  workspace_root: string;
  cwd: string;
  global_dir: string;
  mode: PromptMode;
  bootstrap_enabled: boolean;
  files: BootstrapFileEntry[];
  rules: RuleInfo[];
  memory_mode: MemoryMode;
  attachments: Array<Omit<AttachedFile, "content">>;
  blocks: Array<{
    id: string;
    cache: boolean;
    chars: number;
    tokens_estimate: number;
    text: string;
  }>;
  tokens_estimate: { stable: number; volatile: number; total: number };
  /** The model a command would use now (`provider/model`), null when none is configured. */
  model: string | null;
  warnings: Warning[];
}

async function modelOf(
  flag: string | undefined,
  env: Env,
  configModel: string | undefined,
): Promise<string | null> {
  const { modelLabel, resolveModel } = await import("../llm/models.ts");
  try {
    return modelLabel(resolveModel(flag, env, configModel));
  } catch {
    return null;
  }
}

/** Builds exactly the system context a command in `mode` would send now, and describes it. */
export async function showSystemContext(
  ctx: Pick<Ctx, "env" | "cwd" | "now">,
  options: ShowOptions,
): Promise<{ context: SystemContext; document: ShowDocument; secrets: string[] }> {
  const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
  const settings = options.env ? undefined : await loadSettings(ctx, { workspaceRoot });
  const env = options.env ?? (settings?.env as Env);
  const attached = loadAttachments(options.files, ctx.cwd, { env });
  const hints = [...attached.files.map((f) => f.path), ...extractPathHints(options.prompt ?? "")];
  const memoryMode = options.bare ? "off" : memoryModeFor(env, options.mode);
  const memory =
    memoryMode === "off" || !options.memory
      ? undefined
      : await options.memory({
          env,
          cwd: ctx.cwd,
          workspaceRoot,
          mode: options.mode,
          memoryMode,
          hints,
        });
  const context = await buildSystemContext({
    env,
    cwd: ctx.cwd,
    now: ctx.now(),
    mode: options.mode,
    corePrompt: corePromptFor(options.mode),
    memory,
    attachments: attached.files,
    touchedPaths: hints,
    bare: options.bare,
  });
  const blocks = context.blocks.map((b) => ({
    id: b.id,
    cache: b.cache,
    chars: b.text.length,
    tokens_estimate: estimateTokens(b.text),
    text: b.text,
  }));
  const sum = (cache: boolean) => {
    let n = 0; // a loop, not filter/reduce: each builtin's first call costs a start ~70 µs
    for (const b of blocks) if (b.cache === cache) n += b.tokens_estimate;
    return n;
  };
  const document: ShowDocument = {
    workspace_root: context.workspaceRoot,
    cwd: ctx.cwd,
    global_dir: context.globalDir,
    mode: options.mode,
    bootstrap_enabled: context.bootstrapEnabled,
    files: context.files,
    rules: context.rules,
    memory_mode: memoryMode,
    attachments: attached.files.map(({ content: _content, ...rest }) => rest),
    blocks,
    tokens_estimate: { stable: sum(true), volatile: sum(false), total: sum(true) + sum(false) },
    model: options.blocksOnly
      ? null
      : await modelOf(options.model, env, options.configModel ?? settings?.config.model),
    warnings: [...attached.warnings, ...context.warnings],
  };
  return { context, document, secrets: configuredSecrets(env) };
}

/** The `bootstrap path --json` document: every directory searched, in lookup order. */
export interface PathDocument {
  workspace_root: string;
  global_dir: string;
  bootstrap_enabled: boolean;
  file_names: string[];
  bootstrap_dirs: Array<{ dir: string; scope: "workspace" | "global"; exists: boolean }>;
  rule_dirs: Array<{ dir: string; scope: "workspace" | "global"; exists: boolean }>;
}

/** Where bootstrap files and rules are looked up for this cwd and env. */
export async function bootstrapPaths(ctx: Pick<Ctx, "env" | "cwd">): Promise<PathDocument> {
  const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
  const { env } = await loadSettings(ctx, { workspaceRoot });
  const globalDir = bootstrapGlobalDir(env);
  const withExists = (d: { dir: string; scope: "workspace" | "global" }) => ({
    ...d,
    exists: existsSync(d.dir),
  });
  return {
    workspace_root: workspaceRoot,
    global_dir: globalDir,
    bootstrap_enabled: bootstrapEnabled(env),
    file_names: [...BOOTSTRAP_FILES],
    bootstrap_dirs: [
      { dir: workspaceRoot, scope: "workspace" as const },
      { dir: globalDir, scope: "global" as const },
    ].map(withExists),
    rule_dirs: ruleDirs(globalDir, workspaceRoot).reverse().map(withExists),
  };
}
