/**
 * What `chatcli --version --json` reports: the version, the commit and the target the binary was built
 * for. scripts/compile.ts defines `__CHATCLI_BUILD__` at compile time; `bun main.ts` has none.
 */
declare const __CHATCLI_BUILD__: { commit: string; target: string } | undefined;

export interface BuildInfo {
  version: string;
  commit: string;
  target: string;
  bun: string;
}

/** The target name of a platform/arch pair, as release binaries and npm packages are named. */
export function targetName(platform: string, arch: string): string {
  return `${platform === "win32" ? "windows" : platform}-${arch}`;
}

/** `host` is the running process's (main.ts passes process.platform, process.arch, Bun's version). */
export function buildInfo(
  version: string,
  host: { platform: string; arch: string; bun: string | undefined },
): BuildInfo {
  const build = typeof __CHATCLI_BUILD__ === "undefined" ? undefined : __CHATCLI_BUILD__;
  return {
    version,
    commit: build?.commit ?? "unknown",
    target: build?.target ?? `${targetName(host.platform, host.arch)} (not compiled)`,
    bun: host.bun ?? "unknown",
  };
}
