#!/usr/bin/env node
// The CI integration's entry point: the GitHub Action (`runs.using: node24`, see action.yml) and the
// `chatcli-ci` command of the npm package, which the GitLab template runs. It installs chatcli when it
// must, runs `chatcli agent|coder|ask --json`, and hands the result envelope to the CI: GitHub outputs,
// job summary and annotations; GitLab artifacts (envelope, summary, Code Quality report, dotenv).
// The step fails with chatcli's own exit code.

const { spawn, execFileSync } = require("node:child_process");
const { randomUUID } = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const { fetchBinary } = require("./fetch-binary.js");
const { annotations, chatcliArgs, codeQuality, summary } = require("./report.js");
const { ensureSandbox } = require("./sandbox.js");

const INPUTS = [
  "task",
  "command",
  "model",
  "permission-mode",
  "allowed-tools",
  "denied-tools",
  "allow-network",
  "max-turns",
  "max-budget-usd",
  "timeout",
  "on-ask",
  "args",
  "working-directory",
  "version",
  "chatcli-path",
  "chatcli-url",
  "chatcli-sha256",
  "packages",
  "sandbox",
  "install-sandbox",
];

/** GitHub passes inputs as INPUT_<NAME> (upper case, hyphens kept); GitLab variables are CHATCLI_CI_<NAME>. */
function readInputs(env, github) {
  const inputs = {};
  for (const name of INPUTS) {
    const key = github
      ? `INPUT_${name.toUpperCase()}`
      : `CHATCLI_CI_${name.toUpperCase().replace(/-/g, "_")}`;
    if (env[key] !== undefined) inputs[name] = env[key];
  }
  return inputs;
}

/** linux-x64, darwin-arm64, windows-x64 … from the runner (RUNNER_OS/RUNNER_ARCH) or this process. */
function target(env) {
  const os =
    { Linux: "linux", macOS: "darwin", Windows: "windows" }[env.RUNNER_OS] ??
    (process.platform === "win32" ? "windows" : process.platform);
  const arch = { X64: "x64", ARM64: "arm64" }[env.RUNNER_ARCH] ?? process.arch;
  return `${os}-${arch}`;
}

function log(line) {
  process.stdout.write(`${line}\n`);
}

/**
 * The chatcli binary to run: chatcli-path, else chatcli-url (a release binary, SHA-256 checked), else
 * the npm package installed now (version / packages), else the one beside us.
 */
async function install(inputs, env, github) {
  if (inputs["chatcli-path"]) return inputs["chatcli-path"];
  const name = target(env);
  if (inputs["chatcli-url"]) {
    return fetchBinary({
      url: inputs["chatcli-url"],
      sha256: inputs["chatcli-sha256"],
      target: name,
      dir: path.join(env.RUNNER_TEMP || require("node:os").tmpdir(), `chatcli-${randomUUID()}`),
      log,
    });
  }
  const exe = name.startsWith("windows") ? "chatcli.exe" : "chatcli";
  if (!github && !inputs.packages) {
    try {
      return require.resolve(`@chatcli/${name}/bin/${exe}`); // chatcli-ci of an installed chatcli package
    } catch {
      return "chatcli";
    }
  }
  let version = inputs.version;
  if (!version) {
    try {
      version = JSON.parse(
        fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"),
      ).version;
    } catch {
      version = "latest";
    }
  }
  const specs = inputs.packages
    ? inputs.packages.split(/\s+/).filter(Boolean)
    : [`chatcli@${version}`];
  const prefix = path.join(
    env.RUNNER_TEMP || require("node:os").tmpdir(),
    `chatcli-${randomUUID()}`,
  );
  log(`::group::Install ${specs.join(" ")} (${name})`);
  // Windows: npm is npm.cmd, which Node runs only through a shell (CVE-2024-27980).
  const windows = process.platform === "win32";
  const npmArgs = ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, ...specs];
  try {
    execFileSync(windows ? "npm.cmd" : "npm", windows ? npmArgs.map((a) => `"${a}"`) : npmArgs, {
      stdio: ["ignore", "inherit", "inherit"],
      env,
      shell: windows,
    });
  } catch {
    log("::endgroup::");
    throw new Error(
      `npm could not install ${specs.join(" ")} (until chatcli is published there, give the chatcli-url input a release binary — e.g. https://github.com/OWNER/chatcli/releases/download/vX/ — or chatcli-path a binary you built)`,
    );
  }
  log("::endgroup::");
  return path.join(prefix, "node_modules", "@chatcli", name, "bin", exe);
}

function appendOutput(file, name, value) {
  const delimiter = `chatcli_${randomUUID()}`;
  fs.appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

/** Runs chatcli; resolves with its exit code and stdout. SIGINT/SIGTERM (a cancelled job) are passed on. */
function run(binary, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const forward = (signal) => () => child.kill(signal);
    const handlers = { SIGINT: forward("SIGINT"), SIGTERM: forward("SIGTERM") };
    for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      for (const [s, handler] of Object.entries(handlers)) process.off(s, handler);
      const signals = { SIGINT: 130, SIGTERM: 143, SIGKILL: 137 };
      resolve({ code: code ?? signals[signal] ?? 1, stdout });
    });
  });
}

/** The result envelope: the last line of stdout that is a JSON object with type "result". */
function envelopeOf(stdout) {
  const lines = stdout.split("\n").filter((l) => l.trim());
  for (const line of lines.reverse()) {
    try {
      const value = JSON.parse(line);
      if (value && value.type === "result") return value;
    } catch {}
  }
  return undefined;
}

async function main(env) {
  const github = env.GITHUB_ACTIONS === "true";
  const inputs = readInputs(env, github);
  let args;
  try {
    args = chatcliArgs(inputs);
  } catch (error) {
    log(`::error title=chatcli::${error.message}`);
    return 2;
  }
  const binary = await install(inputs, env, github);
  // agent/coder: bubblewrap (and on Ubuntu 24.04 its AppArmor profile) before `--sandbox required`
  if ((inputs.command || "agent") !== "ask" && inputs["install-sandbox"] !== "false")
    ensureSandbox(log);
  const cwd =
    inputs["working-directory"] || env.GITHUB_WORKSPACE || env.CI_PROJECT_DIR || process.cwd();
  const { code, stdout } = await run(binary, args, cwd, { ...env, CI: env.CI || "true" });
  const envelope = envelopeOf(stdout);
  const text = summary(envelope, code, inputs.task);
  if (github) {
    for (const line of annotations(envelope, code)) log(line);
    if (env.GITHUB_OUTPUT) {
      const outputs = {
        envelope: envelope ? JSON.stringify(envelope) : "",
        result: typeof envelope?.result === "string" ? envelope.result : "",
        status: envelope?.status ?? "error",
        "exit-code": String(code),
        "session-id": envelope?.session_id ?? "",
        "files-changed": JSON.stringify(envelope?.files_changed ?? []),
        "cost-usd": String(envelope?.total_cost_usd ?? 0),
        denials: String(envelope?.permission_denials?.length ?? 0),
      };
      for (const [name, value] of Object.entries(outputs))
        appendOutput(env.GITHUB_OUTPUT, name, value);
    }
    if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, text);
  } else {
    const dir = env.CI_PROJECT_DIR || cwd;
    fs.writeFileSync(
      path.join(dir, "chatcli-envelope.json"),
      envelope ? `${JSON.stringify(envelope)}\n` : "",
    );
    fs.writeFileSync(path.join(dir, "chatcli-summary.md"), text);
    fs.writeFileSync(
      path.join(dir, "gl-code-quality-report.json"),
      `${JSON.stringify(codeQuality(envelope, code))}\n`,
    );
    const dotenv = {
      CHATCLI_STATUS: envelope?.status ?? "error",
      CHATCLI_EXIT_CODE: String(code),
      CHATCLI_SESSION_ID: envelope?.session_id ?? "",
      CHATCLI_COST_USD: String(envelope?.total_cost_usd ?? 0),
      CHATCLI_FILES_CHANGED: String(envelope?.files_changed?.length ?? 0),
      CHATCLI_DENIALS: String(envelope?.permission_denials?.length ?? 0),
    };
    const body = Object.entries(dotenv).map(([k, v]) => `${k}=${v}`);
    fs.writeFileSync(path.join(dir, "chatcli.env"), `${body.join("\n")}\n`);
    log(
      `\x1b[0Ksection_start:${Math.floor(Date.now() / 1000)}:chatcli_summary\r\x1b[0Kchatcli summary`,
    );
    process.stdout.write(text);
    log(`\x1b[0Ksection_end:${Math.floor(Date.now() / 1000)}:chatcli_summary\r\x1b[0K`);
  }
  return code;
}

if (require.main === module) {
  main(process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      log(`::error title=chatcli::${String(error?.message ?? error).replace(/\n/g, "%0A")}`);
      process.exitCode = 1;
    },
  );
}

module.exports = { main, readInputs, target, envelopeOf };
