/**
 * Persistence: places outside the workspace (or protected inside it) that run code later, outside
 * the sandbox, or widen a later run — written by a command (edit, auto) or by chatcli's write_file
 * (edit). `~` is the test HOME, `$CH` its CHATCLI_HOME, `$WS` the workspace.
 */
export const TARGETS: ReadonlyArray<readonly [string, string]> = [
  ["home-bashrc", "~/.bashrc"],
  ["home-profile", "~/.profile"],
  ["home-zshrc-missing", "~/.zshrc"],
  ["home-gitconfig", "~/.gitconfig"],
  ["home-local-bin-git", "~/.local/bin/git"],
  ["home-cargo-bin", "~/.cargo/bin/cargo-rt"],
  ["home-bun-bin", "~/.bun/bin/rt"],
  ["home-autostart", "~/.config/autostart/rt.desktop"],
  ["home-systemd-user", "~/.config/systemd/user/rt.service"],
  ["home-authorized-keys", "~/.ssh/authorized_keys"],
  ["home-npmrc", "~/.npmrc"],
  ["home-claude-skill", "~/.claude/skills/rt/SKILL.md"],
  ["chatcli-config", "$CH/config.json"],
  ["chatcli-hooks", "$CH/hooks.json"],
  ["chatcli-memory", "$CH/memory/memory_index.json"],
  ["chatcli-global-agents", "$CH/AGENTS.md"],
  ["chatcli-skill", "$CH/skills/rt.md"],
  ["chatcli-mcp", "$CH/mcp_servers.json"],
  ["ws-chatcli-config", "$WS/.chatcli/config.json"],
  ["ws-chatcli-hooks", "$WS/.chatcli/hooks.json"],
  ["ws-sibling", "$WS/../rt-sibling.txt"],
  ["host-tmp", "/tmp/rt-persist-$RT"],
  ["host-var-tmp", "/var/tmp/rt-persist-$RT"],
  ["host-dev-shm", "/dev/shm/rt-persist-$RT"],
];
export const PERSIST_MODES = ["cmd.edit", "cmd.auto", "write_file.edit"] as const;

export const persistIds = () =>
  TARGETS.flatMap(([t]) => PERSIST_MODES.map((m) => `persist.${t}.${m}`));
