/**
 * Which credentials may go to which endpoints (CONTRACT §5): one row per service chatcli sends a
 * key to — the model providers of lib/llm/provider-table.ts (which takes its key and base-URL
 * variables from here) and web_search's backends. A credential is bound to its row's endpoints by
 * this table, never by the shape of a variable's name: an endpoint a workspace file set gets a key
 * only when that same file set the key too (lib/core/settings.ts applies the rule).
 *
 * tests/unit/core/credential-bindings.test.ts fails when a provider or a source file reads an
 * endpoint variable that no row binds (or that is not listed below as carrying no key).
 */
export interface CredentialBinding {
  /** The provider table's id, or the search backend's name. */
  id: string;
  /** Variables holding this service's credentials, first set wins. */
  credentials: readonly string[];
  /** Variables naming where this service's requests (and so its credentials) go, first set wins. */
  endpoints: readonly string[];
}

const row = (id: string, credentials: string[], endpoints: string[]): CredentialBinding => ({
  id,
  credentials,
  endpoints,
});

export const CREDENTIAL_BINDINGS: readonly CredentialBinding[] = [
  row("openai", ["OPENAI_API_KEY"], ["OPENAI_BASE_URL", "OPENAI_API_URL"]),
  row("anthropic", ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"], ["ANTHROPIC_BASE_URL"]),
  row("google", ["GOOGLEAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"], ["GOOGLEAI_BASE_URL"]),
  row(
    "bedrock",
    // lib/llm/provider-table.ts AWS_CREDENTIAL_ENVS, and the halves of a key pair
    [
      "AWS_BEARER_TOKEN_BEDROCK",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_PROFILE",
      "AWS_WEB_IDENTITY_TOKEN_FILE",
      "AWS_CONTAINER_CREDENTIALS_FULL_URI",
      "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    ],
    ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"],
  ),
  row("ollama", [], ["OLLAMA_BASE_URL"]),
  row("openrouter", ["OPENROUTER_API_KEY"], ["OPENROUTER_BASE_URL"]),
  row("xai", ["XAI_API_KEY"], ["XAI_BASE_URL"]),
  // the specific variable first: inside GitHub Actions GITHUB_TOKEN is always set
  row(
    "github_models",
    ["GITHUB_MODELS_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"],
    ["GITHUB_MODELS_BASE_URL"],
  ),
  row("copilot", ["GITHUB_COPILOT_TOKEN"], ["COPILOT_BASE_URL", "COPILOT_API_BASE_URL"]),
  row("zai", ["ZAI_API_KEY"], ["ZAI_BASE_URL"]),
  row("minimax", ["MINIMAX_API_KEY"], ["MINIMAX_BASE_URL"]),
  row("moonshot", ["MOONSHOT_API_KEY"], ["MOONSHOT_BASE_URL"]),
  row("stackspot", ["CLIENT_ID", "CLIENT_KEY"], []),
  row("devin", ["DEVIN_API_KEY"], []),
  row("openai_assistant", ["OPENAI_API_KEY"], []),
  // web_search's backends (lib/agent/tools/web-search.ts)
  row("searxng", [], ["CHATCLI_SEARXNG_URL"]),
  row("brave", ["BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"], ["CHATCLI_BRAVE_SEARCH_URL"]),
  row("tavily", ["TAVILY_API_KEY"], ["CHATCLI_TAVILY_URL"]),
];

/**
 * Variables whose names look like endpoints but carry no credential chatcli sends: each with why.
 * (Anything else endpoint-like that lib/ reads must be bound above.)
 */
export const UNBOUND_ENDPOINT_VARS: Readonly<Record<string, string>> = {
  DOCKER_HOST: "an agent handle kept out of child processes; chatcli sends nothing there",
  AWS_CONTAINER_CREDENTIALS_FULL_URI:
    "a credential source the AWS SDK reads from the process environment only (bound to Bedrock as a credential)",
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI:
    "a credential source the AWS SDK reads from the process environment only (bound to Bedrock as a credential)",
};

/** The row of a service by id. */
export function bindingOf(id: string): CredentialBinding | undefined {
  return CREDENTIAL_BINDINGS.find((b) => b.id === id);
}

/** The rows whose endpoints include `name`. */
export function bindingsOfEndpoint(name: string): CredentialBinding[] {
  return CREDENTIAL_BINDINGS.filter((b) => b.endpoints.includes(name));
}
