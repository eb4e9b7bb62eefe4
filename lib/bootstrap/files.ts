import { join } from "node:path";
import { outsideWarning } from "../core/confined.ts";
import { neutraliseControls } from "../core/controls.ts";
import type { Env } from "../core/ctx.ts";
import { bootstrapGlobalDir } from "../core/paths.ts";
import { envInt } from "../core/settings.ts";
import type { Warning } from "../core/warning.ts";
import type { BootstrapCache } from "./cache.ts";

/** The five files, in injection order (case-sensitive names). */
export const BOOTSTRAP_FILES = ["AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md"];

export const DEFAULT_MAX_BYTES = 32 * 1024;

/** A bootstrap file as loaded: the envelope's fields plus mtime, truncation and content. */
/** A bootstrap file as the envelope and `session.started` list it. */
export interface BootstrapFileInfo {
  name: string;
  path: string;
  /** `attachment`: a file given with -f/--file. */
  scope: "workspace" | "global" | "attachment";
  bytes: number;
}

export interface LoadedBootstrapFile extends BootstrapFileInfo {
  /** RFC 3339 modification time. */
  mtime: string;
  truncated: boolean;
  /** The text injected (cut at the cap when truncated). */
  content: string;
}

/** Bootstrap is off only when CHATCLI_BOOTSTRAP_ENABLED is exactly `false` (as in the Go tool). */
export function bootstrapEnabled(env: Env): boolean {
  return env["CHATCLI_BOOTSTRAP_ENABLED"] !== "false";
}

/** The per-file cap in bytes: CHATCLI_BOOTSTRAP_MAX_BYTES, default 32 KiB. */
export function bootstrapMaxBytes(env: Env): number {
  const n = envInt(env, "CHATCLI_BOOTSTRAP_MAX_BYTES", DEFAULT_MAX_BYTES);
  return n > 0 ? n : DEFAULT_MAX_BYTES;
}

/**
 * Loads the five files: each from the workspace root if it exists there, else from the global dir.
 * A blank workspace file shadows the global one and is then dropped (Go behaviour). Missing files are
 * skipped silently; unreadable ones give a `bootstrap_unreadable` warning and fall back to global.
 */
export function loadBootstrapFiles(input: {
  env: Env;
  workspaceRoot: string;
  cache: BootstrapCache;
}): { files: LoadedBootstrapFile[]; warnings: Warning[] } {
  const globalDir = bootstrapGlobalDir(input.env);
  const maxBytes = bootstrapMaxBytes(input.env);
  const files: LoadedBootstrapFile[] = [];
  const warnings: Warning[] = [];
  const dirs = [
    { dir: input.workspaceRoot, scope: "workspace" as const },
    { dir: globalDir, scope: "global" as const },
  ];
  for (const name of BOOTSTRAP_FILES) {
    for (const { dir, scope } of dirs) {
      const path = join(dir, name);
      const read = input.cache.read(
        path,
        maxBytes,
        scope === "workspace" ? input.workspaceRoot : undefined,
      );
      if (read.kind === "missing") continue;
      if (read.kind === "outside") {
        warnings.push(outsideWarning(path, read.target));
        continue;
      }
      if (read.kind === "unreadable") {
        warnings.push({
          code: "bootstrap_unreadable",
          message: `cannot read ${path} (${read.message}); skipped`,
        });
        continue;
      }
      if (read.truncated) {
        warnings.push({
          code: "bootstrap_truncated",
          message: `${path} is ${read.bytes} bytes; only the first ${maxBytes} were injected (CHATCLI_BOOTSTRAP_MAX_BYTES)`,
        });
      }
      const clean = cleanContent(path, read.content, warnings);
      if (clean.trim() !== "") {
        files.push({
          name,
          path,
          scope,
          bytes: read.bytes,
          mtime: new Date(read.mtimeMs).toISOString(),
          truncated: read.truncated,
          content: read.truncated
            ? `${clean}\n\n[truncated by chatcli: first ${maxBytes} of ${read.bytes} bytes]`
            : clean,
        });
      }
      break;
    }
  }
  return { files, warnings };
}

/**
 * A file's text with its control characters written as escapes (`ESC` → `\x1b`): the system prompt
 * carries no escape sequence, and `bootstrap show` prints it exactly and safely. Warns
 * `bootstrap_control_characters` naming the file when there were any.
 */
export function cleanContent(path: string, content: string, warnings: Warning[]): string {
  const { text, count } = neutraliseControls(content);
  if (count > 0)
    warnings.push({
      code: "bootstrap_control_characters",
      message: `${path} holds ${count} control character(s) (escape sequences); they are given to the model written out (\\x1b…), not as they are`,
    });
  return text;
}

/** The Go layout: `## NAME\n\n<content>` per file, joined by `\n\n---\n\n`; "" when none. */
export function renderBootstrap(files: readonly Pick<LoadedBootstrapFile, "name" | "content">[]) {
  return files.map((f) => `## ${f.name}\n\n${f.content}`).join("\n\n---\n\n");
}
