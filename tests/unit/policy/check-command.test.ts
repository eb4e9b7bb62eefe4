import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { run, tempDir } from "../../support/ctx.ts";

async function check(dir: string, args: string[]) {
  const r = await run(["policy", "check", "--json", ...args], {
    cwd: dir,
    env: { HOME: dir, CHATCLI_HOME: join(dir, ".chatcli") },
  });
  expect(r.code).toBe(0);
  return JSON.parse(r.out);
}

describe("chatcli policy check", () => {
  test("a compound command: every part judged, the worst wins, the flag that allows it named", async () => {
    await using d = await tempDir();
    const r = await check(d.path, ["--", "npm test && git push --force"]);
    expect(r).toMatchObject({
      verdict: "ask",
      unattended: "deny",
      dangerous: true,
      mode: "read-only",
    });
    expect(r.parts.map((p: { subject: string; class: string }) => [p.subject, p.class])).toEqual([
      ["npm test", "shell"],
      ["git push --force", "dangerous"],
    ]);
    expect(r.suggestion).toBe(
      "--allow-tool 'run_command(git push --force)' (or --permission-mode bypass)",
    );
  });

  test("following the suggestion allows it; a deny rule beats it and names the rule to drop", async () => {
    await using d = await tempDir();
    const before = await check(d.path, ["--", "npm test"]);
    expect(before.verdict).toBe("ask");
    expect(before.unattended).toBe("deny");
    expect(before.suggestion).toBe(
      "--permission-mode auto or --allow-tool 'run_command(npm test)'",
    );
    const allowed = await check(d.path, [
      "--allow-tool",
      "run_command(npm test)",
      "--",
      "npm test",
    ]);
    expect(allowed).toMatchObject({ verdict: "allow", suggestion: null });
    expect(allowed.parts[0]).toMatchObject({ verdict: "allow", reason: "allowed by rule" });
    const denied = await check(d.path, [
      "--permission-mode",
      "auto",
      "--deny-tool",
      "run_command(npm *)",
      "--",
      "npm test",
    ]);
    expect(denied).toMatchObject({
      verdict: "deny",
      suggestion: "remove the rule run_command(npm *)",
    });
    const fail = await check(d.path, ["--on-ask", "fail", "--", "npm test"]);
    expect(fail.unattended).toBe("fail");
  });

  test("text output: verdict first, the parts, no escape sequences; bad flags are usage errors", async () => {
    await using d = await tempDir();
    const r = await run(["policy", "check", "--", "cat", "a.txt", ";", "rm", "-rf", "/"], {
      cwd: d.path,
      env: { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") },
    });
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("deny: cat a.txt ; rm -rf /");
    expect(r.out).toContain("  parts:\n    allow read      cat a.txt");
    const bad = await run(["policy", "check", "--permission-mode", "yolo", "--", "ls"], {
      cwd: d.path,
      env: { HOME: d.path },
    });
    expect(bad.code).toBe(2);
    const badRule = await run(["policy", "check", "--allow-tool", "a b(", "--", "ls"], {
      cwd: d.path,
      env: { HOME: d.path },
    });
    expect(badRule.code).toBe(2);
  });

  test("the format flags every document command takes: --jsonl and --output-format print the same document; schema takes them too", async () => {
    await using d = await tempDir();
    const env = { HOME: d.path, CHATCLI_HOME: join(d.path, ".chatcli") };
    const json = await run(["policy", "check", "--json", "--", "ls"], { cwd: d.path, env });
    for (const flags of [
      ["--jsonl"],
      ["--output-format", "stream-json"],
      ["--output-format", "json"],
    ]) {
      const r = await run(["policy", "check", ...flags, "--", "ls"], { cwd: d.path, env });
      expect(r.code).toBe(0);
      expect(r.out).toBe(json.out);
    }
    const plain = await run(["schema", "result"], { cwd: d.path, env });
    for (const flags of [["--json"], ["--jsonl"]]) {
      const r = await run(["schema", "result", ...flags], { cwd: d.path, env });
      expect(r.code).toBe(0);
      expect(r.out).toBe(plain.out);
    }
  });
});
