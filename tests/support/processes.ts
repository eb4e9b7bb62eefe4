/** Processes a test left behind: found by their command line or working directory in /proc. */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Processes whose command line holds `marker`, or that run chatcli's network bridge in `cwd`
 * (a bridge left behind, or the command under it, would show here).
 */
export function processesWith(marker: string, cwd?: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes("bun test")) continue;
      const bridgeHere =
        cwd !== undefined &&
        cmd.includes("__net-bridge") &&
        readlinkSync(`/proc/${pid}/cwd`) === cwd;
      if (cmd.includes(marker) || bridgeHere) found.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
