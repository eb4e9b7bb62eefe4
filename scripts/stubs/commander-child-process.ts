// Stand-in for `node:child_process` inside commander: chatcli has no executable subcommands, the only
// feature that needs it, and loading the module costs ~1 ms of start-up.
function unsupported(): never {
  throw new Error("chatcli does not run executable subcommands");
}

export const spawn = unsupported;
export const execFileSync = unsupported;
export default { spawn, execFileSync };
