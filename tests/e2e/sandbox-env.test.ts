/**
 * A child's environment is an allowlist: the documented core set (PATH, HOME, locale, CI facts,
 * toolchains) plus what the user names with --pass-env or sandbox.pass_env. Every variable the
 * red team found in `env` is absent because it is not on the list — shown by a random name with a
 * random, harmless-looking value that no credential pattern could catch, which is absent too until
 * the user names it. A command that fails says which names it did not get.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { requireBinary } from "../support/binary.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { SANDBOX_MISSING } from "../support/sandbox.ts";
import { agent, hostile, plant, runScript, sentToProvider } from "./sandbox-support.ts";

const live = test.skipIf(SANDBOX_MISSING !== undefined);
const ALLOW_SCRIPT = ["--allow-tool", "run_command(sh attack.sh)"];

/** What reached `env` in read-only mode before (issue: "Secrets in child processes"). */
const FOUND: Record<string, string> = {
  GPG_PASSPHRASE: "correct horse battery staple",
  CI_JOB_JWT: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwcm9qZWN0In0.c2lnbmF0dXJlLWhlcmU",
  SENTRY_DSN: "https://9f86d081884c7d65@o4504.ingest.sentry.io/4505",
  REDIS_URL: "redis://:r3d1s-pa55w0rd@cache.internal:6379/0",
  DATABASE_URL: "postgres://app:pa/ss-w0rd@db.internal:5432/app",
  SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0000/B0000/abcdefghijklmnop",
  FASTLANE_SESSION: "---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: 4b1d",
  GL_PAT: "glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm",
  "npm_config_//registry.npmjs.org/:_authToken": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
  STRIPE_KEY: "sk_live_51Habcdefghijklmnopqrstuv",
  SSH_PASSPHRASE: "my ssh passphrase 2024",
  OP_SERVICE_ACCOUNT: "ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSJ9",
  HF_HUB: "hf_AbCdEfGhIjKlMnOpQrStUvWxYz",
};

const values = (env: Record<string, string>) => Object.values(env).map((v) => v.split("\n")[0]);

describe("sandbox: a child's environment is the core set plus what the user names", () => {
  live(
    "none of the red team's variables reach `env`; the failed command names them, never their values",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm, FOUND);
      await plant(h, "env; exit 1");
      llm.push(runScript, { text: "done" });
      const r = await agent(h, ALLOW_SCRIPT);
      expect(r.code).toBe(0);
      const sent = sentToProvider(llm);
      for (const v of values(FOUND)) expect(sent).not.toContain(JSON.stringify(v).slice(1, -1));
      // what it did get: the core set
      expect(sent).toContain(`HOME=${h.home}`);
      expect(sent).toContain("PATH=");
      // what it did not get, by name, and how to pass one
      for (const name of ["GPG_PASSPHRASE", "CI_JOB_JWT", "GL_PAT", "DEPLOY_TOKEN"])
        expect(sent).toContain(name);
      expect(sent).toContain("--pass-env NAME");
    },
    60_000,
  );

  live(
    "a random unlisted name with a random value is absent too — until --pass-env names it, or --env-policy all",
    async () => {
      requireBinary();
      const name = `ZQ${randomBytes(4).toString("hex").toUpperCase()}_SETTING`;
      const value = `v${randomBytes(6).toString("hex")}`;
      await using llm = await startMockLlm();
      await using h = await hostile(llm, { [name]: value, ...FOUND });
      await plant(h, `echo "got=[$${name}]"`);
      const runs: Array<[string[], string]> = [
        [ALLOW_SCRIPT, "got=[]"],
        [[...ALLOW_SCRIPT, "--pass-env", name], `got=[${value}]`],
        [[...ALLOW_SCRIPT, "--env-policy", "all"], `got=[${value}]`],
      ];
      for (const [args, expected] of runs) {
        llm.requests.length = 0;
        llm.push(runScript, { text: "done" });
        const r = await agent(h, args);
        expect(r.code).toBe(0);
        expect(sentToProvider(llm)).toContain(expected);
      }
    },
    60_000,
  );

  live(
    "sandbox.pass_env in the user's config passes a name; the same key in an untrusted workspace does not",
    async () => {
      requireBinary();
      await using llm = await startMockLlm();
      await using h = await hostile(llm, { TEAM_SETTING: "from-user-env" });
      await plant(h, 'echo "team=[$TEAM_SETTING]"');
      await mkdir(join(h.ws, ".chatcli"), { recursive: true });
      await writeFile(
        join(h.ws, ".chatcli", "config.json"),
        JSON.stringify({ sandbox: { pass_env: ["TEAM_SETTING"] } }),
      );
      llm.push(runScript, { text: "done" });
      const ws = await agent(h, ALLOW_SCRIPT);
      expect(sentToProvider(llm)).toContain("team=[]");
      expect(JSON.stringify(ws.envelope["warnings"])).toContain("sandbox.pass_env");

      await writeFile(
        join(h.home, ".chatcli", "config.json"),
        JSON.stringify({ sandbox: { pass_env: ["TEAM_SETTING"] } }),
      );
      llm.requests.length = 0;
      llm.push(runScript, { text: "done" });
      await agent(h, ALLOW_SCRIPT);
      expect(sentToProvider(llm)).toContain("team=[from-user-env]");
    },
    60_000,
  );
});
