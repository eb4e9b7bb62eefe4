// Before the agent runs: make sure bubblewrap works on a Linux runner, so every command the agent
// starts is sandboxed (and `--sandbox required` does not stop the run). The same steps as the repo's
// .ci/run: install bubblewrap when missing, and on Ubuntu 24.04 (GitHub's ubuntu-24.04 runners, where
// AppArmor restricts unprivileged user namespaces) load an AppArmor profile for bwrap only.

const { spawnSync } = require("node:child_process");
const fs = require("node:fs");

/** bwrap's own probe: the namespaces chatcli's sandbox uses (lib/sandbox/detect.ts). */
const PROBE = [
  "--unshare-all",
  "--unshare-user",
  "--disable-userns",
  "--ro-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--dev",
  "/dev",
  "--",
  "/bin/sh",
  "-c",
  ":",
];
const RESTRICT = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns";
const UBUNTU_PROFILE = "/usr/share/apparmor/extra-profiles/bwrap-userns-restrict";

/** The host, as ensureSandbox sees it (tests pass fakes). */
function hostDeps() {
  return {
    platform: process.platform,
    uid: typeof process.getuid === "function" ? process.getuid() : 0,
    run: (cmd, args, input) =>
      spawnSync(cmd, args, { stdio: [input ? "pipe" : "ignore", "ignore", "inherit"], input })
        .status,
    exists: (path) => fs.existsSync(path),
  };
}

/**
 * Installs and enables bubblewrap where it can; returns "ready", "skipped" (not Linux, or asked not
 * to) or "unavailable" (a `::warning` says why; `--sandbox required` then fails the step, exit 3).
 */
function ensureSandbox(log, deps = hostDeps()) {
  if (deps.platform !== "linux") return "skipped";
  const { run, exists } = deps;
  const asRoot = (cmd, args, input) =>
    deps.uid === 0 ? run(cmd, args, input) : run("sudo", ["-n", cmd, ...args], input);
  const which = (name) => run("sh", ["-c", `command -v ${name}`]) === 0;
  const works = () => run("bwrap", PROBE) === 0;
  if (!which("bwrap")) {
    log("::group::Install bubblewrap (the OS sandbox for the agent's commands)");
    const ok =
      asRoot("apt-get", ["update", "-qq"]) === 0 &&
      asRoot("apt-get", ["install", "-y", "-qq", "bubblewrap"]) === 0;
    log("::endgroup::");
    if (!ok) log("::warning title=chatcli sandbox::could not install bubblewrap with apt-get");
  }
  if (which("bwrap") && !works() && exists(RESTRICT) && which("apparmor_parser")) {
    // Ubuntu 24.04: a profile for bwrap alone, not the whole machine's user namespaces
    log("::group::Allow bubblewrap's user namespaces (AppArmor profile for bwrap)");
    let profile = "/etc/apparmor.d/bwrap";
    if (exists(UBUNTU_PROFILE)) {
      profile = "/etc/apparmor.d/bwrap-userns-restrict";
      asRoot("cp", [UBUNTU_PROFILE, profile]);
    } else {
      const body = [
        "abi <abi/4.0>,",
        "include <tunables/global>",
        "profile bwrap /usr/bin/bwrap flags=(unconfined) {",
        "  userns,",
        "  include if exists <local/bwrap>",
        "}",
        "",
      ].join("\n");
      asRoot("tee", [profile], body);
    }
    asRoot("apparmor_parser", ["-r", profile]);
    log("::endgroup::");
  }
  if (which("bwrap") && works()) {
    log("chatcli: bubblewrap is ready: every command the agent runs is sandboxed");
    return "ready";
  }
  log(
    "::warning title=chatcli sandbox::bubblewrap cannot create namespaces on this runner (see docs/security.md); with --sandbox required the run stops (exit 3)",
  );
  return "unavailable";
}

module.exports = { ensureSandbox, PROBE };
