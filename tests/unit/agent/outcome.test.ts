import { describe, expect, test } from "bun:test";
import { type CallRecord, incompleteRun } from "../../../lib/agent/outcome.ts";

const REFUSAL = "no sandbox for shell commands: bubblewrap is not installed";
const ctx = { mode: "edit" as const, shellRefusal: REFUSAL, networkOff: true };
const call = (kind: CallRecord["kind"], status: CallRecord["status"], output = "") => ({
  kind,
  status,
  output,
});

describe("incompleteRun: did the run do any of what it tried?", () => {
  test("reads only, or nothing at all: complete", () => {
    expect(incompleteRun([], ctx)).toBeUndefined();
    expect(incompleteRun([call("read", "ok"), call("read", "error")], ctx)).toBeUndefined();
  });

  test("every edit and command denied by the policy: blocked, naming the mode and a flag", () => {
    const e = incompleteRun(
      [call("read", "ok"), call("edit", "denied"), call("shell", "denied", "needs approval")],
      { ...ctx, mode: "read-only", suggestion: "--permission-mode edit" },
    );
    expect(e?.reason).toBe("blocked");
    expect(e?.exitCode).toBe(6);
    expect(e?.message).toContain("2 calls in read-only mode");
    expect(e?.hint).toContain("--permission-mode edit");
  });

  test("one action ran: complete, even with others denied", () => {
    expect(incompleteRun([call("edit", "ok"), call("shell", "denied")], ctx)).toBeUndefined();
    // a command that ran and failed (red tests) did its job
    expect(incompleteRun([call("shell", "error", "1 failed")], ctx)).toBeUndefined();
  });

  test("edits landed but every command was refused for want of a sandbox: tools_unavailable", () => {
    const e = incompleteRun(
      [call("edit", "ok"), call("shell", "denied", `error: permission denied — ${REFUSAL}.`)],
      ctx,
    );
    expect(e?.reason).toBe("tools_unavailable");
    expect(e?.exitCode).toBe(6);
    expect(e?.hint).toContain("bubblewrap");
  });

  test("a command failing with a DNS error inside a network-less sandbox: tools_unavailable", () => {
    const offline = call("shell", "error", "npm ERR! code EAI_AGAIN\nnpm ERR! request failed");
    expect(incompleteRun([offline], ctx)?.reason).toBe("tools_unavailable");
    expect(incompleteRun([offline], ctx)?.hint).toContain("install dependencies before");
    // with the network on, the same failure is the command's own
    expect(incompleteRun([offline], { ...ctx, networkOff: false })).toBeUndefined();
    // another command ran: the run did some of its work
    expect(incompleteRun([offline, call("shell", "ok")], ctx)).toBeUndefined();
  });

  test("a command whose host the allowlist refused: tools_unavailable, naming --allow-network HOST", () => {
    const refused = call(
      "shell",
      "error",
      "exit code: 1\n[stderr]\nnpm ERR! 403 Forbidden\n[network]\nnetwork: denied registry.yarnpkg.com:443: not in the network allowlist; to allow it: --allow-network registry.yarnpkg.com",
    );
    const e = incompleteRun([refused], ctx);
    expect(e?.reason).toBe("tools_unavailable");
    expect(e?.hint).toContain("--allow-network HOST");
    // an allowed host in the same command's log is not a refusal
    const fine = call(
      "shell",
      "error",
      "exit code: 1\n[network]\nnetwork: allowed registry.npmjs.org:443",
    );
    expect(incompleteRun([fine], ctx)).toBeUndefined();
  });
});
