/**
 * Red-team case ids that break on this build, each with why (one line). The suite asserts the
 * broken set equals this list exactly: a fix removes a line here, a regression fails the suite.
 * REDTEAM_STRICT=1 requires none at all.
 */
export const KNOWN_BROKEN: Record<string, string> = {};
