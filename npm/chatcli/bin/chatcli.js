#!/usr/bin/env node
// The `chatcli` npm launcher: runs the native binary from the optional dependency for this platform
// (@chatcli/<os>-<arch>, installed by npm from its `os`/`cpu` fields: no postinstall, no download).

const { spawn } = require("node:child_process");

const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"];
const target = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "chatcli.exe" : "chatcli";

function binaryPath() {
  const override = process.env.CHATCLI_BINARY_PATH;
  if (override) return override;
  try {
    return require.resolve(`@chatcli/${target}/bin/${exe}`);
  } catch {
    const why = TARGETS.includes(target)
      ? `its package @chatcli/${target} is not installed: npm skips optional dependencies with ` +
        "--omit=optional / --no-optional; reinstall without it (npm i -g chatcli)"
      : `there is no chatcli binary for ${target} (there are: ${TARGETS.join(", ")})`;
    process.stderr.write(`chatcli: cannot run on ${target}: ${why}\n`);
    process.exit(3);
  }
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
child.on("error", (error) => {
  process.stderr.write(`chatcli: cannot start the binary: ${error.message}\n`);
  process.exit(3);
});
// A terminal's Ctrl+C reaches the whole process group, the binary too: forwarding it would be a
// second Ctrl+C (exit at once). SIGTERM/SIGHUP sent to this process alone (CI timeouts) are forwarded.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
