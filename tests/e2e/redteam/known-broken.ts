/**
 * Red-team case ids that break on this build, each with why (one line). The suite asserts the
 * broken set equals this list exactly: a fix removes a line here, a regression fails the suite.
 * REDTEAM_STRICT=1 requires none at all.
 */
export const KNOWN_BROKEN: Record<string, string> = {
  "files.race.search_files.sandboxed":
    "[intermittent] search_files under a link-swapping race (edit mode, sandboxed) returned the content of files outside the workspace (x:1:hello outside CANARY\u2026): about 1 run in 6 with 15 searches",
};
