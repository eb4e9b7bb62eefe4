/**
 * What chatcli knows to be secret: variables named like credentials, values shaped like them, and
 * the passwords inside URLs. Used three ways: a child's environment drops such values even under an
 * allowed name (lib/sandbox/env.ts), `--env-policy all` drops such names, and an outbound request
 * (web_fetch, web_search, MCP) whose URL or query carries one of the run's secret values — raw,
 * URL-encoded, base64 or hex — is refused in every mode (lib/policy/outbound.ts).
 */
import type { Env } from "./ctx.ts";

/** Names that hold a credential (`*KEY*`, `*TOKEN*`, … and their usual cousins). */
export const SECRET_NAME =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH(?!OR)|COOKIE|SESSION|JWT|DSN|WEBHOOK|_PASS$|_PWD$|^PGPASS|_PAT$|^AWS_|^AZURE_|^GOOGLE_APPLICATION|^CLOUDSDK_|^VAULT_|^NPM_CONFIG__AUTH/i;

/** Variables that hand a child a live credential through a socket or a ticket, not a value. */
export const AGENT_HANDLES: ReadonlySet<string> = new Set([
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "DBUS_SESSION_BUS_ADDRESS",
  "KRB5CCNAME",
  "DOCKER_HOST",
  "XAUTHORITY",
]);

/**
 * Values that carry a secret whatever the variable's name: a URL with user info (`https://u:p@…`,
 * `redis://:p@…`, a Sentry DSN `https://key@…`, a password with a `/` in it), webhook URLs, and
 * the token shapes of the usual services (OpenAI/Anthropic `sk-`, Stripe `sk_live_`, GitHub,
 * GitLab `glpat-`, Slack, AWS, Google, Hugging Face `hf_`, 1Password `ops_`, npm, JWTs, PEM keys).
 */
export const SECRET_VALUE =
  /[a-z][a-z0-9+.-]*:\/\/[^\s@/?#]*(?::[^\s@]*)?@|:\/\/[^\s@]*:[^\s@]*@|hooks\.slack\.com\/services\/|discord(?:app)?\.com\/api\/webhooks\/|\b(?:sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|glptt-[A-Za-z0-9_-]{16,}|GR1348941[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|xox[abeprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{20,}|ops_[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+)|-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Whether `value` looks like a credential (see SECRET_VALUE). */
export function looksLikeCredential(value: string): boolean {
  return SECRET_VALUE.test(value);
}

/** Whether a variable holds a credential by its name, its value, or as an agent handle. */
export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || AGENT_HANDLES.has(name) || SECRET_VALUE.test(value);
}

export interface KnownSecret {
  /** The variable it came from (shown in a refusal; the value never is). */
  name: string;
  value: string;
}

const MIN_SECRET = 8;

/** Values too generic to count as a secret on their own: flags, numbers, paths, hosts. */
function tooPlain(value: string): boolean {
  return (
    value.length < MIN_SECRET ||
    /^(true|false|yes|no|on|off|none|null)$/i.test(value) ||
    /^[\d.:_-]+$/.test(value) ||
    /^[~./]/.test(value)
  );
}

/**
 * The secret values of an environment: credential-named variables, credential-shaped values and
 * the passwords of URLs with user info. `_MAX_TOKENS` and other limits are not secrets.
 */
export function knownSecrets(env: Env): KnownSecret[] {
  const out = new Map<string, KnownSecret>();
  const add = (name: string, value: string) => {
    const v = value.trim();
    if (!tooPlain(v) && !out.has(v)) out.set(v, { name, value: v });
  };
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim();
    if (!value) continue;
    const limit = /(^|_)MAX_TOKENS$|_TOKENS$|_(FILE|PATH|DIR|SOCK)$/i.test(name);
    if (
      (SECRET_NAME.test(name) &&
        !limit &&
        !/^(AWS|AZURE)_(REGION|DEFAULT_REGION|PROFILE)$/.test(name)) ||
      SECRET_VALUE.test(value)
    )
      add(name, value);
    // the password of a URL with user info (a `/` in it too), or a key used as the user (a DSN)
    for (const m of value.matchAll(/:\/\/([^\s@/:]*)(?::([^\s@]+))?@/g)) {
      const pass = safeDecode(m[2] ?? "");
      if (pass.length >= 6) out.set(pass, { name, value: pass });
      const user = safeDecode(m[1] ?? "");
      if (!m[2] && user.length >= MIN_SECRET) out.set(user, { name, value: user });
    }
  }
  return [...out.values()].sort((a, b) => b.value.length - a.value.length);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The spellings of a secret worth looking for: raw, URL-encoded, base64 (3 alignments), hex. */
export function secretSpellings(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = new Set<string>([value, encodeURIComponent(value)]);
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const b64 = padded.toString("base64");
    // drop the groups that mix the secret with what surrounds it
    const start = shift === 0 ? 0 : 4;
    const end = Math.floor(padded.length / 3) * 4;
    const core = b64.slice(start, end);
    if (core.length >= MIN_SECRET) {
      out.add(core);
      out.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
      out.add(encodeURIComponent(core));
    }
  }
  out.add(bytes.toString("hex"));
  return [...out].filter((s) => s.length >= Math.min(MIN_SECRET, value.length));
}

/** `text` and its percent-decoded forms (up to three rounds, `+` as a space too). */
export function decodedForms(text: string): string[] {
  const forms = [text];
  let current = text;
  for (let i = 0; i < 3; i++) {
    const next = safeDecode(current.replace(/\+/g, "%20"));
    const plain = safeDecode(current);
    for (const f of [next, plain]) if (!forms.includes(f)) forms.push(f);
    if (next === current) break;
    current = next;
  }
  return forms;
}

/**
 * The secret `text` (a URL, a search query, a tool's arguments) carries, if any: one of `secrets`
 * raw, URL-encoded (any number of rounds up to three), base64/base64url at any alignment, or hex in
 * either case.
 */
export function carriedSecret(
  text: string,
  secrets: readonly KnownSecret[],
): KnownSecret | undefined {
  if (!text || secrets.length === 0) return undefined;
  const forms = decodedForms(text);
  const lower = forms.map((f) => f.toLowerCase());
  for (const secret of secrets) {
    // a host name is lower-cased on the way (DNS): the secret's letters in any case count
    const folded = secret.value.toLowerCase();
    if (lower.some((f) => f.includes(folded))) return secret;
    for (const spelling of secretSpellings(secret.value)) {
      const hex = /^[0-9a-f]+$/.test(spelling) && spelling.length > secret.value.length;
      if (hex ? lower.some((f) => f.includes(spelling)) : forms.some((f) => f.includes(spelling)))
        return secret;
    }
  }
  return undefined;
}

/** The shortest piece of a secret that counts when it travels alone (a secret split over requests). */
export const SECRET_PART = 8;
const partCache = new Map<string, string[]>();

/**
 * The pieces of a secret worth refusing on their own: every SECRET_PART-character window of a value
 * at least twice that long that looks random — a letter and a digit, six distinct characters — so a
 * shared prefix (`sk-proj-`), a word or a number in an ordinary URL is not one.
 */
export function secretParts(value: string): string[] {
  const cached = partCache.get(value);
  if (cached) return cached;
  const out = new Set<string>();
  if (value.length >= 2 * SECRET_PART) {
    for (let i = 0; i + SECRET_PART <= value.length; i++) {
      const w = value.slice(i, i + SECRET_PART);
      if (/\d/.test(w) && /[A-Za-z]/.test(w) && new Set(w).size >= 6) out.add(w);
    }
  }
  const parts = [...out];
  partCache.set(value, parts);
  return parts;
}

/**
 * The secret a URL or query carries a piece of (SECRET_PART characters or more, raw or
 * percent-decoded): the first half in one request and the second in the next are both refused.
 * Smaller pieces, or pieces the model re-encoded, still pass (docs/dev-notes/hygiene.md).
 */
export function carriedSecretPart(
  text: string,
  secrets: readonly KnownSecret[],
): KnownSecret | undefined {
  if (!text || secrets.length === 0) return undefined;
  const forms = decodedForms(text);
  for (const secret of secrets)
    for (const part of secretParts(secret.value))
      if (forms.some((f) => f.includes(part))) return secret;
  return undefined;
}
