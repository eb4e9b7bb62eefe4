/**
 * Whether the OS sandbox can run here — asked of chatcli's own probe (lib/sandbox/detect.ts), so the
 * tests skip exactly when the product would refuse. The sandbox tests run for real whenever it can;
 * .ci/run sets CHATCLI_REQUIRE_SANDBOX_TESTS=1 so that in CI a missing bubblewrap fails the suite
 * instead of skipping it.
 */
import { tmpdir } from "node:os";
import { platform } from "node:process";
import { probe } from "../../lib/sandbox/detect.ts";

async function missing(): Promise<string | undefined> {
  if (platform !== "linux")
    return `the sandbox tests need Linux + bubblewrap (this is ${platform})`;
  const found = await probe(
    { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
    platform,
    new AbortController().signal,
    tmpdir(),
  );
  return typeof found === "string" ? found : undefined;
}

export const SANDBOX_MISSING = await missing();

if (SANDBOX_MISSING) {
  const message = `\n!!! SANDBOX TESTS SKIPPED: ${SANDBOX_MISSING} !!!\n`;
  if (process.env["CHATCLI_REQUIRE_SANDBOX_TESTS"] === "1")
    throw new Error(`CHATCLI_REQUIRE_SANDBOX_TESTS=1 but ${SANDBOX_MISSING}`);
  console.warn(message);
}
