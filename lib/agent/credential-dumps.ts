import { base, unwrap } from "./command-safety.ts";

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
