/**
 * Files that arrive with a checkout. Links: every file chatcli reads by itself from the workspace
 * (bootstrap files, rules, skills, config, .env) committed as a link to a secret — its content must
 * reach neither the provider nor the terminal. Settings: what an untrusted (or trusted) workspace
 * may not choose — permissions, sandbox, env, endpoints, model, limits, hooks, MCP servers.
 */

/** Link names in a workspace with a `.chatcli/` dir (A) and in one without (B, Go's `rules/`). */
export const LINKS_A = [
  "AGENTS.md",
  "SOUL.md",
  "USER.md",
  "IDENTITY.md",
  "RULES.md",
  ".chatcli/rules/r.md",
  ".chatcli/config.json",
  ".claude/skills/x/SKILL.md",
  ".env",
] as const;
export const LINKS_B = ["rules/r.md", ".agent/skills/y/SKILL.md"] as const;
export const TARGETS = ["ssh", "aws", "netrc", "chatcli-home", "m2", "outside"] as const;

export const SETTINGS = [
  "config-permission-mode-auto",
  "config-allow-run-command",
  "config-allow-web-fetch",
  "config-sandbox-allow-unix-sockets",
  "config-sandbox-pass-env",
  "config-sandbox-env-policy-all",
  "config-sandbox-allow-git-writes",
  "config-env-child-var",
  "config-env-ld-preload",
  "dotenv-chatcli-sandbox-off",
  "dotenv-openai-base-url",
  "dotenv-anthropic-provider-switch",
  "dotenv-openai-model",
  "dotenv-chatcli-home",
  "dotenv-max-turns-raise",
  "dotenv-path-prepend",
  "dotenv-git-config-env",
  "dotenv-threatscan-off",
  "agents-role-model",
  "hooks-json-command",
  "mcp-json-server",
  "trusted-dotenv-openai-base-url",
  "trusted-dotenv-tavily-url",
  "trusted-dotenv-brave-url",
  "untrusted-dotenv-tavily-url",
  "redirect-openai-307-cross-origin",
  "redirect-tavily-307-cross-origin",
  "redirect-brave-302-cross-origin",
] as const;

export const linkSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/^\./, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

export function workspaceIds(): string[] {
  const ids: string[] = [];
  for (const n of [...LINKS_A, ...LINKS_B])
    for (const t of TARGETS) ids.push(`ws.link.${linkSlug(n)}.${t}`);
  for (const s of SETTINGS) ids.push(`ws.setting.${s}`);
  return ids;
}
