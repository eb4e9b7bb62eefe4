/**
 * The kernel keyring is not namespaced by the sandbox: a key the user may read is readable by its
 * serial number from any user namespace mapped to the same uid. The seccomp filter refuses keyctl,
 * add_key and request_key, so a sandboxed command reads nothing from it. The key is added here with
 * perl's syscall() (keyutils may not be installed) and revoked afterwards.
 */
import { describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, CANARY, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined || !Bun.which("perl"));
const SECRET = `${CANARY}-keyring`;

/** x86-64 syscall numbers (arm64: 217/219); KEY_SPEC_USER_KEYRING = -4. */
const NR = process.arch === "arm64" ? { add: 217, ctl: 219 } : { add: 248, ctl: 250 };

function perl(script: string): string {
  const r = Bun.spawnSync(["perl", "-e", script]);
  return r.stdout.toString().trim();
}

describe("sandbox: the kernel keyring", () => {
  live(
    "a user-readable key in the user's keyring cannot be read from a sandboxed command",
    async () => {
      requireBinary();
      const serial = perl(
        `my ($t, $d, $p) = ("user", "chatcli-test-${process.pid}", "${SECRET}");
         my $s = syscall(${NR.add}, $t, $d, $p, length($p), -4);
         print $s < 0 ? "none" : (syscall(${NR.ctl}, 5, $s, 0x3f3f0000) == 0 ? $s : "none");`,
      );
      if (!/^\d+$/.test(serial)) {
        console.warn("\n!!! keyring test skipped: add_key is not permitted here !!!\n");
        return;
      }
      try {
        // the host can read it: the test is not vacuous
        expect(
          perl(
            `my $b = "\\0" x 256; my $n = syscall(${NR.ctl}, 11, ${serial}, $b, 256); print substr($b, 0, $n)`,
          ),
        ).toBe(SECRET);
        await using llm = await startMockLlm();
        await using h = await hostile(llm);
        await writeFile(join(h.ws, "serial"), serial);
        await plant(
          h,
          `perl -e 'open(my $f, "<", "serial"); my $id = <$f>; my $b = "\\0" x 256;
             my $n = syscall(${NR.ctl}, 11, $id + 0, $b, 256);
             print "keyctl=$n ", ($n > 0 ? substr($b, 0, $n) : "$!"), "\\n"'`,
        );
        llm.push(runScript, { text: "done" });
        const r = await agent(h, ["--permission-mode", "auto"]);
        expect(r.code).toBe(0);
        const sent = sentToProvider(llm);
        expect(sent).toContain("keyctl=-1 Operation not permitted");
        expect(sent).not.toContain(SECRET);
      } finally {
        perl(`syscall(${NR.ctl}, 3, ${serial})`); // KEYCTL_REVOKE
      }
    },
    60_000,
  );
});
