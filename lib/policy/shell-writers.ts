/**
 * Files that less obvious writers write (issue 11): `tee` by any path, `cp/mv/ln/install -t DIR`,
 * `uniq IN OUT`, `sort -o F`, `perl -pi`, `zip`, `gzip`, `git init DIR`, `git diff --output=F`, and
 * interpreter one-liners that open files for writing (`python3 -c 'open("f","w")'`). Abbreviated long
 * options are already spelled out (long-options.ts).
 */

import { gitCall } from "./command-checks.ts";

/** Marks a write whose target only the program knows (inline code writing a computed path). */
export const UNKNOWN_TARGET = "\u0000unknown";

function operands(args: string[], valued: RegExp = /^$/): string[] {
  const out: string[] = [];
  let done = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (done || !a.startsWith("-") || a === "-") out.push(a);
    else if (a === "--") done = true;
    else if (valued.test(a)) i++;
  }
  return out;
}

function optionValue(args: string[], short: string, long: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") break;
    if (a === short || a === `--${long}`) out.push(args[++i] ?? "");
    else if (a.startsWith(`--${long}=`)) out.push(a.slice(long.length + 3));
    else if (short && a.startsWith(short) && a.length > 2 && !a.startsWith("--"))
      out.push(a.slice(2));
  }
  return out.filter(Boolean);
}

/** `cp/mv/ln/install -t DIR` / `--target-directory=DIR`, if given. */
export function targetDirectory(args: string[]): string[] {
  return optionValue(args, "-t", "target-directory");
}

const INLINE_WRITE =
  /\bopen\s*\([^)]*,\s*(?:mode\s*=\s*)?["'][^"']*[wax+]|write_(?:text|bytes)\s*\(|\.(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|copyFileSync|renameSync|mkdirSync|truncateSync)\s*\(|Bun\.write\s*\(|File\.(?:write|open)\s*\(|IO\.write|\bopen\s*\(?\s*(?:my\s+)?\$?\w*\s*,\s*["']?\s*(?:>|\+<)|shutil\.(?:copy|move)|os\.(?:rename|replace|mkdir|makedirs)|touch\s*\(|Path\([^)]*\)\.(?:mkdir|touch|rename)/;
const LITERAL_TARGET =
  /(?:open|write_text|write_bytes|writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|Bun\.write|File\.write|IO\.write|Path)\s*\(\s*["']([^"']+)["']/g;

const SCRIPTING = new Set([
  "python",
  "python3",
  "python2",
  "perl",
  "ruby",
  "node",
  "bun",
  "deno",
  "php",
]);

/** The inline program of `python3 -c CODE`, `node -e CODE`, `perl -e CODE` …, if any. */
function inlineCode(name: string, args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (/^-[a-zA-Z]*[ceE]$/.test(a) || /^--(eval|print)$/.test(a)) return args[i + 1] ?? "";
    if (/^--(eval|print)=/.test(a)) return a.slice(a.indexOf("=") + 1);
    if (name.startsWith("python") && /^-c./.test(a)) return a.slice(2);
    if (!a.startsWith("-")) return undefined;
  }
  return undefined;
}

/** Paths written by `real` (wrappers already stripped); UNKNOWN_TARGET when not knowable. */
export function moreWrites(name: string, real: string[]): string[] {
  const args = real.slice(1);
  switch (name) {
    case "tee":
      return operands(args);
    case "cp":
    case "mv":
    case "ln":
    case "install":
      return targetDirectory(args);
    case "uniq": {
      const ops = operands(args, /^(-f|-s|-w)$/);
      return ops.length > 1 ? ops.slice(1, 2) : [];
    }
    case "sort":
      return optionValue(args, "-o", "output");
    case "zip":
      return operands(args, /^(-b|-n|-t|-tt|-x|-i|-P|-Z|-s|-O|--out)$/)
        .slice(0, 1)
        .concat(optionValue(args, "-O", "out"));
    case "gzip":
    case "gunzip":
    case "bzip2":
    case "bunzip2":
    case "xz":
    case "unxz":
    case "zstd":
    case "lz4":
      return args.some((a) => /^(-[a-zA-Z]*c|--stdout|--to-stdout|-t|--test|-l|--list)$/.test(a))
        ? []
        : operands(args, /^(-S|--suffix|-o)$/);
    case "git":
      return gitWrites(args);
    case "split":
    case "csplit": {
      // split [OPTION]… [FILE [PREFIX]]: pieces are PREFIXaa, PREFIXab …
      const ops = operands(
        args,
        /^(-[abClnt]|--(?:bytes|lines|line-bytes|number|suffix-length|additional-suffix|separator|prefix))$/,
      );
      return ops.length > 1 ? [`${ops[ops.length - 1]}aa`] : [];
    }
    case "patch":
      return [
        ...optionValue(args, "-o", "output"),
        ...operands(
          args,
          /^(-p\d*|-d|-i|-o|-r|-B|-V|-z|-F|--directory|--input|--output|--reject-file|--prefix|--suffix|--fuzz)$/,
        ).slice(0, 1),
      ];
    case "mkfifo":
    case "mknod":
      return operands(args, /^(-m|--mode|-Z|--context)$/).slice(0, 1);
    case "sqlite3":
      return operands(args, /^(-cmd|-separator|-newline|-nullvalue|-init)$/).slice(0, 1);
    default:
      break;
  }
  if (SCRIPTING.has(name) || /^python3\.\d+$/.test(name)) {
    const writes: string[] = [];
    // perl -pi / -i.bak / ruby -i: every file operand is rewritten
    if ((name === "perl" || name === "ruby") && args.some((a) => /^-[a-zA-Z]*i/.test(a))) {
      const ops: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const a = args[i] as string;
        if (/^-[a-zA-Z]*[eE]$/.test(a)) i++;
        else if (!a.startsWith("-")) ops.push(a);
      }
      writes.push(...ops);
    }
    const code = inlineCode(name, args);
    if (code !== undefined && INLINE_WRITE.test(code)) {
      const literal = [...code.matchAll(LITERAL_TARGET)].map((m) => m[1] as string);
      writes.push(...(literal.length ? literal : [UNKNOWN_TARGET]));
    }
    return writes;
  }
  return [];
}

/** `git init DIR`, `git clone URL DIR`, `--output=F`, `format-patch -o DIR`, `archive -o F`, `bundle create F`. */
function gitWrites(args: string[]): string[] {
  const call = gitCall(args);
  const out = [
    ...optionValue(call.rest, "", "output"),
    ...optionValue(call.rest, "", "output-directory"),
  ];
  switch (call.sub) {
    case "init": {
      const ops = operands(
        call.rest,
        /^(--template|--separate-git-dir|-b|--initial-branch|--object-format|--ref-format|--shared)$/,
      );
      out.push(ops[0] ?? ".", ...optionValue(call.rest, "", "separate-git-dir"));
      break;
    }
    case "clone": {
      const ops = operands(
        call.rest,
        /^(-o|-b|-u|--origin|--branch|--upload-pack|--reference|--depth|--config|-c|--separate-git-dir|--template|-j|--jobs|--filter)$/,
      );
      if (ops.length > 1) out.push(ops[1] as string);
      break;
    }
    case "format-patch":
    case "archive":
      out.push(...optionValue(call.rest, "-o", "output"));
      break;
    case "bundle":
      if (call.rest[0] === "create" && call.rest[1]) out.push(call.rest[1]);
      break;
    case "worktree":
      if (call.rest[0] === "add")
        out.push(...operands(call.rest.slice(1), /^(-b|-B)$/).slice(0, 1));
      break;
    default:
      break;
  }
  return [...new Set(out)];
}
