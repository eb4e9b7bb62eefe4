/** A redirection of a simple command: `> out`, `2>> log`, `< in`, `2>&1`. */
export interface Redirect {
  op: string;
  target: string;
  /** The target contains `$(…)`, backticks or `$VAR`: it cannot be judged statically. */
  dynamic: boolean;
  /** A here-document's text (`<<EOF … EOF`), once the parser has read it. */
  body?: string;
}

/** One simple command of a command line, after splitting on operators and substitutions. */
export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
  /** Its stdin comes from a pipe; `pipeSource` is the previous stage's argv. */
  pipeSource?: string[];
  /** Came from inside `$(…)`, backticks or `<(…)`. */
  nested: boolean;
  /** Leading assignments (`FOO=1 cmd`), which can change what the command does. */
  assigns?: string[];
}

export interface ParsedShell {
  commands: SimpleCommand[];
  /** Set when the line could not be parsed (unterminated quote or substitution). */
  error?: string;
}

const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "!",
  "{",
  "}",
  "time",
]);

/**
 * A shell-words parser good enough to judge safety: quotes, escapes, `;` `&&` `||` `|` `|&` `&`
 * newlines, subshell parentheses, `$(…)`, backticks, `<(…)`/`>(…)` and redirections. Every command
 * inside a substitution is returned as its own entry (nested: true).
 */
export function parseShell(src: string): ParsedShell {
  const out: SimpleCommand[] = [];
  const error = parseList(src, false, out);
  return error ? { commands: out, error } : { commands: out };
}

/** Finds the index just past the `)` closing a `$(`/`<(` opened before `start`. */
function matchParen(src: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") i += 2;
    else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end + 1;
    } else if (c === '"') {
      i = skipDouble(src, i + 1);
      if (i < 0) return -1;
    } else if (c === "`") {
      const end = src.indexOf("`", i + 1);
      if (end < 0) return -1;
      i = end + 1;
    } else if (c === "(") {
      depth++;
      i++;
    } else if (c === ")") {
      depth--;
      i++;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}

function skipDouble(src: string, i: number): number {
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else if (c === "$" && src[i + 1] === "(") {
      const end = matchParen(src, i + 2);
      if (end < 0) return -1;
      i = end;
    } else i++;
  }
  return -1;
}

interface WordState {
  text: string;
  dynamic: boolean;
  quoted: boolean;
  started: boolean;
}

function parseList(src: string, nested: boolean, out: SimpleCommand[]): string | undefined {
  let argv: string[] = [];
  let redirects: Redirect[] = [];
  let pendingOp: string | undefined;
  let pipeSource: string[] | undefined;
  let nextPiped = false;
  let word: WordState = { text: "", dynamic: false, quoted: false, started: false };

  type Heredoc = { delimiter: string; quoted: boolean; strip: boolean; redirect: Redirect };
  const heredocs: Heredoc[] = [];
  const endWord = () => {
    if (!word.started) return;
    if (pendingOp) {
      const redirect: Redirect = { op: pendingOp, target: word.text, dynamic: word.dynamic };
      if (/(^|[^<])<<-?$/.test(pendingOp)) {
        heredocs.push({
          delimiter: word.text,
          quoted: word.quoted,
          strip: pendingOp.endsWith("-"),
          redirect,
        });
      }
      redirects.push(redirect);
      pendingOp = undefined;
    } else if (!(argv.length === 0 && !word.quoted && KEYWORDS.has(word.text))) {
      argv.push(word.text);
    }
    word = { text: "", dynamic: false, quoted: false, started: false };
  };
  const endCommand = (piped: boolean) => {
    endWord();
    // Leading assignments (FOO=1 cmd) are not the command, but they are kept for the judge.
    const assigns: string[] = [];
    while (argv.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0] as string))
      assigns.push(argv.shift() as string);
    if (argv.length > 0 || redirects.length > 0) {
      const cmd: SimpleCommand = { argv, redirects, nested };
      if (assigns.length) cmd.assigns = assigns;
      if (nextPiped && pipeSource) cmd.pipeSource = pipeSource;
      out.push(cmd);
      pipeSource = argv;
    } else if (!piped) pipeSource = undefined;
    nextPiped = piped;
    argv = [];
    redirects = [];
  };
  const substitute = (inner: string): string | undefined => {
    word.dynamic = true;
    word.started = true;
    return parseList(inner, true, out);
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    const next = src[i + 1];
    if (c === "\\") {
      if (next === "\n") {
        i += 2;
        continue;
      }
      word.text += next ?? "";
      word.started = true;
      i += 2;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) return "unterminated single quote";
      word.text += src.slice(i + 1, end);
      word.started = true;
      word.quoted = true;
      i = end + 1;
    } else if (c === '"') {
      const end = skipDouble(src, i + 1);
      if (end < 0) return "unterminated double quote";
      const body = src.slice(i + 1, end - 1);
      // Substitutions inside double quotes still run.
      const err = scanDoubleBody(body, substitute);
      if (err) return err;
      word.text += body.replace(/\\(["\\$`])/g, "$1");
      word.started = true;
      word.quoted = true;
      i = end;
    } else if (c === "$" && next === "(" && src[i + 2] === "(") {
      const end = matchParen(src, i + 2);
      if (end < 0) return "unterminated $((";
      word.text += src.slice(i, end + 1);
      word.started = true;
      i = end + 1;
    } else if ((c === "$" || c === "<" || c === ">") && next === "(") {
      const end = matchParen(src, i + 2);
      if (end < 0) return "unterminated substitution";
      if (c !== "$") endWord();
      const err = substitute(src.slice(i + 2, end - 1));
      if (err) return err;
      word.text += src.slice(i, end);
      i = end;
    } else if (c === "`") {
      const end = src.indexOf("`", i + 1);
      if (end < 0) return "unterminated backtick";
      const err = substitute(src.slice(i + 1, end));
      if (err) return err;
      word.text += src.slice(i, end + 1);
      i = end + 1;
    } else if (c === "$") {
      word.dynamic = true;
      word.text += c;
      word.started = true;
      i++;
    } else if (c === "#" && !word.started) {
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl;
    } else if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "\n" || c === ";") {
      endCommand(false);
      i += c === ";" && next === ";" ? 2 : 1;
      // Here-document bodies are data, not commands (but unquoted ones still expand $(…)).
      while (c === "\n" && heredocs.length > 0) {
        const doc = heredocs.shift() as Heredoc;
        const body: string[] = [];
        for (;;) {
          const nl = src.indexOf("\n", i);
          const line = src.slice(i, nl < 0 ? src.length : nl);
          i = nl < 0 ? src.length : nl + 1;
          if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter || nl < 0) {
            doc.redirect.body = body.join("\n");
            if (!doc.quoted) {
              const err = scanDoubleBody(body.join("\n"), substitute);
              if (err) return err;
            }
            break;
          }
          body.push(line);
        }
      }
    } else if (c === "&" && next === "&") {
      endCommand(false);
      i += 2;
    } else if (c === "|" && next === "|") {
      endCommand(false);
      i += 2;
    } else if (c === "|") {
      endCommand(true);
      i += next === "&" ? 2 : 1;
    } else if (c === "&" && next === ">") {
      endWord();
      const op = src[i + 2] === ">" ? "&>>" : "&>";
      pendingOp = op;
      i += op.length;
    } else if (c === "&") {
      endCommand(false);
      i++;
    } else if (c === "(" || c === ")") {
      endCommand(false);
      i++;
    } else if (c === "<" || c === ">") {
      // A word of digits right before the operator is a file descriptor.
      const fd = word.started && !word.quoted && /^\d+$/.test(word.text) ? word.text : "";
      if (fd) word = { text: "", dynamic: false, quoted: false, started: false };
      else endWord();
      const op = /^(>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)/.exec(src.slice(i))?.[1] as string;
      i += op.length;
      if (op === ">&" || op === "<&") {
        const m = /^\s*(\d+|-)(?=[\s;|&)]|$)/.exec(src.slice(i));
        if (m) {
          redirects.push({ op: fd + op, target: m[1] as string, dynamic: false });
          i += m[0].length;
          continue;
        }
      }
      pendingOp = fd + op;
      while (src[i] === " " || src[i] === "\t") i++;
    } else {
      word.text += c;
      word.started = true;
      i++;
    }
  }
  endWord();
  if (pendingOp) return `redirection ${pendingOp} without a target`;
  endCommand(false);
  return undefined;
}

function scanDoubleBody(
  body: string,
  substitute: (inner: string) => string | undefined,
): string | undefined {
  let i = 0;
  while (i < body.length) {
    const c = body[i];
    if (c === "\\") i += 2;
    else if (c === "$" && body[i + 1] === "(" && body[i + 2] !== "(") {
      const end = matchParen(body, i + 2);
      if (end < 0) return "unterminated substitution";
      const err = substitute(body.slice(i + 2, end - 1));
      if (err) return err;
      i = end;
    } else if (c === "`") {
      const end = body.indexOf("`", i + 1);
      if (end < 0) return "unterminated backtick";
      const err = substitute(body.slice(i + 1, end));
      if (err) return err;
      i = end + 1;
    } else i++;
  }
  return undefined;
}

/** Shell-quotes a word for display (and for the text allow/deny patterns match). */
export function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The text of a simple command without its redirections, as rules match it. */
export function commandText(cmd: SimpleCommand): string {
  return cmd.argv.map(quoteWord).join(" ");
}
