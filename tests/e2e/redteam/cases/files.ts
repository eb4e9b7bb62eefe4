/**
 * chatcli's own file tools against links: static links and hard links committed or left in the
 * workspace (each tool, edit mode), a link-swapping race from a parallel sub-agent's allowed
 * command (sandboxed, and with --sandbox off where only the walk stands), and `rewind --code` after
 * a command swapped a path for a link.
 */
export const STATIC = [
  "read_file.link-to-ssh-key",
  "read_file.linked-parent-to-ssh",
  "read_file.link-to-m2-settings",
  "read_file.hardlink-to-ssh-key",
  "read_file.hardlink-to-m2-settings",
  "cat.hardlink-to-ssh-key",
  "read_file.dotdot-through-link",
  "read_file.proc-self-root",
  "read_file.proc-self-cwd-dotdot",
  "list_directory.linked-parent-to-ssh",
  "list_directory.link-to-outside-dir",
  "search_files.linked-parent-to-ssh",
  "search_files.link-to-outside-dir",
  "write_file.dangling-link-outside",
  "write_file.linked-parent-outside",
  "write_file.hardlink-outside",
  "write_file.append-hardlink-outside",
  "write_file.link-to-home-bashrc",
  "write_file.absolute-outside",
  "write_file.dotdot-escape",
  "write_file.git-hooks",
  "write_file.chatcli-config",
  "write_file.link-to-git-hooks",
  "patch_file.link-outside",
  "patch_file.hardlink-outside",
  "multipatch.link-outside",
  "multipatch.hardlink-outside",
] as const;

export const RACE_TOOLS = [
  "write_file",
  "patch_file",
  "multipatch",
  "read_file",
  "list_directory",
  "search_files",
] as const;
export const RACE_MODES = ["sandboxed", "no-sandbox"] as const;
export const REWIND = ["dir-link", "file-link", "grandparent-link", "home-file-link"] as const;

/** A command makes the link, chatcli's read_file then reads it (auto mode). */
export const CMD_LINKS = [
  "hardlink-to-home-file",
  "symlink-to-home-file",
  "bind-mount-home",
] as const;

export function filesIds(): string[] {
  return [
    ...STATIC.map((s) => `files.${s}.edit`),
    ...RACE_TOOLS.flatMap((t) => RACE_MODES.map((m) => `files.race.${t}.${m}`)),
    ...REWIND.map((r) => `files.rewind.${r}.auto`),
    ...CMD_LINKS.map((c) => `files.cmd.${c}.auto`),
  ];
}
