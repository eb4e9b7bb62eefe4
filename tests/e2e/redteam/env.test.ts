/**
 * Red team, secrets in a command's environment: chatcli's own environment holds every name of
 * cases/env.ts; a committed script prints `env` and every /proc/<pid>/environ it can open, in
 * read-only (allow rule), edit and auto, and read-only with `--env-policy all`. Broken: the name's
 * marker is in what the provider got. Not blind: a `--pass-env` plain value comes through.
 */
import { describe, expect, test } from "bun:test";
import { requireBinary } from "../../support/binary.ts";
import { startMockLlm } from "../../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../../support/sandbox.ts";
import { agent, hostile, plant } from "../sandbox-support.ts";
import { ENV_CASES, envIds, envSlug } from "./cases/env.ts";
import {
  CONTROLS,
  sections,
  settle,
  settleControls,
  toolResults,
  type Verdict,
} from "./support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const mark = (i: number) => `RTE${i}Z`;
const PROBE = "plain-visible-probe-4411";

const SCRIPT = [
  'echo "@@case env"',
  "env",
  'echo "@@case proc"',
  "for f in /proc/[0-9]*/environ /proc/self/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null; done",
  'echo "@@case end"',
].join("\n");

function secretEnv(): Record<string, string> {
  const env: Record<string, string> = { PROBE_VISIBLE: PROBE };
  for (const [i, c] of ENV_CASES.entries()) env[c.name] = c.value(mark(i));
  return env;
}

async function probe(args: string[]) {
  requireBinary();
  await using llm = await startMockLlm();
  await using h = await hostile(llm, secretEnv());
  await plant(h, SCRIPT);
  llm.push(
    { tool_calls: [{ id: "c-sh", name: "run_command", arguments: { cmd: "sh attack.sh" } }] },
    { text: "done" },
  );
  await agent(h, [
    ...args,
    "--allow-tool",
    "run_command(sh attack.sh)",
    "--pass-env",
    "PROBE_VISIBLE",
  ]);
  const sh = sections(toolResults(llm.requests).get("c-sh") ?? "");
  expect(sh.has("end")).toBe(true);
  expect(sh.get("env")).toContain(PROBE);
  expect(sh.get("proc")).toContain(PROBE);
  return sh;
}

const verdict = (id: string, text: string | undefined, m: string): Verdict => {
  const at = text?.indexOf(m) ?? -1;
  return {
    id,
    broken: at >= 0,
    note: at >= 0 ? text?.slice(Math.max(0, at - 60), at + 40) : undefined,
  };
};

describe("red team: secrets in a command's environment", () => {
  live(
    "read-only, edit, auto, and --env-policy all",
    async () => {
      const verdicts: Verdict[] = [];
      const ro = await probe(["--permission-mode", "read-only"]);
      const edit = await probe(["--permission-mode", "edit"]);
      const auto = await probe(["--permission-mode", "auto"]);
      const all = await probe(["--permission-mode", "read-only", "--env-policy", "all"]);
      for (const [i, c] of ENV_CASES.entries()) {
        const id = (m: string) => `env.${envSlug(c.name)}.${m}`;
        verdicts.push(verdict(id("env.readonly"), ro.get("env"), mark(i)));
        verdicts.push(verdict(id("proc-environ.readonly"), ro.get("proc"), mark(i)));
        verdicts.push(verdict(id("env.edit"), edit.get("env"), mark(i)));
        verdicts.push(verdict(id("env.auto"), auto.get("env"), mark(i)));
        if (!c.innocent)
          verdicts.push(verdict(id("env-policy-all.readonly"), all.get("env"), mark(i)));
      }
      settle(envIds(), verdicts);
    },
    120_000,
  );

  if (CONTROLS)
    live(
      "controls: --pass-env of a plain secret, and --env-policy all of an innocent name, hand it over",
      async () => {
        const passed = await probe([
          "--permission-mode",
          "read-only",
          "--pass-env",
          "GPG_PASSPHRASE",
        ]);
        const all = await probe(["--permission-mode", "read-only", "--env-policy", "all"]);
        const gpg = ENV_CASES.findIndex((c) => c.name === "GPG_PASSPHRASE");
        const app = ENV_CASES.findIndex((c) => c.name === "MY_APP_CONFIG");
        settleControls([
          verdict("control.env.pass-env", passed.get("env"), mark(gpg)),
          verdict("control.env.env-policy-all-innocent", all.get("env"), mark(app)),
        ]);
      },
      120_000,
    );
});
