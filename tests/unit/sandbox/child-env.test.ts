import { describe, expect, test } from "bun:test";
import { childEnvironment, filteredNote, inCoreSet } from "../../../lib/sandbox/env.ts";

describe("a child's environment by allowlist", () => {
  test("core: the documented set, nothing else; the rest is reported by name", () => {
    const env = {
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      CI: "true",
      GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
      GITHUB_TOKEN: "ghs_abcdefghijklmnopqrstuvwxyz0123",
      JAVA_HOME: "/opt/jdk",
      NODE_ENV: "test",
      NODE_AUTH_TOKEN: "npm-tok",
      npm_config_registry: "https://registry.npmjs.org/",
      "npm_config_//registry.npmjs.org/:_authToken": "npm_abc",
      npm_config__auth: "dXNlcjpwYXNz",
      MY_APP_SETTING: "harmless",
      CHATCLI_HOME: "/home/u/.chatcli",
    };
    const { env: out, filtered } = childEnvironment(env);
    expect(Object.keys(out).sort()).toEqual(
      [
        "CI",
        "GITHUB_SHA",
        "HOME",
        "JAVA_HOME",
        "LANG",
        "LC_ALL",
        "NODE_ENV",
        "PATH",
        "npm_config_registry",
      ].sort(),
    );
    expect(filtered).toEqual(
      [
        "CHATCLI_HOME",
        "GITHUB_TOKEN",
        "MY_APP_SETTING",
        "NODE_AUTH_TOKEN",
        "npm_config_//registry.npmjs.org/:_authToken",
        "npm_config__auth",
      ].sort(),
    );
  });

  test("a value that looks like a credential is dropped even under an allowed name", () => {
    const { env } = childEnvironment({
      HTTPS_PROXY: "http://user:hunter22@proxy.corp:3128",
      HTTP_PROXY: "http://proxy.corp:3128",
      GOFLAGS: "-mod=mod ghp_abcdefghijklmnopqrstuvwxyz012345",
      PIP_INDEX_URL: "https://__token__:pypi-AgEIcHlwaS5vcmc@pypi.example/simple",
    });
    expect(env).toEqual({ HTTP_PROXY: "http://proxy.corp:3128" });
  });

  test("--pass-env names pass whatever they hold; --env-policy all inherits minus secrets", () => {
    const env = { PATH: "/bin", NPM_TOKEN: "npm_x", MY_APP_SETTING: "a", OPENAI_API_KEY: "sk-x" };
    expect(childEnvironment(env, { pass: ["NPM_TOKEN"] }).env).toEqual({
      PATH: "/bin",
      NPM_TOKEN: "npm_x",
    });
    expect(childEnvironment(env, { policy: "all" }).env).toEqual({
      PATH: "/bin",
      MY_APP_SETTING: "a",
    });
  });

  test("none of the red team's names is in the core set (absent by the list, not by a pattern)", () => {
    for (const name of [
      "GPG_PASSPHRASE",
      "CI_JOB_JWT",
      "SENTRY_DSN",
      "REDIS_URL",
      "DATABASE_URL",
      "SLACK_WEBHOOK_URL",
      "FASTLANE_SESSION",
      "GL_PAT",
      "npm_config_//registry.npmjs.org/:_authToken",
      "STRIPE_KEY",
      "SSH_PASSPHRASE",
      "OP_SERVICE_ACCOUNT",
      "HF_HUB",
      "SSH_AUTH_SOCK",
      "AWS_SECRET_ACCESS_KEY",
      "GIT_ASKPASS",
      "GIT_CONFIG_COUNT",
    ])
      expect(inCoreSet(name)).toBe(false);
  });

  test("the note for a failed command names, caps, and says how to pass one", () => {
    expect(filteredNote([])).toBeUndefined();
    const many = Array.from({ length: 45 }, (_, i) => `V${i}`);
    const note = filteredNote(many) as string;
    expect(note).toContain("V0, V1");
    expect(note).toContain("and 5 more");
    expect(note).toContain("--pass-env NAME");
  });
});
