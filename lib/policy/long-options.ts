/**
 * GNU long-option abbreviations, resolved as getopt_long (and git's parse-options) resolve them: an
 * exact name wins, else a unique prefix names the option (`sed --e=S` is `--expression=S`,
 * `sort --outp=F` is `--output=F`, `git reset --har` is `--hard`). An ambiguous prefix makes the
 * program fail — unless one candidate is risky, in which case the judge assumes that one. Programs
 * without a full table here get only their risky options resolved (a prefix of one, that is not
 * the exact name of a harmless option, is taken as it).
 */

function base(word: string): string {
  return (word.split("/").pop() ?? word).replace(/\.(exe|bat|cmd)$/i, "").toLowerCase();
}

const split = (s: string) => s.trim().split(/\s+/);

/** Every long option of programs the judge treats as read-only or whose writes it tracks. */
const LONG: Record<string, string[]> = {
  sed: split(`expression file in-place line-length null-data zero-terminated posix quiet silent
    sandbox debug regexp-extended separate unbuffered follow-symlinks binary help version`),
  sort: split(`ignore-leading-blanks dictionary-order ignore-case general-numeric-sort
    ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort random-source reverse
    sort version-sort batch-size check compress-program debug files0-from key merge output stable
    buffer-size field-separator temporary-directory parallel unique zero-terminated help version`),
  grep: split(`extended-regexp fixed-strings basic-regexp perl-regexp regexp file ignore-case
    no-ignore-case word-regexp line-regexp null-data no-messages invert-match version help max-count
    byte-offset line-number no-line-number line-buffered with-filename no-filename label
    only-matching quiet silent binary-files text directories devices recursive
    dereference-recursive include exclude exclude-from exclude-dir files-without-match
    files-with-matches count initial-tab null before-context after-context context color colour`),
  uniq: split(`count repeated all-repeated skip-fields group ignore-case skip-chars unique
    zero-terminated check-chars help version`),
  cp: split(`archive attributes-only backup copy-contents debug dereference force interactive link
    no-dereference no-clobber preserve no-preserve parents recursive reflink remove-destination
    sparse strip-trailing-slashes symbolic-link suffix target-directory no-target-directory update
    verbose one-file-system context keep-directory-symlink help version`),
  mv: split(`backup exchange force interactive no-clobber no-copy strip-trailing-slashes suffix
    target-directory no-target-directory update verbose context debug help version`),
  ln: split(`backup directory force interactive logical no-dereference physical relative symbolic
    suffix target-directory no-target-directory verbose help version`),
  install: split(`backup compare debug directory group mode owner preserve-timestamps strip
    strip-program suffix target-directory no-target-directory verbose preserve-context context
    help version`),
  tee: split(`append ignore-interrupts output-error help version`),
  rm: split(`force interactive one-file-system no-preserve-root preserve-root recursive dir verbose
    help version`),
  chmod: split(`changes silent quiet verbose no-preserve-root preserve-root reference recursive
    help version`),
  chown: split(`changes dereference no-dereference from silent quiet no-preserve-root preserve-root
    reference recursive verbose help version`),
  tail: split(`bytes follow lines max-unchanged-stats pid quiet retry silent sleep-interval verbose
    zero-terminated debug help version`),
  date: split(`date debug file iso-8601 resolution rfc-email rfc-3339 reference set universal utc
    help version`),
  env: split(`ignore-environment null unset chdir split-string block-signal default-signal
    ignore-signal list-signal-handling debug help version`),
  xargs: split(`null arg-file delimiter eof replace max-lines max-args open-tty interactive
    no-run-if-empty max-chars show-limits verbose exit max-procs process-slot-var help version`),
  timeout: split(`foreground kill-after preserve-status signal verbose help version`),
  less: split(`help version lesskey-file lesskey-src lesskey-content quit-at-eof QUIT-AT-EOF
    quit-if-one-screen no-init ignore-case IGNORE-CASE LINE-NUMBERS line-numbers LONG-PROMPT
    RAW-CONTROL-CHARS raw-control-chars chop-long-lines quiet QUIET silent SILENT squeeze-blank-lines
    tabs tag tag-file pattern prompt shift window no-keypad follow-name mouse wheel-lines
    use-color color incsearch log-file LOG-FILE`),
  tar: split(`to-command checkpoint-action use-compress-program rsh-command info-script
    new-volume-script extract get create file directory list append update diff compare delete
    to-stdout verbose gzip bzip2 xz zstd auto-compress exclude`),
};

/** Per git subcommand (parse-options accepts unique prefixes too). */
const GIT_LONG: Record<string, string[]> = {
  reset: split(`soft mixed hard merge keep quiet no-quiet patch intent-to-add pathspec-from-file
    pathspec-file-nul recurse-submodules no-recurse-submodules refresh no-refresh`),
  clean: split(`dry-run force interactive quiet exclude`),
  checkout: split(`quiet progress no-progress force ours theirs track no-track guess no-guess
    detach orphan ignore-skip-worktree-bits merge conflict patch ignore-other-worktrees overwrite-ignore
    no-overwrite-ignore recurse-submodules no-recurse-submodules overlay no-overlay
    pathspec-from-file pathspec-file-nul`),
  switch: split(`create force-create detach guess no-guess force discard-changes merge conflict
    quiet progress no-progress track no-track orphan ignore-other-worktrees recurse-submodules
    no-recurse-submodules`),
  push: split(`all branches mirror delete tags dry-run porcelain force force-with-lease
    no-force-with-lease force-if-includes no-force-if-includes repo set-upstream thin no-thin
    receive-pack exec quiet verbose progress no-progress prune no-prune recurse-submodules
    no-recurse-submodules verify no-verify follow-tags no-follow-tags signed no-signed atomic
    no-atomic push-option ipv4 ipv6`),
  grep: split(`cached no-index untracked no-exclude-standard exclude-standard recurse-submodules
    text textconv no-textconv ignore-case invert-match word-regexp max-depth recursive no-recursive
    full-name extended-regexp basic-regexp perl-regexp fixed-strings line-number column name-only
    files-with-matches files-without-match null only-matching count color no-color break heading
    show-function context after-context before-context function-context threads file and or not
    all-match quiet open-files-in-pager max-count`),
  stash: split(`patch staged keep-index no-keep-index include-untracked all quiet message
    pathspec-from-file pathspec-file-nul index`),
};

/** Options that make a program write, run a command or read another file, per program. */
const RISKY: Record<string, string[]> = {
  sed: ["expression", "file", "in-place"],
  sort: ["output", "compress-program", "files0-from", "random-source"],
  grep: ["recursive", "dereference-recursive", "directories", "file"],
  cp: ["target-directory", "recursive"],
  rm: ["recursive", "force", "no-preserve-root"],
  chmod: ["recursive"],
  chown: ["recursive"],
  mv: ["target-directory"],
  ln: ["target-directory"],
  install: ["target-directory"],
  tail: ["follow"],
  date: ["set", "file"],
  env: ["split-string", "chdir"],
  xargs: ["arg-file"],
  less: ["lesskey-file", "lesskey-src", "lesskey-content", "log-file", "LOG-FILE", "tag-file"],
  tar: [
    "to-command",
    "checkpoint-action",
    "use-compress-program",
    "rsh-command",
    "info-script",
    "new-volume-script",
  ],
  "git:reset": ["hard"],
  "git:clean": ["force"],
  "git:checkout": ["force"],
  "git:switch": ["force", "discard-changes"],
  "git:push": ["force", "force-with-lease", "mirror", "delete", "prune"],
  "git:grep": ["open-files-in-pager", "no-index"],
  // no full table: every git subcommand that shows diffs or logs
  "git:*": ["output", "ext-diff", "textconv", "open-files-in-pager", "exec", "upload-pack"],
};

/** Exact names of harmless options that are prefixes of a risky one (`git diff --text`). */
const HARMLESS_EXACT = new Set(["text"]);

/** Resolves one `--name[=value]` word for a program's tables (`git:reset` for git subcommands). */
export function expandLong(program: string, word: string): string {
  if (!word.startsWith("--") || word === "--") return word;
  const eq = word.indexOf("=");
  const name = eq >= 0 ? word.slice(2, eq) : word.slice(2);
  const rest = eq >= 0 ? word.slice(eq) : "";
  if (!name) return word;
  const full = program.startsWith("git:") ? GIT_LONG[program.slice(4)] : LONG[program];
  const risky = RISKY[program] ?? (program.startsWith("git:") ? RISKY["git:*"] : undefined) ?? [];
  if (full) {
    if (full.includes(name)) return word;
    const matches = full.filter((o) => o.startsWith(name));
    if (matches.length === 1) return `--${matches[0]}${rest}`;
    const bad = matches.find((m) => risky.includes(m));
    return bad ? `--${bad}${rest}` : word;
  }
  if (HARMLESS_EXACT.has(name)) return word;
  const bad = risky.find((r) => r.startsWith(name) && r !== name);
  return bad && name.length >= 2 ? `--${bad}${rest}` : word;
}

/** A program's arguments with abbreviated long options spelled out (stops at `--`). */
export function expandArgs(program: string, args: string[]): string[] {
  const out: string[] = [];
  let done = false;
  for (const a of args) {
    if (a === "--") done = true;
    out.push(done ? a : expandLong(program, a));
  }
  return out;
}

/** `argv[0]`'s abbreviations spelled out; for git, the subcommand's too (`git reset --har`). */
export function expandArgv(argv: string[]): string[] {
  if (argv.length < 2) return argv;
  const name = base(argv[0] as string);
  if (name !== "git") return [argv[0] as string, ...expandArgs(name, argv.slice(1))];
  const out = [argv[0] as string];
  let i = 1;
  const GLOBAL_VALUE =
    /^(-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--config-env|--super-prefix)$/;
  while (i < argv.length && (argv[i] as string).startsWith("-")) {
    const a = argv[i] as string;
    out.push(a);
    if (GLOBAL_VALUE.test(a) && i + 1 < argv.length) out.push(argv[++i] as string);
    i++;
  }
  if (i >= argv.length) return out;
  const sub = argv[i] as string;
  out.push(sub, ...expandArgs(`git:${sub}`, argv.slice(i + 1)));
  return out;
}
