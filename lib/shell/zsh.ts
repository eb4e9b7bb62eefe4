import { treeFunctions } from "./bash.ts";
import type { CommandSpec } from "./spec.ts";

/** zsh: the same tables as bash (their shell code is common to both), driven by compadd/_files. */
export function zshCompletion(root: CommandSpec, program: string): string {
  const fn = `_${program}`;
  return `#compdef ${program}
# zsh completion for ${program}. Install: ${program} completion zsh > "\${fpath[1]}/_${program}"
# (then restart zsh), or in ~/.zshrc after compinit: source <(${program} completion zsh)
${treeFunctions(root, fn)}
${fn}() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" cpath values subs
  cpath="$(${fn}_path "\${(@)words[2,CURRENT-1]}")"
  values=""
  case "$prev" in
    -*) values="$(${fn}_values "$cpath|$prev")" ;;
  esac
  if [[ -z "$values" && "$cur" != -* ]]; then
    subs="$(${fn}_subcommands "$cpath")"
    if [[ -n "$subs" ]]; then
      compadd -- \${=subs}
      return
    fi
    values="$(${fn}_values "$cpath|")"
    values="\${values:-@files}"
  fi
  case "$values" in
    "") compadd -- \${=$(${fn}_flags "$cpath")} ;;
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
