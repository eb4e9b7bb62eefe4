import { INTERPRETERS, READONLY, READONLY_SUB, WRAPPERS } from "./command-lists.ts";
import type { SimpleCommand } from "./shell-words.ts";

export type CommandClass = "readonly" | "other" | "dangerous";

export interface CommandVerdict {
  cls: CommandClass;
  reason?: string;
}

/** Inline interpreter code that deletes, runs processes or opens sockets (python -c, node -e …). */
const RISKY_INLINE =
  /rmtree|os\.remove|os\.unlink|os\.system|subprocess|shutil\.move|unlinkSync|rmSync|rmdirSync|child_process|execSync|spawnSync|\bsystem\s*\(|\bexec\s*\(|`[^`]*`|rm\s+-[a-z]*[rf]|socket|eval\s*\(/;

function base(word: string): string {
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
    let i = 1;
    while (
      i < rest.length &&
      ((rest[i] as string).startsWith("-") ||
        /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[i] as string) ||
        (name === "timeout" && /^\d/.test(rest[i] as string)))
    )
      i++;
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
      const sub = args.find((a) => !a.startsWith("-"));
      if (
        sub === "push" &&
        args.some(
          (a) =>
            /^(-f|--force|--force-with-lease.*|--mirror|--delete|-d)$/.test(a) || /^\+/.test(a),
        )
      )
        return "git push --force";
      if (sub === "reset" && args.includes("--hard")) return "git reset --hard";
      if (sub === "clean" && hasFlag(args, "f")) return "git clean -f";
      if (sub === "checkout" && args.includes("--") && args.includes("."))
        return "git checkout -- . discards changes";
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
    case "kill":
      return args.includes("-9") && args.includes("1") ? "kill init" : undefined;
    case "pkill":
      return args.includes("-9") ? "pkill -9" : undefined;
    case "crontab":
      return args.includes("-r") ? "crontab -r" : undefined;
    case "iptables":
      return hasFlag(args, "F") ? "iptables -F" : undefined;
    case "nc":
    case "ncat":
      return hasFlag(args, "e", "l") ? "netcat listener or exec" : undefined;
    default:
      if (/^mkfs/.test(name)) return "mkfs formats a filesystem";
      if (INTERPRETERS.has(name)) {
        const flag = args.findIndex((a) => /^-(c|e|r|-eval)$/.test(a));
        const code = flag >= 0 ? (args[flag + 1] ?? "") : "";
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
  const subs = READONLY_SUB[name];
  if (subs) {
    const sub = args.find((a) => !a.startsWith("-") || subs.has(a));
    if (!sub || !subs.has(sub)) return name === "git" && gitListing(args);
    if (name === "git" && sub === "config") return false;
    return true;
  }
  if (!READONLY.has(name)) return false;
  if (name === "find")
    return !args.some((a) => /^-(delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$/.test(a));
  if (name === "sed")
    return (
      !args.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a)) &&
      !args.some((a) => /(^|[;}\s])[ew](\s|$)/.test(a))
    );
  if (name === "sort") return !args.some((a) => /^(-o|--output)/.test(a));
  if (name === "tail" || name === "less" || name === "more")
    return !hasFlag(args, "f", "F") && !args.includes("--follow");
  if (name === "awk") return !args.some((a) => /system\s*\(|\|\s*"|>\s*"|getline/.test(a));
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

/** Judges one simple command: read-only (auto-allowed), other, or dangerous (with why). */
export function classifyCommand(cmd: SimpleCommand): CommandVerdict {
  if (cmd.argv.length === 0) return { cls: "readonly" };
  const argv = unwrap(cmd.argv);
  if (argv.length === 0) return { cls: "other", reason: "wrapper without a command" };
  const danger = dangerous(argv, cmd) ?? (argv !== cmd.argv ? dangerous(cmd.argv, cmd) : undefined);
  if (danger) return { cls: "dangerous", reason: danger };
  if (argv !== cmd.argv && base(cmd.argv[0] as string) === "xargs") return { cls: "other" };
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
    try {
      if (new RegExp(pattern, "i").test(line)) return `matches CHATCLI_AGENT_DENYLIST (${pattern})`;
    } catch {
      // an invalid user regex is ignored
    }
  }
  return undefined;
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
    case "mv":
    case "truncate":
    case "shred":
    case "unlink":
      return operands;
    case "cp":
    case "ln":
    case "install":
    case "rsync":
      return operands.length > 1 ? operands.slice(-1) : [];
    case "chmod":
    case "chown":
    case "chgrp":
      return operands.slice(1);
    case "sed":
      return real.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a))
        ? operands.slice(1)
        : [];
    case "dd":
      return real.filter((a) => a.startsWith("of=")).map((a) => a.slice(3));
    default:
      return [];
  }
}
