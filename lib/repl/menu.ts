import { localParts } from "../core/local-time.ts";
import { style } from "../output/terminal.ts";
import { InputHistory } from "./buffer.ts";
import { fitWidth } from "./layout.ts";
import { readLine } from "./prompt.ts";
import type { ApprovalRequest, CheckpointInfo } from "./services.ts";
import type { KeyReader, Screen } from "./tty.ts";

export interface MenuOptions {
  color: boolean;
  now: () => Date;
  signal?: AbortSignal;
}

export type RewindChoice =
  | { kind: "chosen"; index: number }
  | { kind: "cancelled" }
  | { kind: "invalid" };

/** `HH:MM:SS` in local time. */
export function clockTime(date: Date): string {
  const t = localParts(date);
  return [t.hours, t.minutes, t.seconds].map((n) => String(n).padStart(2, "0")).join(":");
}

/**
 * The rewind menu: checkpoints newest first, ↑/↓ to move, a number to pick directly, Enter
 * restores, Esc or q cancels. Redraws in place.
 */
export async function chooseCheckpoint(
  keys: KeyReader,
  screen: Screen,
  items: readonly CheckpointInfo[],
  options: MenuOptions,
): Promise<RewindChoice> {
  const s = style(options.color);
  let selected = 0;
  let typed = "";
  let drawn = 0;
  let top = 0;
  const draw = () => {
    const width = screen.columns - 1;
    // The menu never grows past the screen (moving up over scrollback cannot be undone): a window of
    // rows that follows the selection, with ↑/↓ marks when there is more.
    const room = Math.max(1, screen.rows - 3);
    if (selected < top) top = selected;
    if (selected >= top + room) top = selected - room + 1;
    top = Math.max(0, Math.min(top, Math.max(0, items.length - room)));
    const more = (n: number, arrow: string) => (n > 0 ? ` (${arrow}${n} more)` : "");
    const head = `REWIND${more(top, "↑")} — Select a checkpoint to restore`;
    const lines = [s.bold(fitWidth(head, width))];
    items.slice(top, top + room).forEach((item, offset) => {
      const i = top + offset;
      const text = `[${item.index}]  ${clockTime(item.time)}  ${item.messages} msgs  ${item.label}`;
      const line = fitWidth(`${i === selected ? "❯ " : "  "}${text}`, width);
      lines.push(i === selected ? s.cyan(line) : line);
    });
    const below = items.length - (top + room);
    lines.push(
      fitWidth(
        `Select [1-${items.length}]${more(below, "↓")} or (q)uit, ↑/↓ Enter, Esc cancels: ${typed}`,
        width,
      ),
    );
    const up = drawn > 1 ? `\u001b[${drawn - 1}A` : "";
    // each row clears its own rest, and "erase below" comes after the text (never from (0,0))
    screen.write(`${up}\r${lines.join("\u001b[K\n")}\u001b[K\u001b[J`);
    drawn = lines.length;
  };
  draw();
  for (;;) {
    const key = await keys.next(options.signal);
    if (!key || key.name === "escape" || key.name === "ctrl-c" || key.name === "ctrl-d") {
      screen.write("\n");
      return { kind: "cancelled" };
    }
    if (key.name === "up" && selected > 0) selected -= 1;
    else if (key.name === "down" && selected < items.length - 1) selected += 1;
    else if (key.name === "backspace") typed = typed.slice(0, -1);
    else if (key.name === "char" && key.text) {
      if (/^q$/i.test(key.text) && typed === "") {
        screen.write("q\n");
        return { kind: "cancelled" };
      }
      typed += key.text;
      const n = Number(typed);
      if (/^\d+$/.test(typed) && n >= 1 && n <= items.length) selected = n - 1;
    } else if (key.name === "enter") {
      screen.write("\n");
      if (typed === "") return { kind: "chosen", index: items[selected]!.index };
      const n = Number(typed);
      if (!/^\d+$/.test(typed.trim()) || n < 1 || n > items.length) return { kind: "invalid" };
      return { kind: "chosen", index: n };
    }
    draw();
  }
}

export type ApprovalAnswer = "yes" | "always" | "no" | "cancel";

/**
 * Asks to approve a tool call: what will happen (the command, the diff) is shown first. `y` allows
 * it, `a` allows it and the same tool (or command name) for the rest of the session, `n` denies;
 * a dangerous call needs the word `yes` typed out. Esc / Ctrl+C cancel the run.
 */
export async function askApproval(
  keys: KeyReader,
  screen: Screen,
  request: ApprovalRequest,
  options: MenuOptions,
): Promise<ApprovalAnswer> {
  const s = style(options.color);
  const head = request.dangerous ? s.red("⚠ dangerous") : s.yellow("?");
  const summary = request.summary.startsWith(`${request.tool} `)
    ? request.summary.slice(request.tool.length + 1)
    : request.summary;
  screen.write(`\n${head} ${s.bold(request.tool)} ${summary}\n`);
  if (request.detail) {
    for (const line of request.detail.split("\n")) {
      const shown = line.startsWith("+")
        ? s.green(line)
        : line.startsWith("-")
          ? s.red(line)
          : line;
      screen.write(`    ${shown}\n`);
    }
  }
  if (request.dangerous) {
    const result = await readLine(keys, screen, {
      prompt: "  Type yes to allow (anything else denies): ",
      cont: "  ",
      history: new InputHistory(),
      now: options.now,
      signal: options.signal,
    });
    if (result.kind === "interrupt" || result.kind === "eof") return "cancel";
    if (result.kind !== "line") return "no";
    return result.text.trim().toLowerCase() === "yes" ? "yes" : "no";
  }
  const always = request.alwaysLabel ? `, a = always allow ${request.alwaysLabel}` : "";
  return readChoice(keys, screen, `  Allow? [y/n${request.alwaysLabel ? "/a" : ""}] `, {
    color: options.color,
    signal: options.signal,
    choices: { y: "yes", n: "no", ...(request.alwaysLabel ? { a: "always" } : {}) },
    nag: `(type y or n${always}) `,
  });
}

/** A yes/no question; Esc, Ctrl+C or Ctrl+D count as no. */
export async function askYesNo(
  keys: KeyReader,
  screen: Screen,
  question: string,
  options: MenuOptions,
): Promise<boolean> {
  const answer = await readChoice(keys, screen, `${question} [y/N] `, {
    color: options.color,
    signal: options.signal,
    choices: { y: "yes", n: "no" },
    nag: "(type y or n) ",
    enterMeans: "no",
  });
  return answer === "yes";
}

/** One key out of a few choices; Esc, Ctrl+C or Ctrl+D give "cancel". */
export const chooseOne = readChoice;

async function readChoice<T extends string>(
  keys: KeyReader,
  screen: Screen,
  prompt: string,
  options: {
    color: boolean;
    signal?: AbortSignal;
    choices: Record<string, T>;
    nag: string;
    enterMeans?: T;
  },
): Promise<T | "cancel"> {
  const s = style(options.color);
  screen.write(prompt);
  let nagged = false;
  for (;;) {
    const key = await keys.next(options.signal);
    if (key?.name === "resize") continue;
    if (!key || key.name === "ctrl-c" || key.name === "escape" || key.name === "ctrl-d") {
      screen.write(`${s.red("cancelled")}\n`);
      return "cancel";
    }
    if (key.name === "enter" && options.enterMeans) {
      screen.write("\n");
      return options.enterMeans;
    }
    const text = key.name === "char" ? key.text?.trim().toLowerCase() : undefined;
    const letter = text === "yes" ? "y" : text === "no" ? "n" : text;
    const choice = letter ? options.choices[letter] : undefined;
    if (letter && choice) {
      screen.write(`${letter === "n" ? s.red(letter) : s.green(letter)}\n`);
      return choice;
    }
    if (!nagged) {
      nagged = true;
      screen.write(options.nag);
    }
  }
}
