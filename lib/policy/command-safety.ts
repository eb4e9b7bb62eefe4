import {
  argsStayReadonly,
  awkProgram,
  gitArgsWrite,
  gitCall,
  gitConfigDanger,
  riskyAssignments,
  sedEffects,
  uploads,
  WRAPPER_VALUE_OPTS,
} from "./command-checks.ts";
import { INTERPRETERS, READONLY, READONLY_SUB, WRAPPERS } from "./command-lists.ts";
import { compileUntrustedPattern, isPatternError, type UntrustedPattern } from "./patterns.ts";
import type { SimpleCommand } from "./shell-words.ts";

export type CommandClass = "readonly" | "other" | "dangerous";

export interface CommandVerdict {
  cls: CommandClass;
  reason?: string;
}

/** Inline interpreter code that deletes, runs processes or opens sockets (python -c, node -e …). */
const RISKY_INLINE =
  /rmtree|os\.remove|os\.unlink|os\.system|subprocess|shutil\.move|unlinkSync|rmSync|rmdirSync|child_process|execSync|spawnSync|\bsystem\s*\(|\bexec\s*\(|`[^`]*`|rm\s+-[a-z]*[rf]|socket|eval\s*\(|\bunlink\b|\brmdir\b|\bremove_tree\b|\bFileUtils\b/;

export function base(word: string): string {
  return (word.split("/").pop() ?? word).replace(/\.(exe|bat|cmd)$/i, "").toLowerCase();
}

function hasFlag(args: string[], ...letters: string[]): boolean {
  return args.some((a) => /^-[A-Za-z]+$/.test(a) && letters.some((l) => a.slice(1).includes(l)));
}

/** Strips wrappers (`env X=1`, `nice -n 5`, `timeout 10`, `xargs -0`) to reach the real command. */
export function unwrap(argv: string[]): string[] {
  let rest = argv;
  for (let guard = 0; guard < 5 && rest.length > 0; guard++) {
    const name = base(rest[0] as string);
    if (!WRAPPERS.has(name)) break;
    if (
      name === "env" &&
      rest.slice(1).every((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a) || a.startsWith("-"))
    )
      break;
    const valued = WRAPPER_VALUE_OPTS[name];
    let duration = name === "timeout";
    let i = 1;
    while (i < rest.length) {
      const a = rest[i] as string;
      if (a === "--") {
        i++;
        break;
      }
      if (valued?.has(a)) i += 2;
      else if (a.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
      else if (duration && /^\d/.test(a)) {
        duration = false;
        i++;
      } else break;
    }
    rest = rest.slice(i);
  }
  return rest;
}

function dangerous(argv: string[], cmd: SimpleCommand): string | undefined {
  const name = base(argv[0] as string);
  const args = argv.slice(1);
  switch (name) {
    case "rm":
      if (
        hasFlag(args, "r", "R", "f") ||
        args.some((a) => /^--(recursive|force|no-preserve-root)$/.test(a))
      )
        return "recursive or forced deletion";
      return undefined;
    case "sudo":
    case "su":
    case "doas":
      return "privilege escalation";
    case "find":
      if (args.includes("-delete")) return "find -delete";
      if (
        args.some((a) => /^-(exec|execdir|ok)$/.test(a)) &&
        args.some((a) => /^(rm|shred|mv|dd|chmod|chown)$/.test(base(a)))
      )
        return "find -exec with a destructive command";
      return undefined;
    case "dd":
      return args.some((a) => /^of=\/dev\//.test(a)) ? "dd to a device" : undefined;
    case "shred":
    case "wipefs":
    case "fdisk":
    case "parted":
    case "mkswap":
    case "shutdown":
    case "reboot":
    case "poweroff":
    case "halt":
    case "killall":
    case "eval":
      return `${name} is destructive or unreviewable`;
    case "init":
      return /^[06]$/.test(args[0] ?? "") ? "system halt" : undefined;
    case "git": {
      const call = gitCall(args);
      const sub = call.sub;
      const configDanger = gitConfigDanger(call);
      if (configDanger) return configDanger;
      if (sub === "push") {
        const rest = call.rest;
        if (
          rest.some(
            (a) =>
              /^(--force|--force-with-lease|--force-if-includes|--mirror|--delete|--prune)(=|$)/.test(
                a,
              ) ||
              (/^-[a-zA-Z]+$/.test(a) && /[fd]/.test(a)) ||
              /^\+/.test(a),
          )
        )
          return "git push --force";
        // `git push origin :ref` (or `+a:b`, `:` alone) deletes or overwrites remote refs
        if (rest.filter((a) => !a.startsWith("-")).some((a, i) => i > 0 && a.startsWith(":")))
          return "git push :ref deletes a remote branch";
      }
      if (sub === "reset" && call.rest.some((a) => /^--(hard|merge|keep)$/.test(a)))
        return "git reset --hard";
      if (sub === "clean" && (hasFlag(call.rest, "f") || call.rest.includes("--force")))
        return "git clean -f";
      const all = (a: string) => a === "." || a === ":/" || a === "*";
      if (sub === "checkout" && call.rest.some(all)) return "git checkout . discards changes";
      if (
        (sub === "checkout" || sub === "switch") &&
        call.rest.some(
          (a) =>
            /^(--force|--discard-changes)$/.test(a) || (/^-[a-zA-Z]+$/.test(a) && a.includes("f")),
        )
      )
        return `git ${sub} -f discards changes`;
      if (
        sub === "reflog" &&
        /^(expire|delete)$/.test(call.rest.find((a) => !a.startsWith("-")) ?? "")
      )
        return "git reflog expire/delete drops the history that recovers lost commits";
      if (sub === "stash" && /^(drop|clear)$/.test(call.rest.find((a) => !a.startsWith("-")) ?? ""))
        return `git stash ${call.rest.find((a) => !a.startsWith("-"))} loses stashed work`;
      if (
        sub === "branch" &&
        call.rest.some((a) => /^(-D|--delete=?.*)$/.test(a)) &&
        call.rest.some((a) => /^(-D|-f|--force)$/.test(a))
      )
        return "git branch -D";
      if (
        sub === "restore" &&
        call.rest.some(all) &&
        (!call.rest.some((a) => /^(--staged|-S)$/.test(a)) ||
          call.rest.some((a) => /^(--worktree|-W)$/.test(a)))
      )
        return "git restore . discards changes";
      return undefined;
    }
    case "chmod":
    case "chown":
      if (hasFlag(args, "R") || args.includes("--recursive")) {
        if (
          name === "chown" ||
          args.some((a) => /^(0?777|a\+rwx|ugo\+rwx)$/.test(a)) ||
          args.includes("/")
        )
          return `${name} -R`;
      }
      if (
        name === "chmod" &&
        args.some((a) => /^0?777$/.test(a)) &&
        args.some((a) => a === "/" || a.startsWith("/etc"))
      )
        return "chmod 777 on system paths";
      return undefined;
    case "kill": {
      let pids = args;
      if (pids[0] === "-s" || pids[0] === "-n") pids = pids.slice(2);
      else if (pids.length > 1 && /^-[A-Za-z0-9]+$/.test(pids[0] as string)) pids = pids.slice(1);
      if (pids[0] === "--") pids = pids.slice(1);
      return pids.some((p) => p === "1" || p === "-1") ? "kill init or every process" : undefined;
    }
    case "pkill":
      return args.includes("-9") ? "pkill -9" : undefined;
    case "crontab":
      return args.includes("-r") ? "crontab -r" : undefined;
    case "iptables":
      return hasFlag(args, "F") ? "iptables -F" : undefined;
    case "nc":
    case "ncat":
    case "netcat":
    case "socat":
    case "telnet":
      return "raw network connection (can send local data anywhere)";
    case "curl":
    case "wget":
      return uploads(name, args);
    case "sed":
      return sedEffects(args).runs ? "sed script that runs commands (e)" : undefined;
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return RISKY_INLINE.test(awkProgram(args) ?? "")
        ? "awk program that runs commands"
        : undefined;
    default:
      if (/^mkfs/.test(name)) return "mkfs formats a filesystem";
      if (INTERPRETERS.has(name)) {
        const flag = args.findIndex((a) => /^-[a-zA-Z]*[ceEpr]$|^--(eval|print)$/.test(a));
        const inline = flag >= 0 ? (args[flag + 1] ?? "") : "";
        const fed = cmd.redirects.filter((r) => r.op === "<<<" || /<<-?$/.test(r.op));
        const code = [inline, ...fed.map((r) => r.body ?? r.target)].join("\n");
        if (RISKY_INLINE.test(code))
          return `inline ${name} code that deletes files or runs commands`;
      }
      if (/^(insmod|rmmod|modprobe)$/.test(name)) return "kernel module change";
      if (INTERPRETERS.has(name) && cmd.pipeSource && !args.some((a) => !a.startsWith("-"))) {
        return `piping into ${name} runs unreviewed code`;
      }
      return undefined;
  }
}

function readonly(argv: string[]): boolean {
  const name = base(argv[0] as string);
  const args = argv.slice(1);
  if (name === "git") {
    const call = gitCall(args);
    if (call.risky || call.config.length > 0 || !call.sub) return false;
    if (gitArgsWrite(call.rest)) return false;
    if (READONLY_SUB["git"]?.has(call.sub)) return true;
    return gitListing([call.sub, ...call.rest]);
  }
  const subs = READONLY_SUB[name];
  if (subs) {
    const sub = args.find((a) => !a.startsWith("-") || subs.has(a));
    if (!sub || !subs.has(sub)) return false;
    return argsStayReadonly(name, args);
  }
  if (!READONLY.has(name)) return false;
  if (!argsStayReadonly(name, args)) return false;
  if (name === "less" || name === "more")
    // -k/--lesskey-file, LESSOPEN from a key file, +commands, log files: not a plain read
    return (
      args.every((a) => !a.startsWith("-") || PAGER_SAFE.test(a)) &&
      !args.some((a) => a.startsWith("+"))
    );
  if (name === "tail")
    return !hasFlag(args, "f", "F") && !args.some((a) => /^--follow(=|$)/.test(a));
  if (name === "env" || name === "time") return args.length === 0;
  return true;
}

function gitListing(args: string[]): boolean {
  const sub = args[0];
  if (sub === "branch" || sub === "tag" || sub === "remote") {
    return args
      .slice(1)
      .every((a) => /^(-a|-r|-v|-vv|--list|-l|--all|--remotes|--verbose|--show-current)$/.test(a));
  }
  if (sub === "stash") return args[1] === "list" || args[1] === "show";
  return false;
}

/** A word the shell expands into other words (`r[m]`, `/???/r?`, `{rm,-rf}`); `[` / `[[` are the test builtin. */
function isPattern(word: string): boolean {
  if (word === "[" || word === "[[") return false;
  return /[*?]|\[[^\]]*\]|\{[^}]*,[^}]*\}|\{\w+\.\.\w+\}/.test(word);
}

/** Options of `less`/`more` that do not load key files, log files or preprocessors. */
const PAGER_SAFE =
  /^(-[NnRrSXFiIMmeEsqQJKcCdfLwW~]+|--(line-numbers|LINE-NUMBERS|raw-control-chars|RAW-CONTROL-CHARS|chop-long-lines|no-init|quit-if-one-screen|quit-at-eof|QUIT-AT-EOF|ignore-case|IGNORE-CASE|LONG-PROMPT|squeeze-blank-lines|quiet|QUIET|silent|SILENT|no-keypad|help|version)|-x\d+|--tabs=\d+)$/;

/** Judges one simple command: read-only (auto-allowed), other, or dangerous (with why). */
export function classifyCommand(cmd: SimpleCommand): CommandVerdict {
  if (cmd.argv.length === 0) return { cls: "readonly" };
  const argv = unwrap(cmd.argv);
  if (argv.length === 0) return { cls: "other", reason: "wrapper without a command" };
  if (/[$`]/.test(argv[0] as string) || /[$`]/.test(cmd.argv[0] as string))
    return { cls: "dangerous", reason: "command name known only at run time" };
  const globbed = [argv[0] as string, cmd.argv[0] as string].find(isPattern);
  if (globbed)
    return {
      cls: "dangerous",
      reason: `command name ${globbed} is a glob or brace pattern (the shell picks the program)`,
    };
  const danger = dangerous(argv, cmd) ?? (argv !== cmd.argv ? dangerous(cmd.argv, cmd) : undefined);
  if (danger) return { cls: "dangerous", reason: danger };
  if (argv !== cmd.argv && base(cmd.argv[0] as string) === "xargs") return { cls: "other" };
  const envAssigns = cmd.argv
    .slice(0, cmd.argv.length - argv.length)
    .filter((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
  if (riskyAssignments([...(cmd.assigns ?? []), ...envAssigns])) return { cls: "other" };
  return readonly(argv) ? { cls: "readonly" } : { cls: "other" };
}

const RAW_DANGER: Array<[RegExp, string]> = [
  [/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/, "fork bomb"],
  [/\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\b/, "fork bomb"],
  [/\/dev\/tcp\//, "raw /dev/tcp socket"],
];

/** Whole-line patterns no part-by-part view catches (fork bombs, /dev/tcp), plus CHATCLI_AGENT_DENYLIST. */
export function rawDanger(line: string, denylist?: string): string | undefined {
  for (const [re, why] of RAW_DANGER) if (re.test(line)) return why;
  for (const pattern of (denylist ?? "")
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean)) {
    // RE2: a workspace's .env may set this list; a catastrophic pattern costs linear time
    const re = denyPattern(pattern);
    if (re?.test(line)) return `matches CHATCLI_AGENT_DENYLIST (${pattern})`;
  }
  return undefined;
}

/** The CHATCLI_AGENT_DENYLIST entries RE2 cannot compile (ignored; the run warns), quoted. */
export function invalidDenylist(denylist: string | undefined): string[] {
  return (denylist ?? "")
    .split(";")
    .map((s) => s.trim())
    .filter((p) => p && !denyPattern(p))
    .map((p) => JSON.stringify(p));
}

const DENY_CACHE = new Map<string, UntrustedPattern | undefined>();

/** A CHATCLI_AGENT_DENYLIST entry compiled once (undefined: RE2 refuses it, and it is ignored). */
function denyPattern(source: string): UntrustedPattern | undefined {
  if (!DENY_CACHE.has(source)) {
    if (DENY_CACHE.size > 256) DENY_CACHE.clear();
    const re = compileUntrustedPattern(source, { ignoreCase: true });
    DENY_CACHE.set(source, isPatternError(re) ? undefined : re);
  }
  return DENY_CACHE.get(source);
}
