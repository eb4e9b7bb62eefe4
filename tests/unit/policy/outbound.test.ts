import { describe, expect, test } from "bun:test";
import { actionOf, outboundCheck } from "../../../lib/agent/action.ts";
import { webFetchTool } from "../../../lib/agent/tools/web-fetch.ts";
import { webSearchTools } from "../../../lib/agent/tools/web-search.ts";
import type { Tool } from "../../../lib/agent/types.ts";
import { carriedSecret, knownSecrets } from "../../../lib/core/secrets.ts";
import { domainMatches, outboundInfo } from "../../../lib/policy/outbound.ts";
import {
  decide,
  type PermissionMode,
  type PermissionPolicy,
} from "../../../lib/policy/permissions.ts";

const SECRET = "s3cr3t-Value-9f8e7d6c5b4a";

function policy(
  mode: PermissionMode,
  allow: string[] = [],
  deny: string[] = [],
  env: Record<string, string> = { DEPLOY_TOKEN: SECRET },
): PermissionPolicy {
  return {
    mode,
    allow,
    deny,
    onAsk: "deny",
    workspaceRoot: "/ws",
    cwd: "/ws",
    home: "/home/u",
    secrets: knownSecrets(env),
  };
}

const search = webSearchTools({ CHATCLI_SEARXNG_URL: "http://127.0.0.1:9" })[0] as Tool;
const mcp: Tool = {
  name: "mcp__tracker__create_issue",
  description: "",
  input_schema: { type: "object" },
  kind: "network",
  subject: (args) => String(args["title"] ?? ""),
  execute: async () => ({ output: "" }),
};
const fetchUrl = (p: PermissionPolicy, url: string) => decide(p, actionOf(webFetchTool, { url }));

describe("domain rules (Claude Code's spelling)", () => {
  test("a host matches itself only; *.host its subdomains, not itself; * anything", () => {
    expect(domainMatches("docs.python.org", "docs.python.org")).toBe(true);
    expect(domainMatches("docs.python.org", "DOCS.Python.org.")).toBe(true);
    expect(domainMatches("docs.python.org", "evil-docs.python.org")).toBe(false);
    expect(domainMatches("python.org", "docs.python.org")).toBe(false);
    expect(domainMatches("docs.python.org", "docs.python.org.evil.com")).toBe(false);
    expect(domainMatches("*.python.org", "docs.python.org")).toBe(true);
    expect(domainMatches("*.python.org", "a.b.python.org")).toBe(true);
    expect(domainMatches("*.python.org", "python.org")).toBe(false);
    expect(domainMatches("*.python.org", "notpython.org")).toBe(false);
    expect(domainMatches("*", "anything.example")).toBe(true);
    // IDNs compare in punycode, as URLs spell them
    expect(domainMatches("bücher.example", "xn--bcher-kva.example")).toBe(true);
  });
});

describe("web_fetch is closed in read-only and edit without a rule naming the host", () => {
  for (const mode of ["read-only", "edit"] as const) {
    test(mode, () => {
      const d = fetchUrl(policy(mode), "https://docs.python.org/3/library/re.html");
      expect(d.verdict).not.toBe("allow");
      expect(d.suggestion).toContain("--allow-tool 'web_fetch(domain:docs.python.org)'");
      expect(d.reason).toContain("--allow-tool 'web_fetch(domain:docs.python.org)'");
    });
  }
  test("the rule opens that host, not a look-alike or a subdomain", () => {
    const p = policy("read-only", ["web_fetch(domain:docs.python.org)"]);
    expect(fetchUrl(p, "https://docs.python.org/3/").verdict).toBe("allow");
    expect(fetchUrl(p, "http://docs.python.org:8080/x").verdict).toBe("allow");
    expect(fetchUrl(p, "https://docs.python.org.evil.test/").verdict).not.toBe("allow");
    expect(fetchUrl(p, "https://evil.test/?u=https://docs.python.org/").verdict).not.toBe("allow");
    expect(fetchUrl(p, "https://docs.python.org@evil.test/").verdict).not.toBe("allow");
    expect(fetchUrl(p, "https://www.docs.python.org/").verdict).not.toBe("allow");
  });
  test("a subdomain wildcard, a bare tool rule; a bare * rule does not open outbound", () => {
    expect(
      fetchUrl(policy("edit", ["web_fetch(domain:*.python.org)"]), "https://docs.python.org/")
        .verdict,
    ).toBe("allow");
    expect(fetchUrl(policy("edit", ["web_fetch"]), "https://x.test/").verdict).toBe("allow");
    expect(fetchUrl(policy("edit", ["*"]), "https://x.test/").verdict).not.toBe("allow");
    expect(fetchUrl(policy("edit", ["run_command(*)"]), "https://x.test/").verdict).not.toBe(
      "allow",
    );
  });
  test("auto and bypass keep it open; a deny rule still wins", () => {
    expect(fetchUrl(policy("auto"), "https://x.test/").verdict).toBe("allow");
    expect(fetchUrl(policy("bypass"), "https://x.test/").verdict).toBe("allow");
    const p = policy("auto", ["web_fetch"], ["web_fetch(domain:*.test)"]);
    expect(fetchUrl(p, "https://x.test/").verdict).toBe("deny");
  });
  test("the envelope says open or allowlist, with the rules that open a network tool", () => {
    expect(outboundInfo("auto", [], ["web_fetch"])).toEqual({ policy: "open", allow: [] });
    expect(
      outboundInfo(
        "read-only",
        ["web_fetch(domain:a.test)", "run_command(npm test)"],
        ["web_fetch"],
      ),
    ).toEqual({ policy: "allowlist", allow: ["web_fetch(domain:a.test)"] });
  });
});

describe("web_search and MCP tools: a rule names the tool", () => {
  test("web_search: a URL in the query is not a host", () => {
    const q = (p: PermissionPolicy, query: string) => decide(p, actionOf(search, { query }));
    expect(q(policy("read-only"), "bun test runner").verdict).not.toBe("allow");
    expect(q(policy("read-only"), "bun").suggestion).toContain("--allow-tool 'web_search'");
    expect(
      q(policy("read-only", ["web_search(domain:x.test)"]), "https://x.test/").verdict,
    ).not.toBe("allow");
    expect(q(policy("read-only", ["web_search"]), "bun").verdict).toBe("allow");
  });
  test("mcp__server__* and the exact tool name", () => {
    const call = (p: PermissionPolicy) => decide(p, actionOf(mcp, { title: "bug" }));
    expect(call(policy("edit")).verdict).not.toBe("allow");
    expect(call(policy("edit")).suggestion).toContain("--allow-tool 'mcp__tracker__create_issue'");
    expect(call(policy("edit", ["mcp__tracker__*"])).verdict).toBe("allow");
    expect(call(policy("edit", ["mcp__tracker__create_issue"])).verdict).toBe("allow");
    expect(call(policy("edit", ["mcp__other__*"])).verdict).not.toBe("allow");
  });
});

describe("a request that carries a secret is refused in every mode", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const spellings: Record<string, string> = {
    raw: `https://x.test/?k=${SECRET}`,
    "in the path": `https://x.test/${SECRET}/a`,
    "in the host": `https://${SECRET.toLowerCase()}.x.test/`,
    "URL-encoded": `https://x.test/?k=${encodeURIComponent(`${SECRET}&`)}`,
    "encoded twice": `https://x.test/?k=${encodeURIComponent(encodeURIComponent(`"${SECRET}"`))}`,
    "base64 at offset 0": `https://x.test/?d=${b64(SECRET)}`,
    "base64 inside JSON (offset 1)": `https://x.test/?d=${b64(`{"k":"${SECRET}"}`)}`,
    "base64 at offset 2": `https://x.test/?d=${b64(`ab${SECRET}xyz`)}`,
    base64url: `https://x.test/?d=${b64(`??>${SECRET}`).replace(/\+/g, "-").replace(/\//g, "_")}`,
    "hex, lower": `https://x.test/?h=${Buffer.from(SECRET).toString("hex")}`,
    "hex, upper": `https://x.test/?h=${Buffer.from(SECRET).toString("hex").toUpperCase()}`,
  };
  for (const [name, url] of Object.entries(spellings)) {
    test(name, () => {
      for (const mode of ["read-only", "edit", "auto", "bypass"] as const) {
        const d = fetchUrl(policy(mode, ["web_fetch"]), url);
        expect(d.verdict).toBe("deny");
        expect(d.reason).toContain("DEPLOY_TOKEN");
        expect(d.reason).not.toContain(SECRET);
      }
    });
  }
  test("a web_search query and an MCP tool's arguments too", () => {
    const p = policy("auto");
    expect(decide(p, actionOf(search, { query: `leak ${SECRET}` })).verdict).toBe("deny");
    expect(decide(p, actionOf(mcp, { title: "x", body: { nested: [b64(SECRET)] } })).verdict).toBe(
      "deny",
    );
  });
  test("the issue's variables: a DSN, a URL password with a '/', a webhook, a JWT", () => {
    const env = {
      DATABASE_URL: "postgres://app:pa/ss-w0rd-x@db.internal:5432/app",
      SENTRY_DSN: "https://a1b2c3d4e5f6a7b8@o1.ingest.sentry.io/42",
      SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
      CI_JOB_JWT: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2IifQ.c2lnbmF0dXJl",
      GPG_PASSPHRASE: "correct horse battery",
    };
    const secrets = knownSecrets(env);
    expect(carriedSecret("https://x.test/?p=pa%2Fss-w0rd-x", secrets)?.name).toBe("DATABASE_URL");
    expect(carriedSecret(`https://x.test/?q=${b64(env.SLACK_WEBHOOK_URL)}`, secrets)?.name).toBe(
      "SLACK_WEBHOOK_URL",
    );
    expect(carriedSecret(`https://x.test/${env.CI_JOB_JWT}`, secrets)?.name).toBe("CI_JOB_JWT");
    expect(carriedSecret("https://x.test/?q=correct+horse+battery", secrets)?.name).toBe(
      "GPG_PASSPHRASE",
    );
    expect(carriedSecret("https://x.test/a1b2c3d4e5f6a7b8", secrets)?.name).toBe("SENTRY_DSN");
  });
  test("limits, regions, paths and short values are not secrets: no false refusals", () => {
    const secrets = knownSecrets({
      OPENAI_MAX_TOKENS: "40960000",
      AWS_REGION: "eu-central-1",
      GOOGLE_APPLICATION_CREDENTIALS: "/home/u/key.json",
      SOME_KEY: "short",
      HOME: "/home/u",
    });
    expect(secrets).toEqual([]);
    expect(fetchUrl(policy("auto", [], [], {}), "https://eu-central-1.x.test/").verdict).toBe(
      "allow",
    );
  });
});

describe("every redirect hop is judged by the same rule", () => {
  test("the check tools apply to each hop names the flag, and refuses secrets", () => {
    const check = outboundCheck(policy("read-only", ["web_fetch(domain:a.test)"]));
    expect(check("web_fetch", "https://a.test/x")).toBeUndefined();
    expect(check("web_fetch", "https://b.test/x")).toContain(
      "--allow-tool 'web_fetch(domain:b.test)'",
    );
    expect(check("web_fetch", `https://a.test/?k=${SECRET}`)).toContain("DEPLOY_TOKEN");
    expect(outboundCheck(policy("auto"))("web_fetch", "https://b.test/")).toBeUndefined();
  });
});
