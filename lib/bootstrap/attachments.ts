import { readFileSync, statSync } from "node:fs";
import { extname, isAbsolute, relative, resolve, sep } from "node:path";
import type { Env } from "../core/ctx.ts";
import { UsageError } from "../core/errors.ts";
import { expandHome } from "../core/paths.ts";
import type { Warning } from "../core/warning.ts";

/** A file attached with `-f/--file` (or `/context attach`): it goes into the cached system prompt. */
export interface AttachedFile {
  /** As shown to the model and the user: relative to cwd when inside it, else absolute. */
  name: string;
  path: string;
  bytes: number;
  /** chars/4, rounded up. */
  tokens_estimate: number;
  content: string;
}

/** An attachment above this many tokens draws a `large_attachment` warning. */
export const LARGE_ATTACHMENT_TOKENS = 8_000;
/** An attachment above this many bytes is refused. */
export const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;

/** Rough token count used everywhere a number is shown before the provider reports one: chars/4. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const GLOB_CHARS = /[*?[\]{}]/;

function expandPattern(pattern: string, cwd: string): string[] {
  if (!GLOB_CHARS.test(pattern)) return [resolve(cwd, pattern)];
  const parts = pattern.split("/");
  const firstGlob = parts.findIndex((p) => GLOB_CHARS.test(p));
  const prefix = parts.slice(0, firstGlob).join("/");
  const base = isAbsolute(pattern) ? prefix || "/" : resolve(cwd, prefix);
  const glob = new Bun.Glob(parts.slice(firstGlob).join("/"));
  try {
    return [...glob.scanSync({ cwd: base, onlyFiles: true, absolute: true })].sort();
  } catch {
    return [];
  }
}

function displayName(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  return path;
}

function readText(path: string, name: string): { content: string; bytes: number } {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(path);
  } catch {
    throw new UsageError(`cannot attach ${name}: no such file`, {
      hint: "check the path given to -f/--file",
    });
  }
  if (info.isDirectory()) {
    throw new UsageError(`cannot attach ${name}: it is a directory`, {
      hint: `attach its files with a glob, e.g. -f '${name.replace(/\/$/, "")}/**/*.md'`,
    });
  }
  if (info.size > MAX_ATTACHMENT_BYTES) {
    throw new UsageError(`cannot attach ${name}: ${info.size} bytes is over the 8 MiB limit`, {
      reason: "input_too_large",
    });
  }
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot attach ${name}: ${(error as Error).message}`);
  }
  const binary = () =>
    new UsageError(`cannot attach ${name}: it is a binary file; only text files can be attached`, {
      reason: "bad_input",
    });
  if (raw.includes(0)) throw binary();
  try {
    return { content: new TextDecoder("utf-8", { fatal: true }).decode(raw), bytes: raw.length };
  } catch {
    throw binary();
  }
}

/**
 * Reads the files named by `-f/--file` patterns (paths or globs, relative to cwd). A glob that
 * matches nothing, a missing file, a directory or a binary file is a usage error. Duplicates are
 * dropped; order is the patterns' order, glob matches sorted.
 */
export function loadAttachments(
  patterns: readonly string[],
  cwd: string,
  options: { env?: Env } = {},
): { files: AttachedFile[]; warnings: Warning[] } {
  const files: AttachedFile[] = [];
  const warnings: Warning[] = [];
  const seen = new Set<string>();
  for (const raw of patterns) {
    const pattern = options.env ? expandHome(raw, options.env) : raw;
    const paths = expandPattern(pattern, cwd);
    if (paths.length === 0) {
      throw new UsageError(`no file matches ${raw}`, { hint: "check the glob given to -f/--file" });
    }
    for (const path of paths) {
      if (seen.has(path)) continue;
      seen.add(path);
      const name = displayName(path, cwd);
      const { content, bytes } = readText(path, name);
      const tokens = estimateTokens(content);
      if (tokens > LARGE_ATTACHMENT_TOKENS) {
        warnings.push({
          code: "large_attachment",
          message: `${name} is ~${tokens} tokens; it is sent with every request (cached where the provider allows)`,
        });
      }
      files.push({ name, path, bytes, tokens_estimate: tokens, content });
    }
  }
  return { files, warnings };
}

function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** `# Attached Context` with one fenced `## File: name` section per file; "" when none. */
export function renderAttachments(
  files: readonly Pick<AttachedFile, "name" | "content">[],
): string {
  if (files.length === 0) return "";
  const parts = files.map((f) => {
    const fence = fenceFor(f.content);
    const lang = extname(f.name).slice(1);
    const info = /^[A-Za-z0-9_+-]+$/.test(lang) ? lang : "";
    const body = f.content.endsWith("\n") ? f.content : `${f.content}\n`;
    return `## File: ${f.name}\n\n${fence}${info}\n${body}${fence}`;
  });
  return `# Attached Context\n\n${parts.join("\n\n")}`;
}

/**
 * What `/context list` and `-f` feedback show: one line per file with its token estimate, then the
 * per-turn total, and a note on each file over the large threshold.
 */
export function attachmentSummary(
  files: readonly Pick<AttachedFile, "name" | "tokens_estimate">[],
): string {
  if (files.length === 0) return "no attached context";
  const total = files.reduce((n, f) => n + f.tokens_estimate, 0);
  const lines = files.map((f) => {
    const large = f.tokens_estimate > LARGE_ATTACHMENT_TOKENS ? "  (large)" : "";
    return `${f.name}  ~${f.tokens_estimate} tokens${large}`;
  });
  lines.push(`total ~${total} tokens per turn, in the cached part of the system prompt`);
  return lines.join("\n");
}
