/**
 * Whether the OS sandbox can run here. The sandbox tests run for real whenever it can; .ci/run sets
 * CHATCLI_REQUIRE_SANDBOX_TESTS=1 so that in CI a missing bubblewrap fails the suite instead of
 * skipping it.
 */
import { platform } from "node:process";

function probe(): string | undefined {
  if (platform !== "linux")
    return `the sandbox tests need Linux + bubblewrap (this is ${platform})`;
  const bwrap = Bun.which("bwrap");
  if (!bwrap) return "bubblewrap is not installed (apt-get install bubblewrap)";
  const r = Bun.spawnSync([
    bwrap,
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--",
    "/bin/sh",
    "-c",
    ":",
  ]);
  if (r.exitCode !== 0)
    return `bubblewrap cannot create namespaces here: ${r.stderr.toString().trim()}`;
  return undefined;
}

export const SANDBOX_MISSING = probe();

if (SANDBOX_MISSING) {
  const message = `\n!!! SANDBOX TESTS SKIPPED: ${SANDBOX_MISSING} !!!\n`;
  if (process.env["CHATCLI_REQUIRE_SANDBOX_TESTS"] === "1")
    throw new Error(`CHATCLI_REQUIRE_SANDBOX_TESTS=1 but ${SANDBOX_MISSING}`);
  console.warn(message);
}
