/**
 * The Seatbelt profile (macOS `sandbox-exec -p PROFILE`) for one sandboxed process. Pure text, so
 * it is unit-tested here; it is applied by the kernel to the process and everything it starts.
 * SBPL: the last rule that matches decides, so the denials come after the broad allows.
 */

export interface SeatbeltPlan {
  /** Private temp dir (TMPDIR). */
  privateTmp: string;
  writable: string[];
  /** Inside writable paths, still read-only (.git/hooks, .git/config, .chatcli). */
  protectedPaths: string[];
  /** Credential stores and the user's deny_read (directories and files). */
  denied: string[];
  network: boolean;
  /**
   * HOME by allowlist: nothing under `roots` (HOME by each of its names) is read but `visible` (the
   * workspace, the toolchain set, --allow-read paths); the directories on the way to them answer
   * metadata only (stat, not a listing).
   */
  home?: { roots: string[]; visible: string[] };
}

/** The directories between a root and each visible path (the root itself included). */
function ancestorsWithin(roots: readonly string[], visible: readonly string[]): string[] {
  const out = new Set<string>();
  for (const v of visible)
    for (const r of roots) {
      if (v !== r && !v.startsWith(`${r}/`)) continue;
      for (let p = v; p.length >= r.length; p = p.slice(0, p.lastIndexOf("/")) || "/") {
        if (p !== v) out.add(p);
        if (p === r) break;
      }
    }
  return [...out];
}

/** An SBPL string literal. */
export function sbplString(path: string): string {
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** `(subpath …)` for a directory and `(literal …)` for the path itself, so both spellings match. */
function pathFilters(paths: readonly string[]): string {
  return paths.map((p) => `(subpath ${sbplString(p)})`).join(" ");
}

export function seatbeltProfile(plan: SeatbeltPlan): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    "(allow ipc-posix-sem)",
    "(allow iokit-open)",
    "(allow file-read*)",
    "(allow file-ioctl)",
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
    `(allow file-write* ${pathFilters([plan.privateTmp, ...plan.writable])})`,
  ];
  // the keychain answers through these services, whatever the file rules say
  lines.push(
    '(deny mach-lookup (global-name "com.apple.SecurityServer") (global-name "com.apple.securityd") (global-name "com.apple.security.agent") (global-name-regex #"^com\\.apple\\.security\\."))',
  );
  if (plan.home) {
    lines.push(`(deny file-read* ${pathFilters(plan.home.roots)})`);
    // its own temp dir and the workspace stay readable wherever they are
    const shown = [...new Set([...plan.home.visible, plan.privateTmp, ...plan.writable])].filter(
      (v) => plan.home?.roots.some((r) => v === r || v.startsWith(`${r}/`)),
    );
    const up = ancestorsWithin(plan.home.roots, shown);
    if (up.length)
      lines.push(
        `(allow file-read-metadata ${up.map((p) => `(literal ${sbplString(p)})`).join(" ")})`,
      );
    if (shown.length) lines.push(`(allow file-read* ${pathFilters(shown)})`);
  }
  if (plan.protectedPaths.length)
    lines.push(`(deny file-write* ${pathFilters(plan.protectedPaths)})`);
  if (plan.denied.length) {
    lines.push(`(deny file-read* ${pathFilters(plan.denied)})`);
    lines.push(`(deny file-write* ${pathFilters(plan.denied)})`);
  }
  if (plan.network) {
    lines.push("(allow network*)");
  } else {
    // Not even loopback: a local server on the host is as much "the network" as the internet.
    lines.push("(deny network*)");
  }
  return `${lines.join("\n")}\n`;
}
