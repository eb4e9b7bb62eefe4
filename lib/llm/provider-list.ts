/**
 * Every list of providers a user reads — the top `--help`, ask/agent/coder `--help`, `chatcli config`,
 * `chatcli models`, the no-provider hint and the README's table — rendered from the one provider
 * table (provider-table.ts), so they cannot disagree. Pure: data in, text out.
 */
import { PROVIDER_TABLE, type ProviderInfo } from "./provider-table.ts";

/** The providers chatcli can call (the table's unsupported entries are listed apart). */
export const SERVED: readonly ProviderInfo[] = PROVIDER_TABLE.filter((p) => !p.unsupported);

/** The built-in test models (no key, no network): `-m mock:echo`, `-m mock:script`. */
export const MOCK_MODELS = [
  { id: "echo", note: "answers with the request it received, as JSON" },
  {
    id: "script",
    note: "replays --fake-responses FILE.jsonl (one reply per request, tools included)",
  },
] as const;

/** `OPENAI|CLAUDEAI|…`: every LLM_PROVIDER value chatcli serves. */
export function llmProviderValues(): string {
  return SERVED.map((p) => p.envName).join("|");
}

/** The `-m` prefixes a user types: the id and its short plain-word aliases. */
export function modelPrefixes(info: ProviderInfo): string[] {
  const squeezed = info.id.replace(/_/g, "");
  const aliases = info.aliases.filter(
    (a) => /^[a-z]+$/.test(a) && a !== info.envName.toLowerCase() && a !== squeezed,
  );
  return [info.id, ...aliases];
}

/** What to set to configure a provider (names only), e.g. `OPENAI_API_KEY` or `AWS credentials`. */
export function configureWith(info: ProviderInfo): string {
  if (info.id === "ollama") return "OLLAMA_ENABLED=true or OLLAMA_BASE_URL";
  if (info.id === "bedrock")
    return "AWS credentials (AWS_ACCESS_KEY_ID+AWS_SECRET_ACCESS_KEY, AWS_PROFILE, OIDC, AWS_BEARER_TOKEN_BEDROCK) and BEDROCK_REGION or BEDROCK_MODEL";
  if (info.id === "openai") return "OPENAI_API_KEY (or OPENAI_BASE_URL for a local endpoint)";
  return info.keyEnvs.join(" or ");
}

/** The variables `chatcli config` always lists, set or not: each served provider's first key. */
export function keyVariables(): string[] {
  const names = SERVED.flatMap((p) =>
    p.id === "ollama"
      ? ["OLLAMA_ENABLED", "OLLAMA_BASE_URL"]
      : p.id === "bedrock"
        ? []
        : p.keyEnvs.slice(0, 1),
  );
  return [...new Set(names)];
}

/** Every variable a served provider reads (keys, models, endpoints, output caps), for `chatcli config`. */
export function providerVariables(): Set<string> {
  return new Set([
    ...SERVED.flatMap((p) => [...p.keyEnvs, ...p.modelEnvs, ...p.baseUrlEnvs, p.maxTokensEnv]),
    "OLLAMA_ENABLED",
    "BEDROCK_REGION",
  ]);
}

/** `-m` examples for help: `openai/…, anthropic/…, …, mock:echo, mock:script`. */
export function modelSpecExamples(): string {
  return [...SERVED.map((p) => `${p.id}/…`), ...MOCK_MODELS.map((m) => `mock:${m.id}`)].join(", ");
}

/** One aligned line per served provider: LLM_PROVIDER, what configures it, its model variable. */
export function providerHelpLines(indent = "  "): string[] {
  const rows = SERVED.map((p) => [
    p.envName,
    configureWith(p).replace(/ \(.*\)/, ""),
    `${p.modelEnvs[0]} (${p.defaultModel})`,
  ]);
  const w0 = Math.max(...rows.map((r) => (r[0] as string).length));
  return rows.map(([a, b, c]) => `${indent}${(a as string).padEnd(w0)}  ${b}; ${c}`);
}

/** Credentials column of the README table (the AWS chain spelled out). */
const CREDENTIALS_TEXT: Record<string, string> = {
  anthropic: "`ANTHROPIC_API_KEY` / `ANTHROPIC_OAUTH_TOKEN`",
  bedrock:
    "AWS chain: `AWS_ACCESS_KEY_ID`+`AWS_SECRET_ACCESS_KEY`(+`AWS_SESSION_TOKEN`), `AWS_PROFILE`, web identity (GitHub Actions OIDC), container credentials, `AWS_BEARER_TOKEN_BEDROCK`",
  ollama: "`OLLAMA_ENABLED=true` or `OLLAMA_BASE_URL`",
};

/** Extra words after the endpoint column's variables. */
const ENDPOINT_NOTE: Record<string, string> = {
  openai: "; `OPENAI_USE_RESPONSES=true` for the Responses API (codex/-pro models use it anyway)",
};

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(" / ");

/** The README's "Choosing a model" table (a unit test keeps the README equal to it). */
export function providerMarkdownTable(): string {
  const rows = SERVED.map((p) => {
    const endpointVars = p.id === "bedrock" ? ["BEDROCK_REGION", "AWS_REGION"] : p.baseUrlEnvs;
    const endpoint =
      p.id === "bedrock"
        ? "`BEDROCK_REGION` / `AWS_REGION`, `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`"
        : `${endpointVars.map((n) => `\`${n}\``).join(", ")}${p.defaultBaseURL ? ` (${p.defaultBaseURL})` : ""}`;
    const sentAs = p.id === "github_models" ? `, sent as \`openai/${p.defaultModel}\`` : "";
    return `| \`${p.envName}\` | ${modelPrefixes(p)
      .map((m) => `\`${m}\``)
      .join(
        ", ",
      )} | ${CREDENTIALS_TEXT[p.id] ?? code(p.keyEnvs)} | \`${p.modelEnvs[0]}\` (\`${p.defaultModel}\`${sentAs}) | ${endpoint}${ENDPOINT_NOTE[p.id] ?? ""} |`;
  });
  return [
    "| `LLM_PROVIDER` | `-m` prefix | credentials | model (default) | endpoint |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
