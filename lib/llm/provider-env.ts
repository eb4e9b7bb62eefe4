/** Builds a ModelRef for one provider from ChatCLI's env variables (reference §8.1). */
import type { Env } from "../core/ctx.ts";
import { ConfigError } from "../core/errors.ts";
import type { ModelRef } from "./model-ref.ts";
import { AWS_CREDENTIAL_ENVS, firstSet, type ProviderInfo } from "./provider-table.ts";

/**
 * Models served only by the Responses API (OpenAI's codex and -pro lines, deep research, computer
 * use): they go there even without OPENAI_USE_RESPONSES.
 */
export function responsesOnly(model: string): boolean {
  return /(?:^|[-.])codex|^o\d(?:-mini)?-pro|^gpt-5(?:\.\d+)?-pro|deep-research|computer-use/i.test(
    model.trim(),
  );
}

function missingKey(info: ProviderInfo): never {
  const keys = info.keyEnvs.join(" or ");
  throw new ConfigError(`no API key for ${info.id}`, {
    hint: `set ${keys} (or add it to ~/.chatcli/config.json "env", or a .env file)`,
  });
}

/** GitHub Models names models `publisher/model`; ChatCLI's default `gpt-4o` is OpenAI's. */
function githubModelId(model: string): string {
  return model.includes("/") ? model : `openai/${model}`;
}

/** The ModelRef for `info` with `model` (else its model variable, else its default). */
export function buildRef(info: ProviderInfo, model: string | undefined, env: Env): ModelRef {
  if (info.unsupported) {
    throw new ConfigError(`LLM provider ${info.envName}: ${info.unsupported}`);
  }
  const ref: ModelRef = {
    provider: info.id,
    protocol: info.protocol,
    model: model || firstSet(env, info.modelEnvs)?.value || info.defaultModel,
  };
  const cap = Number(env[info.maxTokensEnv]?.trim());
  if (env[info.maxTokensEnv]?.trim() && Number.isInteger(cap) && cap > 0) ref.maxTokens = cap;
  if (info.headers) ref.headers = { ...info.headers };
  const key = firstSet(env, info.keyEnvs)?.value;
  const base = firstSet(env, info.baseUrlEnvs)?.value;
  switch (info.id) {
    case "openai": {
      ref.apiKey = env["OPENAI_API_KEY"];
      if (env["OPENAI_API_URL"]) ref.chatUrl = env["OPENAI_API_URL"];
      if (env["OPENAI_BASE_URL"]) ref.baseURL = env["OPENAI_BASE_URL"];
      if (!ref.apiKey && !ref.chatUrl && !ref.baseURL) missingKey(info);
      ref.apiKey ||= "none"; // an empty OPENAI_API_KEY with a local endpoint: send a placeholder
      const useResponses = env["OPENAI_USE_RESPONSES"]?.trim().toLowerCase();
      if (useResponses === "true" || useResponses === "1" || responsesOnly(ref.model)) {
        ref.protocol = "responses";
      }
      return ref;
    }
    case "anthropic":
      ref.apiKey = env["ANTHROPIC_API_KEY"];
      ref.authToken = ref.apiKey ? undefined : env["ANTHROPIC_OAUTH_TOKEN"];
      if (base) ref.baseURL = base;
      if (!ref.apiKey && !ref.authToken) missingKey(info);
      return ref;
    case "ollama": {
      const url = (base || info.defaultBaseURL || "").replace(/\/+$/, "");
      ref.baseURL = url.endsWith("/v1") ? url : `${url}/v1`;
      ref.apiKey = "ollama";
      return ref;
    }
    case "google":
      if (!key) missingKey(info);
      ref.apiKey = key;
      if (base) ref.baseURL = base;
      return ref;
    case "bedrock":
      return bedrockRef(ref, env, base);
    default:
      if (!key) missingKey(info);
      ref.apiKey = key;
      ref.baseURL = (base || info.defaultBaseURL || "").replace(/\/+$/, "");
      if (info.id === "github_models") ref.model = githubModelId(ref.model);
      return ref;
  }
}

function bedrockRef(ref: ModelRef, env: Env, base: string | undefined): ModelRef {
  const source = firstSet(env, AWS_CREDENTIAL_ENVS);
  if (!source) {
    throw new ConfigError("no AWS credentials for bedrock", {
      hint: "set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_WEB_IDENTITY_TOKEN_FILE (GitHub Actions OIDC) or run where container credentials are served; AWS_BEARER_TOKEN_BEDROCK for a Bedrock API key",
    });
  }
  ref.region =
    firstSet(env, ["BEDROCK_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"])?.value ?? "us-east-1";
  if (base) ref.baseURL = base.replace(/\/+$/, "");
  const bearer = env["AWS_BEARER_TOKEN_BEDROCK"]?.trim();
  if (bearer) ref.apiKey = bearer;
  const accessKeyId = env["AWS_ACCESS_KEY_ID"]?.trim();
  const secretAccessKey = env["AWS_SECRET_ACCESS_KEY"]?.trim();
  if (!bearer && accessKeyId && secretAccessKey) {
    ref.aws = { accessKeyId, secretAccessKey };
    const token = env["AWS_SESSION_TOKEN"]?.trim();
    if (token) ref.aws.sessionToken = token;
  } else if (!bearer && env["AWS_PROFILE"]?.trim()) {
    // a profile from .env or config.json too: the SDK's own chain reads only the process env
    ref.aws = { accessKeyId: "", secretAccessKey: "", profile: env["AWS_PROFILE"].trim() };
  }
  return ref;
}
