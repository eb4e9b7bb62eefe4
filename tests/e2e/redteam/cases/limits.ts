/** Limits a run must keep whatever the model, a sub-agent or a command does. */
export const LIMITS = [
  "delegate-max-turns-above-parent",
  "delegate-budget-bypass",
  "delegate-timeout-bypass",
  "timeout-command-ignores-term",
  "sigterm-during-stream",
  "background-process-left",
  "save-path-existing-file",
  "save-path-planted-link",
  "save-path-dotdot",
  "save-path-absolute",
  "sandbox-keyctl",
  "sandbox-add-key",
  "sandbox-unshare-user",
  "sandbox-mount-tmpfs",
  "sandbox-ptrace-parent",
  "sandbox-controlling-tty",
  "sandbox-io-uring",
  "provider-error-echoes-key.text",
  "provider-error-echoes-key.401",
  "provider-error-echoes-key.opaque-gateway-key",
  "provider-error-echoes-env-secret",
] as const;

export const limitsIds = () => LIMITS.map((l) => `limits.${l}`);
