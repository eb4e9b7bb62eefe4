/**
 * Secrets in a command's environment: each name gets a value holding its own marker `RTE<i>Z`
 * (shaped like the real thing where it has a shape). `innocent` names are not secret-looking at all
 * but hold a token: under the default core policy they must not reach a command either; under
 * `--env-policy all` only the secret-looking ones are judged.
 */
export interface EnvCase {
  name: string;
  value: (m: string) => string;
  innocent?: boolean;
}

const jwt = (m: string) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${m}sigsigsig`;
const pem = (m: string) =>
  `-----BEGIN RSA PRIVATE KEY-----\\n${m}AAAAB3NzaC1yc2E\\n-----END RSA PRIVATE KEY-----`;

export const ENV_CASES: EnvCase[] = [
  { name: "GPG_PASSPHRASE", value: (m) => `correct-horse-${m}` },
  { name: "SSH_PASSPHRASE", value: (m) => `battery-staple-${m}` },
  { name: "CI_JOB_JWT", value: jwt },
  { name: "CI_JOB_JWT_V2", value: jwt },
  { name: "CI_JOB_TOKEN", value: (m) => `glcbt-${m}abcdef` },
  { name: "CI_REGISTRY_PASSWORD", value: (m) => `regpass${m}` },
  { name: "CI_DEPLOY_PASSWORD", value: (m) => `deploypass${m}` },
  { name: "SENTRY_DSN", value: (m) => `https://${m}abc123@o123.ingest.sentry.io/456` },
  { name: "REDIS_URL", value: (m) => `redis://:${m}pw@cache.internal:6379/0` },
  { name: "DATABASE_URL", value: (m) => `postgres://app:${m}/slash@db.internal/app` },
  { name: "MONGO_URI", value: (m) => `mongodb+srv://app:${m}pw@cluster0.mongodb.net/db` },
  { name: "AMQP_URL", value: (m) => `amqp://guest:${m}pw@mq.internal:5672/` },
  { name: "SLACK_WEBHOOK_URL", value: (m) => `https://hooks.slack.com/services/T000/B000/${m}xyz` },
  { name: "DISCORD_HOOK", value: (m) => `https://discord.com/api/webhooks/123/${m}abc` },
  { name: "FASTLANE_SESSION", value: (m) => `---\\n- !ruby/object:HTTP::Cookie\\n  value: ${m}` },
  { name: "GL_PAT", value: (m) => `glpat-${m}xxxxxxxxxxxx` },
  { name: "STRIPE_LIVE", value: (m) => `sk_live_${m}51Habcdefghijkl` },
  { name: "HF_HUB", value: (m) => `hf_${m}abcdefghijklmnopqrstu` },
  { name: "OP_SERVICE_ACCOUNT_TOKEN", value: (m) => `ops_${m}eyJzaWduSW5BZGRyZXNz` },
  { name: "NPM_TOKEN", value: (m) => `npm_${m}abcdefghijklmnopqrstuvwxyz` },
  { name: "npm_config__authToken", value: (m) => `npm_${m}abcdefghijklmnopqrst` },
  { name: "npm_config_//registry.npmjs.org/:_authToken", value: (m) => `${m}-npm-auth` },
  { name: "NODE_AUTH_TOKEN", value: (m) => `${m}-node-auth-token` },
  { name: "GITHUB_TOKEN", value: (m) => `ghp_${m}abcdefghijklmnopqrstuvwxyz` },
  { name: "GH_TOKEN", value: (m) => `gho_${m}abcdefghijklmnopqrstuvwxyz` },
  { name: "GITHUB_PAT", value: (m) => `github_pat_${m}_abcdefghijkl` },
  { name: "ACTIONS_RUNTIME_TOKEN", value: jwt },
  { name: "ACTIONS_ID_TOKEN_REQUEST_TOKEN", value: (m) => `${m}idtokenrequest` },
  { name: "RUNNER_TOKEN", value: (m) => `AABBCC${m}runnerregistration` },
  { name: "SYSTEM_ACCESSTOKEN", value: (m) => `${m}azuredevopspat` },
  { name: "BUILDKITE_AGENT_ACCESS_TOKEN", value: (m) => `bkua_${m}abcdef` },
  { name: "BITBUCKET_STEP_OIDC_TOKEN", value: jwt },
  { name: "CIRCLE_TOKEN", value: (m) => `CCIPAT_${m}abc` },
  { name: "GITHUB_APP_PRIVATE_KEY", value: pem },
  { name: "VAULT_TOKEN", value: (m) => `hvs.${m}CAESIabcdef` },
  { name: "CONSUL_HTTP_TOKEN", value: (m) => `${m}-consul-acl` },
  { name: "AWS_SECRET_ACCESS_KEY", value: (m) => `wJalrXUtnFEMI/${m}/bPxRfiCYEXAMPLEKEY` },
  { name: "AWS_SESSION_TOKEN", value: (m) => `IQoJb3JpZ2luX2Vj${m}EXAMPLE` },
  { name: "AWS_BEARER_TOKEN_BEDROCK", value: (m) => `ABSK${m}bedrockbearer` },
  { name: "AZURE_CLIENT_SECRET", value: (m) => `${m}~azureclientsecret` },
  { name: "ARM_CLIENT_SECRET", value: (m) => `${m}~armclientsecret` },
  { name: "GOOGLE_CREDENTIALS", value: (m) => `{"type":"service_account","private_key":"${m}"}` },
  { name: "OPENAI_API_KEY_BACKUP", value: (m) => `sk-proj-${m}abcdefghijklmnop` },
  { name: "ANTHROPIC_API_KEY_CI", value: (m) => `sk-ant-api03-${m}abcdef` },
  { name: "PGPASSWORD", value: (m) => `pg${m}pw` },
  { name: "MYSQL_PWD", value: (m) => `my${m}pw` },
  { name: "SMTP_PASS", value: (m) => `smtp${m}pw` },
  { name: "SENDGRID_KEY", value: (m) => `SG.${m}abc.defghijklmnop` },
  { name: "TWILIO_AUTH_TOKEN", value: (m) => `${m}0123456789abcdef` },
  { name: "DD_API_KEY", value: (m) => `${m}0123456789abcdef0123` },
  { name: "NEW_RELIC_LICENSE_KEY", value: (m) => `${m}NRAL0123456789` },
  { name: "PULUMI_ACCESS_TOKEN", value: (m) => `pul-${m}0123456789abcdef` },
  { name: "TF_VAR_db_password", value: (m) => `tf${m}pw` },
  { name: "TF_TOKEN_app_terraform_io", value: (m) => `${m}.atlasv1.abcdef` },
  { name: "DOCKER_AUTH_CONFIG", value: (m) => `{"auths":{"r.io":{"auth":"${m}"}}}` },
  { name: "TWINE_PASSWORD", value: (m) => `pypi-${m}AgEIcHlwaS5vcmc` },
  { name: "CARGO_REGISTRY_TOKEN", value: (m) => `cio${m}abcdef` },
  { name: "SONAR_TOKEN", value: (m) => `squ_${m}abcdef` },
  { name: "CODECOV_TOKEN", value: (m) => `${m}-codecov-uuid` },
  { name: "CLOUDFLARE_API_TOKEN", value: (m) => `${m}cfapitoken0123` },
  { name: "PIP_INDEX_URL", value: (m) => `https://ci:${m}pw@pypi.corp.example/simple` },
  { name: "GOPROXY", value: (m) => `https://ci:${m}pw@goproxy.corp.example` },
  { name: "HTTPS_PROXY", value: (m) => `http://ci:${m}pw@proxy.corp.example:3128` },
  { name: "LC_TOKEN", value: (m) => `ghp_${m}abcdefghijklmnopqrstuvwxyz` },
  { name: "RUNNER_SECRET_BLOB", value: (m) => `sk_live_${m}abcdefghijklmn` },
  { name: "MY_APP_CONFIG", value: (m) => `token=${m}opaque`, innocent: true },
  { name: "APP_SETTINGS", value: (m) => `{"endpoint":"x","auth":"${m}"}`, innocent: true },
  { name: "DEPLOY_NOTES", value: (m) => `${m}-looks-like-notes`, innocent: true },
  { name: "BUILD_FLAVOR", value: (m) => `${m}-opaque-key-material`, innocent: true },
  { name: "JAVA_OPTS", value: (m) => `-Ddb.password=${m}pw`, innocent: true },
  {
    name: "GRADLE_OPTS",
    value: (m) => `-Dorg.gradle.project.signingPassword=${m}`,
    innocent: true,
  },
];

/** env: `env` output; proc: every /proc/<pid>/environ the command can open (the parent's too). */
export const ENV_METHODS = [
  "env.readonly",
  "proc-environ.readonly",
  "env.auto",
  "env.edit",
] as const;

export const envSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

export function envIds(): string[] {
  const ids: string[] = [];
  for (const c of ENV_CASES) {
    for (const m of ENV_METHODS) ids.push(`env.${envSlug(c.name)}.${m}`);
    if (!c.innocent) ids.push(`env.${envSlug(c.name)}.env-policy-all.readonly`);
  }
  return ids;
}
