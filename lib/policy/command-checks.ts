/**
 * Finer checks of the shell-command judge: wrapper options that take a value, flags that make a
 * "read-only" program write files or run code, and environment that changes what a program runs.
 */

/** Wrapper options whose value is a separate word (`nice -n 5`, `timeout -s KILL 5`, `xargs -n 1`). */
export const WRAPPER_VALUE_OPTS: Record<string, Set<string>> = {
  nice: new Set(["-n", "--adjustment"]),
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  ionice: new Set(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  xargs: new Set([
    "-I",
    "-n",
    "-P",
    "-d",
    "-a",
    "-L",
    "-s",
    "-E",
    "--max-args",
    "--max-procs",
    "--delimiter",
    "--arg-file",
    "--max-lines",
    "--max-chars",
    "--eof",
  ]),
  watch: new Set(["-n", "--interval"]),
  parallel: new Set(["-j", "--jobs", "-N", "-n", "-S", "--sshlogin", "-a", "--arg-file"]),
  env: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
  time: new Set(["-f", "--format", "-o", "--output"]),
  exec: new Set(["-a"]),
};

/** The command line given to `env -S '…'` / `env --split-string=…`, if any. */
export function envSplitString(argv: string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "-S" || a === "--split-string") return argv[i + 1] ?? "";
    if (a.startsWith("--split-string=")) return a.slice("--split-string=".length);
    if (/^-S./.test(a)) return a.slice(2);
    if (!a.startsWith("-") && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) return undefined;
  }
  return undefined;
}

/** Variables a read-only command may be given without changing what it runs (`LC_ALL=C sort`). */
const HARMLESS_ENV =
  /^(LC_[A-Z_]+|LANG|LANGUAGE|TZ|TERM|COLUMNS|LINES|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|GREP_COLORS?|TIME_STYLE|POSIXLY_CORRECT|CI)=/;

/** Whether assignments (`GIT_EXTERNAL_DIFF=x`, `PATH=.`, `LD_PRELOAD=…`) could make a program run other code. */
export function riskyAssignments(assigns: string[]): boolean {
  return assigns.some((a) => !HARMLESS_ENV.test(a));
}

/** Git options before the subcommand that take a separate value. */
const GIT_GLOBAL_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--config-env",
  "--super-prefix",
]);

export interface GitCall {
  /** The subcommand (`status`), if any. */
  sub?: string;
  /** Arguments after the subcommand. */
  rest: string[];
  /** `-c key=value` / `--config-env` settings given on the command line. */
  config: string[];
  /** Directories named by `-C`, `--git-dir`, `--work-tree`. */
  dirs: string[];
  /** A global option that changes which programs git runs (`--exec-path`, `-c`). */
  risky: boolean;
}

/** Splits `git [global options] SUB ARGS` (so `git -C .. clean -fdx` is seen as `clean`). */
export function gitCall(args: string[]): GitCall {
  const call: GitCall = { rest: [], config: [], dirs: [], risky: false };
  let i = 0;
  while (i < args.length) {
    const a = args[i] as string;
    const eq = a.indexOf("=");
    const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    const joined = a.startsWith("--") && eq > 0 ? a.slice(eq + 1) : undefined;
    if (GIT_GLOBAL_VALUE.has(name)) {
      const value = joined ?? (args[i + 1] as string | undefined) ?? "";
      if (name === "-c" || name === "--config-env") call.config.push(value);
      if (name === "-C" || name === "--git-dir" || name === "--work-tree") call.dirs.push(value);
      if (name !== "-C" && name !== "--git-dir" && name !== "--work-tree") call.risky = true;
      i += joined === undefined ? 2 : 1;
      continue;
    }
    if (a.startsWith("-")) {
      if (/^--exec-path/.test(a)) call.risky = true;
      i++;
      continue;
    }
    call.sub = a;
    call.rest = args.slice(i + 1);
    break;
  }
  return call;
}

/** Config keys whose values are commands git runs (or aliases that hide another subcommand). */
const GIT_COMMAND_KEYS =
  /^(alias\.|core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy)|diff\.external|diff\..+\.(textconv|command)|filter\.|merge\..+\.driver|credential\.|sequence\.editor|gpg\.|uploadpack\.|protocol\.|include\.|includeif\.)/i;

/** Why a git configuration (from `-c` or `git config`) lets git run arbitrary commands, if it does. */
export function gitConfigDanger(call: GitCall): string | undefined {
  const keys = call.config.map((c) => c.split("=")[0] ?? "");
  if (call.sub === "config") {
    // any word may be the key (`git config --file .git/config alias.x '!…'`); a lone one only reads
    const words = call.rest.filter((a) => !a.startsWith("-"));
    if (words.length > 1 || call.rest.some((a) => /^--(add|replace-all)$/.test(a)))
      keys.push(...words);
  }
  const bad = keys.find((k) => GIT_COMMAND_KEYS.test(k));
  return bad ? `git configuration ${bad} runs arbitrary commands` : undefined;
}

/** Arguments that make an otherwise read-only git subcommand write a file or run a program. */
export function gitArgsWrite(rest: string[]): boolean {
  return rest.some((a) =>
    /^(--output(=|$)|-O|--open-files-in-pager|--ext-diff$|--textconv$)/.test(a),
  );
}

/** Flags that make a listed read-only program write files or run commands. */
const UNSAFE_FLAGS: Record<string, RegExp> = {
  rg: /^--pre(=|$)/,
  sort: /^(-o|--output|--compress-program)/,
  yq: /^(-i|--inplace|-[a-zA-Z]*i)/,
  // --noent/--loaddtd/--xinclude/--valid resolve external entities and DTDs (file:///…/.ssh/id_rsa)
  xmllint:
    /^(-o|--output|--shell|--noent|--loaddtd|--dtdattr|--xinclude|--valid|--postvalid|--dtdvalid|--path|--load-trace|--catalogs)/,
  tree: /^(-o|-R)/,
  date: /^(-s|--set)/,
  file: /^(-C|--compile)/,
  find: /^-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/,
  go: /^(-w|-u|-vettool|--?toolexec|-exec)(=|$)/,
  kubectl: /^--(kubeconfig|exec)/,
};

/** Whether a read-only program's arguments keep it read-only. */
export function argsStayReadonly(name: string, args: string[]): boolean {
  const unsafe = UNSAFE_FLAGS[name];
  if (unsafe && args.some((a) => unsafe.test(a))) return false;
  const operands = args.filter((a) => !a.startsWith("-"));
  if (name === "uniq") return operands.length <= 1;
  if (name === "hostname")
    return operands.length === 0 && !args.some((a) => /^(-F|--file|-b)/.test(a));
  if (name === "sed") return sedReadonly(args);
  if (name === "awk") return awkReadonly(args);
  return true;
}

const SED_ADDR = String.raw`(?:\d+(?:~\d+)?|\$|\/(?:[^\/\\]|\\.)*\/[IM]*)`;
const SED_PREFIX = new RegExp(`^(?:${SED_ADDR}(?:\\s*,\\s*(?:${SED_ADDR}|[+~]\\d+))?)?\\s*!?\\s*`);
const SED_SAFE = [
  /^[pdqQnNlgGhHxzDP=]?$/,
  /^[{}]$/,
  /^[btT]\s*\w*$/,
  /^:\w+$/,
  /^s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9]*$/,
  /^y(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1$/,
];

/** A sed script made only of commands that print (no `e`, `w`, `r`, `s///e`, `s///w`). */
export function sedScriptSafe(script: string): boolean {
  return script
    .split(/[;\n]/)
    .map((c) => c.trim())
    .every((c) => {
      const body = c.replace(SED_PREFIX, "").trim();
      return SED_SAFE.some((re) => re.test(body));
    });
}

/** The scripts of a sed call (`-e S`, `--expression=S`, or the first operand); undefined with -f. */
function sedScripts(args: string[]): string[] | undefined {
  const scripts: string[] = [];
  let explicit = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (/^(-f|--file)/.test(a) || /^-[a-zA-Z]*f$/.test(a)) return undefined;
    if (a.startsWith("--expression=")) {
      scripts.push(a.slice("--expression=".length));
      explicit = true;
    } else if (a === "--expression" || /^-[a-zA-Z]*e$/.test(a)) {
      scripts.push(args[++i] ?? "");
      explicit = true;
    } else if (!explicit && !a.startsWith("-")) {
      scripts.push(a);
      explicit = true;
    }
  }
  return scripts;
}

function sedReadonly(args: string[]): boolean {
  if (args.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a))) return false;
  return sedScripts(args)?.every(sedScriptSafe) ?? false;
}

/** What a sed script does beyond printing: runs commands (`e`, `s///e`), writes files (`w F`, `s///w F`). */
export function sedEffects(args: string[]): { runs: boolean; writes: string[]; reads: string[] } {
  const effects = { runs: false, writes: [] as string[], reads: [] as string[] };
  for (const script of sedScripts(args) ?? [])
    for (const raw of script.split(/[;\n]/)) {
      const body = raw.trim().replace(SED_PREFIX, "").trim();
      if (/^e(\s|$)/.test(body)) effects.runs = true;
      const w = /^[wW]\s*(\S.*)$/.exec(body);
      if (w) effects.writes.push((w[1] as string).trim());
      const r = /^[rR]\s*(\S.*)$/.exec(body);
      if (r) effects.reads.push((r[1] as string).trim());
      const sub = /^s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1([a-zA-Z0-9]*)\s*(.*)$/.exec(
        body,
      );
      if (sub && (sub[2] as string).includes("e")) effects.runs = true;
      if (sub && (sub[2] as string).includes("w") && sub[3]) effects.writes.push(sub[3] as string);
    }
  return effects;
}

/** The program text of `awk [-F x] [-v a=b] 'PROGRAM' files…`. */
export function awkProgram(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-F" || a === "-v" || a === "--assign" || a === "--field-separator") i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

function awkReadonly(args: string[]): boolean {
  if (args.some((a) => /^(-f|--file|-i|--include|-l|--load|-E|--exec)/.test(a))) return false;
  return !/system\s*\(|\||getline|printf?[^;}]*>/.test(awkProgram(args) ?? "");
}

/** Why a curl/wget call sends local files to a non-local host, if it does. */
export function uploads(name: string, args: string[]): string | undefined {
  const local = args
    .filter((a) => /^(https?|ftp):\/\/|^[\w.-]+(:\d+)?(\/|$)/.test(a) && !a.startsWith("-"))
    .every((a) => /^((https?|ftp):\/\/)?(127\.0\.0\.1|localhost|\[::1\])([:/]|$)/.test(a));
  if (local) return undefined;
  const sends = args.some(
    (a, i) =>
      /^(-T|--upload-file|--post-file|--body-file)/.test(a) ||
      /^(-d|--data(-binary|-raw|-urlencode)?|--json)=?@/.test(a) ||
      (/^(-d|--data(-binary|-raw|-urlencode)?|--json)$/.test(a) && /^@/.test(args[i + 1] ?? "")) ||
      (/^(-F|--form)$/.test(a) && /=[@<]/.test(args[i + 1] ?? "")) ||
      /^(-F|--form=?).*=[@<]/.test(a),
  );
  return sends ? `${name} uploads a local file to a remote host` : undefined;
}

/** The value of an option given as `-o X`, `-oX`, `--output X` or `--output=X`. */
function optionValues(args: string[], short: string[], long: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (short.includes(a) || long.includes(a)) out.push(args[++i] ?? "");
    else if (long.some((l) => a.startsWith(`${l}=`))) out.push(a.slice(a.indexOf("=") + 1));
    else if (short.some((s) => a.startsWith(s) && a.length > s.length && !a.startsWith("--")))
      out.push(a.slice(2));
  }
  return out.filter(Boolean);
}

/** Where tar (extracting or creating), unzip, curl and wget write. */
export function outputsOf(name: string, args: string[]): string[] {
  switch (name) {
    case "tar": {
      const modes = args
        .filter((a, i) => /^-[a-zA-Z]+$/.test(a) || (i === 0 && /^[a-zA-Z]+$/.test(a)))
        .join("");
      const extract = /x/.test(modes) || args.some((a) => /^--(extract|get)$/.test(a));
      const dirs = optionValues(args, ["-C"], ["--directory"]);
      if (extract) return dirs.length ? dirs : ["."];
      const combined = args.findIndex((a) => /^-?[a-zA-Z]*f[a-zA-Z]*$/.test(a) && a !== "-f");
      const archive = combined >= 0 ? [args[combined + 1] ?? ""] : [];
      return [...archive, ...optionValues(args, ["-f"], ["--file"])].filter((p) => p && p !== "-");
    }
    case "unzip":
      return optionValues(args, ["-d"], []);
    case "curl":
      return [
        ...optionValues(args, ["-o"], ["--output"]),
        ...optionValues(args, [], ["--output-dir"]),
      ];
    default:
      return [
        ...optionValues(args, ["-O"], ["--output-document"]),
        ...optionValues(args, ["-P"], ["--directory-prefix"]),
      ].filter((p) => p !== "-");
  }
}
