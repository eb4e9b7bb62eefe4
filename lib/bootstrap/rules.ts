import { existsSync, readdirSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { outsideWarning } from "../core/confined.ts";
import type { Warning } from "../core/warning.ts";
import type { BootstrapCache } from "./cache.ts";
import { cleanContent } from "./files.ts";

/** A path-specific rule file (`.chatcli/rules/NAME.md`). */
export interface Rule {
  /** File name without `.md`; a workspace rule replaces a global one of the same name. */
  name: string;
  scope: "workspace" | "global";
  path: string;
  /** Globs from the front matter; empty means the rule always applies. */
  paths: string[];
  body: string;
}

/** A rule as `bootstrap show --json` reports it. */
export interface RuleInfo {
  name: string;
  scope: "workspace" | "global";
  path: string;
  paths: string[];
  applies: boolean;
}

/** The directories rules are read from, in scan order (later wins by name), as the Go tool does. */
export function ruleDirs(
  globalDir: string,
  workspaceRoot: string,
): Array<{ dir: string; scope: "workspace" | "global" }> {
  const dirs: Array<{ dir: string; scope: "workspace" | "global" }> = [
    { dir: join(globalDir, "rules"), scope: "global" },
    { dir: join(workspaceRoot, ".chatcli", "rules"), scope: "workspace" },
  ];
  // Go compatibility: `<workspace>/rules/` is read only when the workspace has no `.chatcli` dir.
  if (!existsSync(join(workspaceRoot, ".chatcli"))) {
    dirs.push({ dir: join(workspaceRoot, "rules"), scope: "workspace" });
  }
  return dirs;
}

function listMarkdown(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory() && e.name.endsWith(".md"))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Loads every rule file; workspace rules replace global ones of the same name. Sorted by name. */
export async function loadRules(input: {
  globalDir: string;
  workspaceRoot: string;
  cache: BootstrapCache;
  maxBytes: number;
}): Promise<{ rules: Rule[]; warnings: Warning[] }> {
  const byName = new Map<string, Rule>();
  const warnings: Warning[] = [];
  for (const { dir, scope } of ruleDirs(input.globalDir, input.workspaceRoot)) {
    for (const file of listMarkdown(dir)) {
      const path = join(dir, file);
      const confine = scope === "workspace" ? input.workspaceRoot : undefined;
      const read = input.cache.read(path, input.maxBytes, confine);
      if (read.kind === "missing") continue;
      if (read.kind === "outside") {
        warnings.push(outsideWarning(path, read.target));
        continue;
      }
      if (read.kind === "unreadable") {
        warnings.push({
          code: "rule_unreadable",
          message: `cannot read ${path} (${read.message})`,
        });
        continue;
      }
      if (read.truncated) {
        warnings.push({
          code: "bootstrap_truncated",
          message: `${path} is ${read.bytes} bytes; only the first ${input.maxBytes} were injected (CHATCLI_BOOTSTRAP_MAX_BYTES)`,
        });
      }
      const parsed = await parseRule(cleanContent(path, read.content, warnings));
      if (parsed.warning)
        warnings.push({ code: "rule_front_matter", message: `${path}: ${parsed.warning}` });
      const name = file.slice(0, -".md".length);
      if (parsed.body.trim() === "") continue; // a blank body is discarded (Go)
      byName.set(name, { name, scope, path, paths: parsed.paths, body: parsed.body });
    }
  }
  const rules = [...byName.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return { rules, warnings };
}

/**
 * Splits a rule into front matter `paths` and body. Simple front matter (only `paths:` as an inline
 * list or a block list) is read directly; anything else goes through the YAML parser, loaded lazily
 * because importing it costs more than the whole `bootstrap show` budget.
 */
export async function parseRule(
  content: string,
): Promise<{ paths: string[]; body: string; warning?: string }> {
  // As Go: without front matter (or without its closing `---`) the whole file is the body, untrimmed.
  if (!content.startsWith("---")) return { paths: [], body: content };
  const rest = content.slice(3);
  const end = rest.indexOf("---");
  if (end < 0) return { paths: [], body: content };
  const front = rest.slice(0, end);
  const body = rest.slice(end + 3).trim();
  const simple = parseSimpleFrontMatter(front);
  if (simple) return { paths: simple, body };
  try {
    const { parse } = await import("yaml");
    const data = parse(front) as unknown;
    return { paths: pathsOf(data), body };
  } catch (error) {
    return {
      paths: parseSimpleFrontMatter(front, true) ?? [],
      body,
      warning: `front matter is not valid YAML (${(error as Error).message.split("\n")[0]})`,
    };
  }
}

function pathsOf(data: unknown): string[] {
  if (!data || typeof data !== "object") return [];
  const value = (data as Record<string, unknown>)["paths"];
  if (typeof value === "string") return value.trim() ? [value.trim()] : [];
  if (Array.isArray(value)) {
    return value
      .filter((v): v is string => typeof v === "string" && v.trim() !== "")
      .map((v) => v.trim());
  }
  return [];
}

function unquote(text: string): string {
  return text
    .trim()
    .replace(/^["']|["']$/g, "")
    .trim();
}

/**
 * The Go tool's line parser: `paths: [a, "b"]` or `paths:` followed by `- item` lines. Returns
 * undefined when the front matter holds anything else (unless `lenient`, which ignores other lines).
 */
function parseSimpleFrontMatter(front: string, lenient = false): string[] | undefined {
  const paths: string[] = [];
  let inList = false;
  for (const raw of front.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (inList && line.startsWith("- ")) {
      const item = unquote(line.slice(2));
      if (item) paths.push(item);
      continue;
    }
    inList = false;
    if (line.startsWith("paths:")) {
      const value = line.slice("paths:".length).trim();
      if (value === "") {
        inList = true;
        continue;
      }
      const inner = value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value;
      for (const part of inner.split(",")) {
        const item = unquote(part);
        if (item) paths.push(item);
      }
      continue;
    }
    if (!lenient) return undefined;
  }
  return paths;
}

/** Compiled globs by pattern: each rule's globs are matched against every touched path. */
const globs = new Map<string, InstanceType<typeof Bun.Glob>>();

/** Whether `pattern` matches `path`: a real glob (Bun.Glob), and slash-less patterns match base names. */
export function matchGlob(pattern: string, path: string): boolean {
  const p = pattern.replace(/^\.\//, "");
  const target = path.replace(/^\.\//, "");
  let glob = globs.get(p);
  if (!glob) {
    glob = new Bun.Glob(p);
    globs.set(p, glob);
  }
  if (glob.match(target)) return true;
  if (!p.includes("/")) return glob.match(basename(target));
  return false;
}

/** Touched paths as the forms a glob is matched against: as given, and relative to the workspace. */
export function pathCandidates(
  touched: readonly string[],
  cwd: string,
  workspaceRoot: string,
): string[] {
  const out = new Set<string>();
  for (const t of touched) {
    if (!t) continue;
    const given = t.replace(/^\.\//, "");
    if (!isAbsolute(given)) out.add(given.split(sep).join("/"));
    const abs = resolve(cwd, given);
    const rel = relative(workspaceRoot, abs);
    if (rel && !rel.startsWith("..") && !isAbsolute(rel)) out.add(rel.split(sep).join("/"));
    // Outside the workspace only the absolute form is left (slash-less globs match its base name).
    else if (isAbsolute(given)) out.add(abs);
  }
  return [...out];
}

/**
 * Whether a rule applies. As the Go tool (reference §1.6): a turn that names no path gets no rules at
 * all, not even global ones; otherwise a rule without globs always, one with globs when some glob
 * matches some touched path.
 */
export function ruleApplies(rule: Pick<Rule, "paths">, candidates: readonly string[]): boolean {
  if (candidates.length === 0) return false;
  if (rule.paths.length === 0) return true;
  // loops, not some(): the builtin's first call costs every `bootstrap show` ~70 µs (issue 23)
  for (const g of rule.paths) for (const c of candidates) if (matchGlob(g, c)) return true;
  return false;
}

/** `## Path-Specific Rules` with one `### Rule: name (paths: …)` section per rule; "" when none. */
export function renderRules(rules: readonly Rule[]): string {
  if (rules.length === 0) return "";
  const parts = rules.map((r) => {
    const head =
      r.paths.length > 0
        ? `### Rule: ${r.name} (paths: ${r.paths.join(", ")})`
        : `### Rule: ${r.name}`;
    return `${head}\n\n${r.body}`;
  });
  return `## Path-Specific Rules\n\n${parts.join("\n\n---\n\n")}`;
}

/** Path-like words of a prompt (contain `/` or a `.ext`), for matching rules. */
export function extractPathHints(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split(/\s+/)) {
    const word = raw.replace(/^[("'`<[]+|[)"'`>\],;:!?.]+$/g, "");
    if (word.length < 2 || /^[a-z]+:\/\//i.test(word)) continue;
    if (word.includes("/") || /\.[A-Za-z0-9]{1,10}$/.test(word)) out.add(word);
  }
  return [...out];
}
