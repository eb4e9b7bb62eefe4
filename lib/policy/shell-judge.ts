import { envSplitString, gitCall, outputsOf, sedEffects } from "./command-checks.ts";
import { base, classifyCommand, rawDanger, unwrap } from "./command-safety.ts";
import { credentialDump, gitConfigDump } from "./credential-dumps.ts";
import { foreignRepository } from "./git-repos.ts";
import { expandArgv } from "./long-options.ts";
import type { PermissionPolicy } from "./policy-types.ts";
import { protectedMatch } from "./protected-paths.ts";
import { lineAssignments, secretWord } from "./shell-secrets.ts";
import { commandText, parseShell, quoteWord, type Redirect } from "./shell-words.ts";
import { moreWrites, targetDirectory, UNKNOWN_TARGET } from "./shell-writers.ts";
import {
  displayPath,
  isInside,
  isProtectedWrite,
  isSensitivePath,
  toAbsolute,
} from "./workspace.ts";

/** What one judged part of a call is, before the mode table turns it into a verdict. */
export type Cls = "read" | "edit" | "shell" | "dangerous" | "outside" | "unknown" | "secret";

/** One judged part of a tool call: a simple command or a file it writes. */
export interface Part {
  cls: Cls;
  subject: string;
  reason?: string;
  abs?: string;
  /** For a file a shell command writes: that command's text (an allow rule naming it covers the write). */
  command?: string;
}

/** A written path: protected and outside-workspace paths are "outside", the rest an edit. */
export function pathPart(policy: PermissionPolicy, path: string, base: string): Part {
  const abs = toAbsolute(base, path, policy.home);
  const shown = displayPath(policy.workspaceRoot, abs);
  if (
    isSensitivePath(abs) ||
    isProtectedWrite(abs) ||
    (policy.protectedPaths && protectedMatch(policy.protectedPaths, abs))
  )
    return { cls: "outside", subject: shown, reason: `${shown} is a protected path`, abs };
  if (!isInside(policy.workspaceRoot, abs))
    return { cls: "outside", subject: shown, reason: shown, abs };
  return { cls: "edit", subject: shown, abs };
}

const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d)$/;

/** Splits a command line into judged parts: each simple command, and each file it writes. */
export function shellParts(policy: PermissionPolicy, line: string, dir: string, depth = 0): Part[] {
  const parsed = parseShell(line);
  if (parsed.error)
    return [{ cls: "shell", subject: line, reason: `cannot parse the command (${parsed.error})` }];
  const parts: Part[] = [];
  const raw = rawDanger(line, policy.denylist);
  if (raw) parts.push({ cls: "dangerous", subject: line, reason: raw });
  // `cd` changes where later relative paths land; a computed `cd` makes them unknowable.
  let cwd: string | undefined = dir;
  // After `ln` in the same line, a written path may run through a link that does not exist yet.
  let linked = false;
  const vars = lineAssignments(line);
  for (const original of parsed.commands) {
    const text = commandText(original);
    // `sed --e=S` is `sed --expression=S`: judge what the program will see
    const cmd = { ...original, argv: spelledOut(original.argv) };
    const secret = [
      ...cmd.argv.slice(1),
      ...cmd.redirects.filter((r) => r.op === "<").map((r) => r.target),
    ]
      .map((w) => w.replace(/^@/, "").replace(/^--?[A-Za-z-]+=@?/, ""))
      .find(
        (w) =>
          /^[~/.]/.test(w) &&
          !w.startsWith("/dev/") &&
          isSensitivePath(toAbsolute(cwd ?? dir, w, policy.home)),
      );
    const protectedWord =
      secret ??
      (policy.protectedPaths && secretWord(policy.protectedPaths, cmd, cwd, policy.home, vars));
    const dump = policy.protectedPaths
      ? (credentialDump(cmd.argv) ?? gitConfigDump(cmd.argv, cwd, policy.workspaceRoot))
      : undefined;
    if (protectedWord || dump)
      parts.push({
        cls: "secret",
        subject: text,
        reason: protectedWord
          ? `${protectedWord} is a protected path`
          : `${dump} (a protected credential store)`,
      });
    // `sh -c "…"` runs a whole command line: judge it like the outer one.
    // `find … -exec CMD {} ;` runs CMD: judge it like its own command line.
    if (base(cmd.argv[0] ?? "") === "find" && depth < 3)
      for (const seg of findExecs(cmd.argv))
        parts.push(...shellParts(policy, seg.map(quoteWord).join(" "), cwd ?? dir, depth + 1));
    const script = shellScript(cmd.argv, cmd.redirects);
    if (script !== undefined) {
      if (depth >= 3)
        parts.push({ cls: "unknown", subject: text, reason: "nested shells too deep" });
      else parts.push(...shellParts(policy, script, cwd ?? dir, depth + 1));
      continue;
    }
    if (cmd.argv.length > 0) {
      const verdict = classifyCommand(cmd);
      let cls: Cls =
        verdict.cls === "readonly" ? "read" : verdict.cls === "dangerous" ? "dangerous" : "shell";
      const gitArgv = unwrap(cmd.argv);
      if (cls === "read" && base(gitArgv[0] ?? "") === "git") {
        const here = cwd ?? dir;
        const call = gitCall(gitArgv.slice(1));
        const dirs = call.dirs.map((d) => toAbsolute(here, d, policy.home));
        const nested = foreignRepository(policy.workspaceRoot, dirs[0] ?? here, dirs);
        if (nested) {
          cls = "shell";
          verdict.reason = `git in ${displayPath(policy.workspaceRoot, nested)}, a repository inside the workspace whose config can run programs`;
        }
      }
      parts.push({
        cls,
        subject: text,
        reason: verdict.reason ? `${verdict.reason}: ${text}` : undefined,
      });
      // A command that may write, run in a directory outside the workspace, writes there.
      const here = cwd ?? dir;
      if (cls === "shell" && cwd !== undefined) {
        // …including a directory given by its own flags (make -C, npm --prefix, yarn --cwd)
        const dirs = [
          here,
          ...runDirs(unwrap(cmd.argv)).map((d) => toAbsolute(here, d, policy.home)),
        ];
        const away = dirs.find((d) => !isInside(policy.workspaceRoot, d));
        if (away)
          parts.push({
            cls: "outside",
            subject: text,
            reason: `${text} runs in ${away}, outside the workspace`,
          });
      }
    }
    const targets = cmd.redirects
      .filter((r) => r.op.includes(">") && !r.op.endsWith("&") && !HARMLESS_TARGETS.test(r.target))
      .map((r) => ({ path: r.target, dynamic: r.dynamic }));
    for (const w of writtenPaths(cmd.argv)) {
      if (w === UNKNOWN_TARGET) {
        parts.push({
          cls: "unknown",
          subject: text,
          reason: `cannot tell which files ${base(unwrap(cmd.argv)[0] ?? "")} code writes`,
        });
        continue;
      }
      if (!HARMLESS_TARGETS.test(w)) targets.push({ path: w, dynamic: /[$`*?]/.test(w) });
    }
    const real = unwrap(cmd.argv);
    if (real[0] === "git") {
      const call = gitCall(real.slice(1));
      if (verdictIsWrite(parts) && call.dirs.length)
        for (const d of call.dirs) targets.push({ path: d, dynamic: /[$`]/.test(d) });
    }
    for (const t of targets) {
      if (linked && !t.path.startsWith("/dev/")) {
        parts.push({
          cls: "unknown",
          subject: `${text} → ${t.path}`,
          reason: `cannot tell where ${t.path} is written after a link is created in the same command`,
        });
        continue;
      }
      if (t.dynamic || (cwd === undefined && !t.path.startsWith("/"))) {
        parts.push({
          cls: "unknown",
          subject: `${text} → ${t.path}`,
          reason: `cannot tell where ${t.path} is written`,
        });
        continue;
      }
      parts.push({ ...pathPart(policy, t.path, cwd ?? dir), command: text });
    }
    if (real[0] === "ln" || (real[0] === "cp" && real.some((a) => /^-[a-zA-Z]*[sl]/.test(a))))
      linked = true;
    if (cmd.argv[0] === "cd" || cmd.argv[0] === "pushd") {
      const to = cmd.argv.slice(1).filter((a) => a !== "--" && !/^-[LPe@]+$/.test(a))[0];
      cwd =
        to === undefined
          ? policy.home
          : to === "-" || /[$`]/.test(to) || cwd === undefined
            ? undefined
            : toAbsolute(cwd, to, policy.home);
    }
  }
  return parts.length ? parts : [{ cls: "read", subject: line }];
}

/** The argv with GNU long-option abbreviations spelled out, for the wrapper and the command it runs. */
function spelledOut(argv: string[]): string[] {
  const outer = expandArgv(argv);
  const real = unwrap(outer);
  if (real.length === outer.length || real.length === 0) return outer;
  return [...outer.slice(0, outer.length - real.length), ...expandArgv(real)];
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

/** Directories a build tool is told to work in (`make -C D`, `npm --prefix D`, `yarn --cwd D`). */
function runDirs(argv: string[]): string[] {
  if (base(argv[0] ?? "") === "git") return []; // git -C is judged with its subcommand
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    const m = /^--(prefix|cwd|dir|directory)=(.+)$/.exec(a);
    if (m) out.push(m[2] as string);
    else if (/^(-C|--prefix|--cwd|--dir|--directory)$/.test(a) && argv[i + 1])
      out.push(argv[++i] as string);
  }
  return out.filter((d) => !/[$`]/.test(d));
}

/** The commands of `find`'s -exec/-execdir/-ok/-okdir actions (up to `;` or `+`). */
function findExecs(argv: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 1; i < argv.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(argv[i] as string)) continue;
    const seg: string[] = [];
    for (i++; i < argv.length && argv[i] !== ";" && argv[i] !== "+"; i++)
      seg.push(argv[i] as string);
    if (seg.length) out.push(seg);
  }
  return out;
}

/** The last part judged is a command that is not read-only. */
function verdictIsWrite(parts: Part[]): boolean {
  return parts.length > 0 && parts[parts.length - 1]?.cls !== "read";
}

/**
 * The command line another command runs: `sh -c SCRIPT` / `bash -lc SCRIPT` (after wrappers),
 * `env -S 'LINE'`, or the value of `alias name='LINE'`.
 */
function shellScript(argv: string[], redirects: Redirect[] = []): string | undefined {
  if (argv[0] === "env") {
    const split = envSplitString(argv);
    if (split !== undefined) return split;
  }
  if (argv[0] === "alias")
    return argv
      .slice(1)
      .filter((a) => a.includes("="))
      .map((a) => a.slice(a.indexOf("=") + 1))
      .join("\n");
  const real = unwrap(argv);
  const name = (real[0] ?? "").split("/").pop() ?? "";
  if (!SHELLS.has(name)) return undefined;
  const flag = real.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
  if (flag > 0) return real[flag + 1] ?? "";
  // `sh <<EOF … EOF` / `bash <<< "…"` with no script file: the shell runs its stdin.
  if (real.slice(1).some((a) => !a.startsWith("-"))) return undefined;
  const fed = redirects.filter((r) => r.op === "<<<" || /(^|[^<])<<-?$/.test(r.op));
  return fed.length ? fed.map((r) => r.body ?? r.target).join("\n") : undefined;
}

/** Paths a well-known file-changing command writes (touch, mkdir, rm, mv, cp's target, sed -i …). */
export function writtenPaths(argv: string[]): string[] {
  const real = unwrap(argv);
  const name = base(real[0] ?? "");
  const operands = real.slice(1).filter((a) => !a.startsWith("-"));
  switch (name) {
    case "touch":
    case "mkdir":
    case "rm":
    case "rmdir":
    case "truncate":
    case "shred":
    case "unlink":
      return operands;
    case "mv":
      return [...operands, ...targetDirectory(real.slice(1))];
    case "ln":
      if (targetDirectory(real.slice(1)).length) return targetDirectory(real.slice(1));
      // a hard link makes its source writable through the new name
      return real.some((a) => /^(-[a-zA-Z]*s|--symbolic)/.test(a)) ? operands.slice(-1) : operands;
    case "cp":
      if (real.some((a) => /^(-[a-zA-Z]*l|--link)/.test(a))) return operands;
      if (targetDirectory(real.slice(1)).length) return targetDirectory(real.slice(1));
      return operands.length > 1 ? operands.slice(-1) : [];
    case "install":
    case "rsync":
      if (targetDirectory(real.slice(1)).length) return targetDirectory(real.slice(1));
      return operands.length > 1 ? operands.slice(-1) : [];
    case "tar":
    case "unzip":
    case "curl":
    case "wget":
      return outputsOf(name, real.slice(1));
    case "chmod":
    case "chown":
    case "chgrp":
      return operands.slice(1);
    case "sed": {
      const inPlace = real.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a));
      return [...(inPlace ? operands.slice(1) : []), ...sedEffects(real.slice(1)).writes];
    }
    case "dd":
      return real.filter((a) => a.startsWith("of=")).map((a) => a.slice(3));
    default:
      return moreWrites(name, real);
  }
}
