// The `chatcli-url` input: a release binary downloaded and checked against the release's SHA256SUMS
// (or the `chatcli-sha256` input) before it runs. `{target}` in the URL is the runner's target
// (linux-x64, darwin-arm64 …); a URL ending in `/` is a release directory (chatcli-<target> inside).

const { createHash } = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

/** The binary's URL for this target. */
function binaryUrl(url, target) {
  const exe = target.startsWith("windows") ? ".exe" : "";
  if (url.endsWith("/")) return `${url}chatcli-${target}${exe}`;
  if (!url.includes("{target}")) return url;
  const named = url.replace(/\{target\}/g, target);
  return exe && !named.endsWith(exe) ? `${named}${exe}` : named;
}

async function get(url) {
  const response = await fetch(url, { redirect: "follow" });
  if (!response.ok) {
    const error = new Error(`GET ${url}: HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return Buffer.from(await response.arrayBuffer());
}

/** The expected hash: `sha256` if given, else the line of SHA256SUMS beside the binary. */
async function expectedHash(url, sha256) {
  if (sha256) return sha256.trim().toLowerCase();
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
  const sums = new URL("SHA256SUMS", url).toString();
  let text;
  try {
    text = (await get(sums)).toString("utf8");
  } catch (error) {
    throw new Error(
      `cannot verify ${url}: ${error.message} (a release has SHA256SUMS beside its binaries; else give the chatcli-sha256 input)`,
    );
  }
  const line = text.split("\n").find((l) => l.trim().split(/\s+\*?/)[1] === name);
  if (!line) throw new Error(`${sums} has no line for ${name}`);
  return line.trim().split(/\s+/)[0].toLowerCase();
}

/** Downloads, verifies and installs the binary under `dir`; returns its path. */
async function fetchBinary({ url, sha256, target, dir, log }) {
  const from = binaryUrl(url, target);
  log(`::group::Download ${from}`);
  const want = await expectedHash(from, sha256);
  const body = await get(from);
  const got = createHash("sha256").update(body).digest("hex");
  if (got !== want) throw new Error(`${from}: SHA-256 ${got} does not match ${want}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, target.startsWith("windows") ? "chatcli.exe" : "chatcli");
  fs.writeFileSync(file, body, { mode: 0o755 });
  log(`verified sha256 ${got}`);
  log("::endgroup::");
  return file;
}

module.exports = { binaryUrl, fetchBinary };
