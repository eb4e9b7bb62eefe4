/**
 * The user's own git config in the empty HOME (home.ts): `~/.gitconfig` and `~/.config/git/config`
 * (with `ignore`, `attributes`) are shown read-only, through a copy with credential lines blanked
 * when they hold any (the same masking as the workspace's .git/config), their includes hidden.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { Env } from "../core/ctx.ts";
import { userHome } from "../core/paths.ts";
import { gitConfigSecrets } from "./deny.ts";
import { type HomeBind, type HomeView, homeGitConfigs } from "./home.ts";
import { realPathOrSelf } from "./plan.ts";

/** The binds for bubblewrap (`runDir`: where a masked copy goes) and the includes to hide. */
export function homeGitBinds(
  env: Env,
  view: HomeView,
  runDir: () => string,
): { binds: HomeBind[]; includes: string[] } {
  const binds: HomeBind[] = [];
  const includes: string[] = [];
  for (const path of homeGitConfigs(env)) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    // at its place in the tmpfs (under the real HOME), from wherever a link takes it
    const logical = view.homes[0] as string;
    const dest = join(view.home, relative(logical, path));
    const found = gitConfigSecrets(text);
    if (!found) {
      binds.push({ src: realPathOrSelf(path), dest });
      continue;
    }
    const copy = join(runDir(), `home-git-${binds.length}`);
    writeFileSync(copy, found.masked, { mode: 0o600 });
    binds.push({ src: copy, dest });
    for (const p of found.includes)
      includes.push(
        p.startsWith("~/")
          ? join(userHome(env), p.slice(2))
          : isAbsolute(p)
            ? p
            : join(dirname(path), p),
      );
  }
  return { binds, includes };
}

/** Seatbelt cannot show a masked copy: the user's git config files that hold no credentials. */
export function cleanHomeGitConfigs(env: Env): string[] {
  return homeGitConfigs(env).filter((p) => {
    try {
      return !gitConfigSecrets(readFileSync(p, "utf8"));
    } catch {
      return false;
    }
  });
}
