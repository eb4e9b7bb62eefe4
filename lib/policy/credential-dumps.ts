import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { base, unwrap } from "./command-safety.ts";
import { realPathLoose } from "./workspace.ts";

/** A git config line that holds a credential (actions/checkout's extraheader, `user:token@` URLs). */
export const GIT_CREDENTIAL_LINE =
  /^\s*extraheader\s*=|authorization\s*:|:\/\/[^/\s:@]+:[^/\s@]+@|^\s*(?:password|token|oauth\w*)\s*=/im;

/** Whether a git config file on disk holds a credential. */
export function gitConfigHasCredentials(path: string): boolean {
  try {
    return GIT_CREDENTIAL_LINE.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Reads of the workspace's git config when it holds a credential: `cat .git/config`, `git config -l`,
 * `git remote -v` / `get-url` (the sandbox masks those lines; without one the policy refuses).
 */
export function gitConfigDump(
  argv: string[],
  cwd: string | undefined,
  workspaceRoot: string,
): string | undefined {
  const config = join(workspaceRoot, ".git", "config");
  if (!gitConfigHasCredentials(config)) return undefined;
  const real = unwrap(argv);
  const name = base(real[0] ?? "");
  const args = real.slice(1);
  if (name === "git") {
    const sub = args.find((a) => !a.startsWith("-"));
    const rest = args.slice(args.indexOf(sub ?? "") + 1);
    const listing = rest.some((a) =>
      /^(-l|--list|--get-regexp|--show-origin|--show-scope|-e|--edit)$/.test(a),
    );
    const key = rest.some(
      (a) => !a.startsWith("-") && /^(http|remote|url|credential|include)/i.test(a),
    );
    if (sub === "config" && (listing || key))
      return "git config would print the credential stored in .git/config";
    if (sub === "remote" && rest.some((a) => /^(-v|--verbose|get-url|show)$/.test(a)))
      return "git remote would print the credential stored in .git/config's URL";
    return undefined;
  }
  const real0 = realPathLoose(config);
  for (const a of args) {
    if (a.startsWith("-") || cwd === undefined) continue;
    const abs = isAbsolute(a) ? a : join(cwd, a);
    if (
      realPathLoose(abs) === real0 ||
      (basename(abs) === "config" && realPathLoose(dirname(abs)) === dirname(real0))
    )
      return `${a} holds a credential (a token in .git/config)`;
  }
  return undefined;
}

/**
 * Commands that print a credential from a protected store by proxy (`gh auth token`,
 * `kubectl config view --raw`, `aws configure get …`, `gcloud auth print-access-token`, …).
 */
export function credentialDump(argv: string[]): string | undefined {
  const real = unwrap(argv);
  const name = base(real[0] ?? "");
  const args = real.slice(1).map((a) => a.toLowerCase());
  const has = (...words: string[]) => words.every((w) => args.includes(w));
  if (
    name === "gh" &&
    (has("auth", "token") ||
      (has("auth", "status") && args.includes("--show-token")) ||
      (args.includes("-t") && has("auth", "status")))
  )
    return "gh auth token prints the GitHub token from ~/.config/gh";
  if (name === "kubectl" && has("config", "view") && args.some((a) => /^--(raw|flatten)/.test(a)))
    return "kubectl config view --raw prints ~/.kube/config's credentials";
  if (
    name === "aws" &&
    (has("configure", "get") || has("configure", "export-credentials") || has("configure", "list"))
  )
    return "aws configure prints credentials from ~/.aws";
  if (name === "gcloud" && args.some((a) => /^print-(access|identity|refresh)-token$/.test(a)))
    return "gcloud prints a token from ~/.config/gcloud";
  if (name === "az" && has("account", "get-access-token")) return "az prints a token from ~/.azure";
  if (/^docker-credential-/.test(name)) return `${name} prints registry credentials`;
  if (name === "git" && args.some((a) => a === "credential" || /^credential-/.test(a)))
    return "git credential prints stored credentials";
  if (name === "security" && args.some((a) => /^find-(generic|internet)-password$/.test(a)))
    return "security prints a keychain password";
  if (name === "secret-tool" && args.includes("lookup"))
    return "secret-tool prints a stored secret";
  return undefined;
}
