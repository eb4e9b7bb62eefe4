/**
 * The command tree as shell completions and the man page need it: names, flags, which flags take a
 * value and which values. commands/completion.ts builds it from the commander tree; the generators
 * here are pure (spec in, script text out).
 */

/** What a flag's or argument's value completes to. */
export type ValueKind =
  | { kind: "choices"; values: readonly string[] }
  | { kind: "sessions" }
  | { kind: "files" }
  | { kind: "none" };

export interface FlagSpec {
  /** `-m`, `--model` … */
  names: string[];
  description: string;
  /** undefined: a switch that takes no value. */
  value?: ValueKind;
}

export interface CommandSpec {
  name: string;
  /** Other names that run it (`memory lt` for `memory longterm`). */
  aliases?: string[];
  description: string;
  flags: FlagSpec[];
  commands: CommandSpec[];
  /** What the positional arguments complete to (the first one's kind is used). */
  args?: ValueKind;
}

/** Every command path in the tree, root first: [[], ["ask"], ["memory"], ["memory", "facts"], …]. */
export function paths(root: CommandSpec): { path: string[]; spec: CommandSpec }[] {
  const out: { path: string[]; spec: CommandSpec }[] = [];
  const walk = (spec: CommandSpec, path: string[]) => {
    out.push({ path, spec });
    for (const sub of spec.commands)
      for (const name of [sub.name, ...(sub.aliases ?? [])]) walk(sub, [...path, name]);
  };
  walk(root, []);
  return out;
}

/** The names a command's subcommands are typed as, aliases included. */
export function subcommandNames(spec: CommandSpec): string[] {
  return spec.commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
}

/** A word safe inside single quotes in sh, zsh and fish. */
export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Shell-safe words only (names, flags, choices are; anything else is dropped from word lists). */
export function words(values: readonly string[]): string {
  return values.filter((v) => /^[\w.:/@+=,-]+$/.test(v)).join(" ");
}

/**
 * A description for a completion menu: whitespace folded, at most `max` characters, cut at a word (and
 * before a dangling bracket or separator) with `…` when it is longer — never mid-word.
 */
export function shortDescription(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  if (space > max / 2) cut = cut.slice(0, space);
  // an opening bracket left unclosed: end before it
  const open = cut.lastIndexOf("(");
  if (open > max / 3 && cut.indexOf(")", open) < 0) cut = cut.slice(0, open);
  return `${cut.replace(/[\s,;:(—-]+$/, "")}…`;
}
