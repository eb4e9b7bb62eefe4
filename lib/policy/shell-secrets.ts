import { lstatSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { sedEffects } from "./command-checks.ts";
import { base, unwrap } from "./command-safety.ts";
import { containsProtected, type ProtectedPaths, protectedMatch } from "./protected-paths.ts";
import type { SimpleCommand } from "./shell-words.ts";

/**
 * Whether a shell command names a protected path (CONTRACT §5: credential stores, CHATCLI_HOME,
 * /proc/<pid>/environ) — literally, through `~`/`$HOME`, through a glob (`~/.ss?/id_rsa`,
 * `/pro[c]/$PPID/environ`) or, for a recursive reader (`grep -r X ~`, `tar c ~`), through a
 * directory that contains one. The policy's explanation; the sandbox is the guarantee.
 */
export function secretWord(
  list: ProtectedPaths,
  cmd: SimpleCommand,
  cwd: string | undefined,
  home: string | undefined,
  vars: Map<string, string>,
): string | undefined {
  const words = [
    ...cmd.argv.slice(1),
    ...cmd.redirects.filter((r) => READ_REDIRECT.test(r.op)).map((r) => r.target),
  ];
  const real = unwrap(cmd.argv);
  if (
    real.length > 0 &&
    NON_READERS.has(base(real[0] as string)) &&
    cmd.redirects.every((r) => !READ_REDIRECT.test(r.op))
  )
    return undefined;
  // inline code (`python3 -c 'open("/home/u/.ssh/id_rsa")'`, awk programs) names paths inside a word
  const code = isInterpreter(base(real[0] ?? ""));
  if (code) words.push(...embeddedPaths(real.slice(1)));
  // `sed 'r ~/.ssh/id_rsa' f` reads the file its script names
  if (base(real[0] ?? "") === "sed") words.push(...sedEffects(real.slice(1)).reads);
  const recursive = recursiveReader(cmd.argv);
  for (const word of words) {
    for (const candidate of candidates(word)) {
      if (code && CREDENTIAL_TAIL.test(candidate)) return word;
      const path = expand(candidate, home, vars);
      if (path === undefined) continue;
      // `$(…)/.ssh/id_rsa`, `$X/.aws/credentials`: whatever the head is, the tail names a credential store
      if ((path.startsWith("*/") || code) && CREDENTIAL_TAIL.test(path)) return word;
      const abs = isAbsolute(path) ? path : cwd === undefined ? undefined : join(cwd, path);
      if (abs === undefined) continue;
      if (
        /[*?[]/.test(abs) ? globReaches(list, abs, recursive) : literalReaches(list, abs, recursive)
      )
        return word;
    }
  }
  return undefined;
}

/** Input redirections: `<`, `3<`, `<>` (not here-documents or fd duplication). */
const READ_REDIRECT = /^\d*<>?$/;

/** A path whose tail is a credential store, whatever comes before it. */
const CREDENTIAL_TAIL =
  /(?:^|[/"'`$({}+*])\.(?:ssh|aws|gnupg|azure|kube|docker\/config\.json|netrc|npmrc|git-credentials|config\/gcloud|config\/gh|chatcli)(?:\/|$|["'`)\s])|\/proc\/[^/\s"']+\/environ/;

const CODE_RUNNERS =
  /^(?:python[\d.]*|pypy[\d.]*|perl|ruby|node|nodejs|bun|deno|php|lua|awk|gawk|mawk|nawk|jq|osascript|pwsh|powershell)$/;

function isInterpreter(name: string): boolean {
  return CODE_RUNNERS.test(name);
}

/** Path-like substrings inside code words: `open("/x/y")`, `'~/.ssh/id_rsa'`, `$HOME + "/.aws"`. */
function embeddedPaths(args: string[]): string[] {
  const out: string[] = [];
  for (const a of args)
    for (const m of a.matchAll(
      /(?:^|[^\w.~$-])((?:~|\$\{?HOME\}?)?\/[^\s'"`;|&()<>,]+|~(?=[\s'"`)]|$))/g,
    ))
      out.push(m[1] as string);
  // the whole code too, for CREDENTIAL_TAIL (`os.path.join(home, ".ssh", "id_rsa")`)
  for (const a of args) if (CREDENTIAL_TAIL.test(a.replace(/["']\s*,\s*["']/g, "/"))) out.push(a);
  return out;
}

/** The word, and the path inside it (`@file`, `--opt=file`, `if=file`). */
function candidates(word: string): string[] {
  const out = [word];
  if (word.startsWith("@")) out.push(word.slice(1));
  const eq = word.indexOf("=");
  if (eq > 0 && /^-{0,2}[A-Za-z][\w-]*$/.test(word.slice(0, eq))) {
    const value = word.slice(eq + 1);
    out.push(value, value.replace(/^@/, ""));
  }
  return out.filter((w) => w !== "" && !/^-/.test(w));
}

/** `~`, `$HOME`, `${HOME}` → home; other variables and substitutions → one unknown segment (`*`). */
function expand(
  word: string,
  home: string | undefined,
  vars: Map<string, string>,
): string | undefined {
  let w = word.replace(/\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)/g, (_m, a?: string, b?: string) => {
    const name = (a ?? b) as string;
    if (name === "HOME" && home) return home;
    return vars.get(name) ?? "*";
  });
  if (home && (w === "~" || w.startsWith("~/"))) w = home + w.slice(1);
  // `~user/…`: that user's home — the current one when it is the same user, else a sibling (or /root)
  const other = /^~([A-Za-z_][\w.-]*)(?=\/|$)/.exec(w);
  if (home && other) {
    const name = other[1] as string;
    const dir =
      name === basename(home) ? home : name === "root" ? "/root" : join(dirname(home), name);
    w = dir + w.slice(other[0].length);
  }
  w = w.replace(/\$\([^)]*\)|`[^`]*`|\$\d|\$[#?$!@*-]/g, "*");
  if (w.includes("$")) return undefined;
  return w;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Whether a recursive walk from `root` of this kind reaches the protected entry `p`. */
function walkReaches(kind: Recursion, root: string, p: string): boolean {
  if (p.startsWith("/proc/<pid>")) return true; // /proc/<pid> is not hidden
  if (!exists(p)) return false;
  // rg and ag skip hidden files and directories unless told otherwise
  return (
    kind === "all" ||
    !relative(root, p)
      .split("/")
      .some((s) => s.startsWith("."))
  );
}

function literalReaches(list: ProtectedPaths, abs: string, recursive: Recursion): boolean {
  if (protectedMatch(list, abs)) return true;
  if (!recursive) return false;
  return containsProtected(list, abs).some((p) => walkReaches(recursive, abs, p));
}

function segments(p: string): string[] {
  return resolve("/", p).split("/").filter(Boolean);
}

/** One path segment against one glob segment; like the shell, `*`/`?` do not match a leading dot. */
function segmentMatches(pattern: string, segment: string): boolean {
  if (segment.startsWith(".") && !pattern.startsWith(".")) return false;
  if (!/[*?[{]/.test(pattern)) return pattern === segment;
  return new Bun.Glob(pattern).match(segment);
}

/** A glob reaches a protected entry: its leading segments match the entry (or, recursive, an ancestor). */
function globReaches(list: ProtectedPaths, pattern: string, recursive: Recursion): boolean {
  const pat = pattern.split("/").filter((s) => s !== "" && s !== ".");
  const targets = [...list.paths, ...list.samples];
  for (const target of targets) {
    const seg = segments(target);
    const depth = Math.min(pat.length, seg.length);
    let ok = true;
    for (let i = 0; i < depth && ok; i++) ok = segmentMatches(pat[i] as string, seg[i] as string);
    if (!ok) continue;
    if (pat.length >= seg.length) return true;
    const root = `/${seg.slice(0, depth).join("/")}`;
    if (recursive && (list.samples.includes(target) || walkReaches(recursive, root, target)))
      return true;
  }
  return false;
}

/** Commands that never read a file named by their arguments. */
const NON_READERS = new Set([
  "echo",
  "printf",
  "printenv",
  "pwd",
  "sleep",
  "seq",
  "true",
  "false",
  "kill",
  "basename",
  "dirname",
  "which",
  "type",
  "command",
  "test",
  "[",
  "export",
  "unset",
  "set",
  "cd",
  "pushd",
  "popd",
  "mkdir",
  "touch",
]);

const ALWAYS_RECURSIVE = new Set([
  "ack",
  "rsync",
  "scp",
  "zip",
  "7z",
  "7za",
  "ditto",
  "tar",
  "cpio",
]);

/** How a command walks directories: every entry, only visible ones (rg, ag), or not at all. */
export type Recursion = "all" | "visible" | false;

/** Commands that read whole directory trees' contents (not just names). */
export function recursiveReader(argv: string[]): Recursion {
  const real = unwrap(argv);
  const name = base(real[0] ?? "");
  const args = real.slice(1);
  const short = (letters: RegExp) => args.some((a) => /^-[A-Za-z.]+$/.test(a) && letters.test(a));
  const yes = (b: boolean): Recursion => (b ? "all" : false);
  if (ALWAYS_RECURSIVE.has(name)) return "all";
  if (name === "rg" || name === "ag") {
    const hidden =
      args.some((a) => /^--(hidden|unrestricted|no-ignore-dot)$/.test(a)) ||
      short(/\./) ||
      short(name === "rg" ? /uu/ : /u/) ||
      args.filter((a) => a === "-u").length > 1;
    return hidden ? "all" : "visible";
  }
  switch (name) {
    case "grep":
    case "egrep":
    case "fgrep":
    case "zgrep":
    case "ugrep":
      return yes(
        short(/[rR]/) ||
          args.some((a) =>
            /^--(r|re|rec|recu|recur|recurs|recursi|recursiv|recursive|dereference-recursive|d[a-z-]*=recurse)$/.test(
              a,
            ),
          ) ||
          args.some((a, i) => (a === "-d" || a === "--directories") && args[i + 1] === "recurse"),
      );
    case "cp":
    case "diff":
    case "chmod":
    case "chown":
      return yes(short(/[rRa]/) || args.some((a) => /^--(recursive|archive)/.test(a)));
    case "find":
      return yes(args.some((a) => /^-(exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(a)));
    case "git":
      return yes(args.includes("--no-index"));
    default:
      return false;
  }
}

/** Simple `NAME=value` assignments anywhere in a line (`F=~/.ssh/id_rsa; cat $F`), last one wins. */
export function lineAssignments(line: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const m of line.matchAll(/(?:^|[\s;&|(])([A-Za-z_]\w*)=("[^"]*"|'[^']*'|[^\s;&|)]*)/g))
    vars.set(m[1] as string, (m[2] as string).replace(/^["']|["']$/g, ""));
  return vars;
}
