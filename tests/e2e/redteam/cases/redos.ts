/** Catastrophic patterns from every place chatcli takes one; each run has --timeout 4s. */
export const REDOS = [
  "dotenv-denylist",
  "process-env-denylist",
  "config-deny-glob",
  "flag-deny-glob",
  "web-fetch-filter",
  "web-fetch-exclude",
  "search-files-regex",
  "search-files-regex-no-sandbox",
  "sigterm-during-filter",
] as const;

export const redosIds = () => REDOS.map((r) => `redos.${r}`);
