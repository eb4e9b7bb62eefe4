import { treeFunctions } from "./bash.ts";
import { type CommandSpec, paths, quote, shortDescription } from "./spec.ts";

/** `name:description` lines (zsh shows `name -- description` in the menu). */
function described(name: string, description: string): string {
  return quote(`${name}:${shortDescription(description)}`);
}

/** The descriptions of each path's subcommands and flags, as zsh `case` tables. */
function descriptionTables(root: CommandSpec, fn: string): string {
  const all = paths(root);
  const subs = all
    .filter(({ spec }) => spec.commands.length > 0)
    .map(({ path, spec }) => {
      const lines = spec.commands.flatMap((c) =>
        [c.name, ...(c.aliases ?? [])].map((n) => described(n, c.description)),
      );
      return `    ${quote(path.join(" "))}) print -rl -- ${lines.join(" ")} ;;`;
    });
  const flags = all.map(({ path, spec }) => {
    const lines = spec.flags.flatMap((f) => f.names.map((n) => described(n, f.description)));
    return `    ${quote(path.join(" "))}) print -rl -- ${lines.join(" ")} ;;`;
  });
  return `${fn}_subcommand_descriptions() {
  case "$1" in
${subs.join("\n")}
  esac
}
${fn}_flag_descriptions() {
  case "$1" in
${flags.join("\n")}
  esac
}`;
}

/**
 * zsh: the same tables as bash (their shell code is common to both) plus descriptions, driven by
 * compadd (`name -- description` in the menu) and _files.
 */
export function zshCompletion(root: CommandSpec, program: string): string {
  const fn = `_${program}`;
  return `#compdef ${program}
# zsh completion for ${program}. Install: ${program} completion zsh > "\${fpath[1]}/_${program}"
# (then restart zsh), or in ~/.zshrc after compinit: source <(${program} completion zsh)
${treeFunctions(root, fn)}
${descriptionTables(root, fn)}
# Adds the "name:description" lines of $1 (a function) for path $2, described.
${fn}_add_described() {
  local -a lines names descs
  lines=(\${(f)"$($1 "$2")"})
  names=(\${lines%%:*})
  descs=("\${(@)lines/:/ -- }")
  compadd -l -d descs -- \${names}
}
${fn}() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" cpath values
  cpath="$(${fn}_path "\${(@)words[2,CURRENT-1]}")"
  values=""
  case "$prev" in
    -*) values="$(${fn}_values "$cpath|$prev")" ;;
  esac
  if [[ -z "$values" && "$cur" != -* ]]; then
    if [[ -n "$(${fn}_subcommands "$cpath")" ]]; then
      ${fn}_add_described ${fn}_subcommand_descriptions "$cpath"
      return
    fi
    values="$(${fn}_values "$cpath|")"
    values="\${values:-@files}"
  fi
  case "$values" in
    "") ${fn}_add_described ${fn}_flag_descriptions "$cpath" ;;
    @files) _files ;;
    @none) ;;
    @sessions) compadd -- \${(f)"$(${program} completion --values sessions 2>/dev/null)"} ;;
    *) compadd -- \${=values} ;;
  esac
}
if [ "\${funcstack[1]}" = "${fn}" ]; then
  ${fn} "$@"
else
  compdef ${fn} ${program}
fi
`;
}
