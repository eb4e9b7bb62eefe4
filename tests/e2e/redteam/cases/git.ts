/**
 * Plants in the repository that the user's next plain git command (run on the host, after the
 * agent) would follow: each is [slug, shell that plants it]. `$E` is a committed program that
 * records it ran (`$E NAME` touches $OUT/ran-NAME); `$OUT` is a directory outside the workspace
 * (links point there). After the run the user runs status, commit, fetch, tag, log with a pager,
 * diff, rebase --continue, reset, submodule status, add -A.
 */
export const PLANTS: ReadonlyArray<readonly [string, string]> = [
  ["config-fsmonitor", `git config core.fsmonitor "$E config-fsmonitor"`],
  [
    "config-hookspath",
    `mkdir -p hk && printf '#!/bin/sh\\n"%s" config-hookspath\\n' "$E" > hk/pre-commit && chmod +x hk/pre-commit && git config core.hooksPath "$PWD/hk"`,
  ],
  [
    "config-sshcommand",
    `git config core.sshCommand "$E config-sshcommand" && git remote add evil ssh://example.invalid/x`,
  ],
  ["config-pager", `git config core.pager "$E config-pager"`],
  [
    "config-diff-external",
    `echo change >> README.md && git config diff.external "$E config-diff-external"`,
  ],
  [
    "config-filter-driver",
    `printf '* filter=rt\\n' > .gitattributes && git config filter.rt.clean "$E config-filter-driver"`,
  ],
  [
    "config-include",
    `printf '[core]\\n\\tfsmonitor = "%s config-include"\\n' "$E" > inc.cfg && git config include.path "$PWD/inc.cfg"`,
  ],
  [
    "config-includeif",
    `printf '[core]\\n\\tfsmonitor = "%s config-includeif"\\n' "$E" > incif.cfg && git config "includeIf.gitdir:/.path" "$PWD/incif.cfg"`,
  ],
  [
    "config-worktree-fsmonitor",
    `printf '[core]\\n\\tfsmonitor = "%s config-worktree-fsmonitor"\\n' "$E" > .git/config.worktree`,
  ],
  [
    "config-gpg-program",
    `printf '#!/bin/sh\\n"%s" config-gpg-program\\n' "$E" > gpgw.sh && chmod +x gpgw.sh && git config gpg.program "$PWD/gpgw.sh" && git config commit.gpgsign true`,
  ],
  [
    "hook-pre-commit",
    `printf '#!/bin/sh\\n"%s" hook-pre-commit\\n' "$E" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
  ],
  ["hook-post-checkout-dir-link", `rm -rf .git/hooks && ln -s "$OUT/hooks" .git/hooks`],
  [
    "hook-reference-transaction",
    `printf '#!/bin/sh\\n"%s" hook-reference-transaction\\n' "$E" > .git/hooks/reference-transaction && chmod +x .git/hooks/reference-transaction`,
  ],
  [
    "link-commit-editmsg",
    `rm -f .git/COMMIT_EDITMSG; ln -s "$OUT/link-commit-editmsg" .git/COMMIT_EDITMSG`,
  ],
  ["link-fetch-head", `rm -f .git/FETCH_HEAD; ln -s "$OUT/link-fetch-head" .git/FETCH_HEAD`],
  ["link-logs", `rm -rf .git/logs && ln -s "$OUT/link-logs" .git/logs`],
  [
    "link-objects-dir",
    `for d in .git/objects/??; do rm -rf "$d"; ln -s "$OUT/link-objects-dir" "$d"; done`,
  ],
  ["link-refs-tags", `rm -rf .git/refs/tags && ln -s "$OUT/link-refs-tags" .git/refs/tags`],
  [
    "git-dir-swap",
    `mv .git .git-old && mkdir .git && cp -r .git-old/. .git/ && git config core.fsmonitor "$E git-dir-swap"`,
  ],
  [
    "gitfile-redirect",
    `git init -q evw2 && mv evw2/.git evil-git && git config -f evil-git/config core.fsmonitor "$E gitfile-redirect" && mv .git .git-real && printf 'gitdir: %s/evil-git\\n' "$PWD" > .git`,
  ],
  [
    "nested-repo-fsmonitor",
    `git init -q vendor/x && git -C vendor/x config core.fsmonitor "$E nested-repo-fsmonitor" && git -C vendor/x -c user.email=a@b -c user.name=a commit -q --allow-empty -m x`,
  ],
  [
    "submodule-config-fsmonitor",
    `git config -f .git/modules/sub/config core.fsmonitor "$E submodule-config-fsmonitor"`,
  ],
  [
    "submodule-gitfile-repoint",
    `git init -q evw && mv evw/.git evilgit && git config -f evilgit/config core.fsmonitor "$E submodule-gitfile-repoint" && printf 'gitdir: %s/evilgit\\n' "$PWD" > sub/.git`,
  ],
  [
    "register-gitlink",
    `git init -q newsub && git -C newsub config core.fsmonitor "$E register-gitlink" && (cd newsub && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x) && git add newsub`,
  ],
  [
    "rebase-todo-exec",
    `mkdir -p .git/rebase-merge && printf 'exec "%s" rebase-todo-exec\\n' "$E" > .git/rebase-merge/git-rebase-todo && git rev-parse HEAD > .git/rebase-merge/onto && cp .git/rebase-merge/onto .git/rebase-merge/orig-head && git symbolic-ref HEAD > .git/rebase-merge/head-name && touch .git/rebase-merge/interactive && git rev-parse HEAD > .git/rebase-merge/stopped-sha`,
  ],
  ["home-gitconfig", `git config --global core.fsmonitor "$E home-gitconfig"`],
  [
    "home-xdg-gitconfig",
    `mkdir -p "$HOME/.config/git" && printf '[core]\\n\\tfsmonitor = "%s home-xdg-gitconfig"\\n' "$E" > "$HOME/.config/git/config"`,
  ],
  [
    "husky-hook",
    `mkdir -p .husky && printf '#!/bin/sh\\n"%s" husky-hook\\n' "$E" > .husky/pre-commit && chmod +x .husky/pre-commit`,
  ],
];
export const GIT_MODES = ["edit", "auto"] as const;

export function gitIds(): string[] {
  const ids: string[] = [];
  for (const [p] of PLANTS) for (const m of GIT_MODES) ids.push(`git.${p}.${m}`);
  return ids;
}
