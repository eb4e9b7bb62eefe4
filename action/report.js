// Pure parts of the CI integration (GitHub Action and GitLab template): the chatcli command line
// from the inputs, and what a CI shows of the result envelope (summary, annotations, Code Quality).

/** Newline-separated list input (tool patterns may hold commas and spaces). */
function lines(value) {
  return (value ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

const COMMANDS = ["agent", "coder", "ask"];

/** argv for chatcli from the inputs: `{task, command, model, "permission-mode", …}` (strings). */
function chatcliArgs(inputs) {
  const task = (inputs.task ?? "").trim();
  if (!task) throw new Error("the task input is required");
  const command = inputs.command || "agent";
  if (!COMMANDS.includes(command)) {
    throw new Error(
      `command must be one of ${COMMANDS.join(", ")}, not ${JSON.stringify(command)}`,
    );
  }
  const args = [command, "--json"];
  const flag = (name, value) => {
    if (value !== undefined && String(value).trim() !== "") args.push(name, String(value).trim());
  };
  flag("-m", inputs.model);
  if (command !== "ask") {
    flag("--permission-mode", inputs["permission-mode"]);
    for (const tool of lines(inputs["allowed-tools"])) args.push("--allow-tool", tool);
    for (const tool of lines(inputs["denied-tools"])) args.push("--deny-tool", tool);
    // hosts the agent's commands may reach (registry.npmjs.org …), one a line or comma-separated
    const hosts = lines(inputs["allow-network"])
      .flatMap((l) => l.split(","))
      .map((h) => h.trim());
    if (hosts.some(Boolean)) args.push(`--allow-network=${hosts.filter(Boolean).join(",")}`);
    flag("--max-turns", inputs["max-turns"]);
    flag("--max-budget-usd", inputs["max-budget-usd"]);
    flag("--on-ask", inputs["on-ask"]);
    // every command the agent starts runs in the OS sandbox, or the run stops (exit 3): never unconfined
    flag("--sandbox", inputs.sandbox === undefined ? "required" : inputs.sandbox);
  }
  flag("--timeout", inputs.timeout);
  args.push(...lines(inputs.args)); // one flag or value a line
  args.push("--", task);
  return args;
}

/** `%`, CR, LF escaped as the workflow-command syntax wants (and `:` `,` in properties). */
function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(text) {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::warning`/`::error` lines for denials, warnings and the error of an envelope. */
function annotations(envelope, exitCode) {
  const out = [];
  for (const d of envelope?.permission_denials ?? []) {
    const allow = d.suggestion ? ` — allow with ${d.suggestion}` : "";
    out.push(
      `::warning title=${escapeProperty(`chatcli denied ${d.tool}`)}::${escapeData(`${d.tool} ${d.input}: ${d.reason}${allow}`)}`,
    );
  }
  for (const w of envelope?.warnings ?? []) {
    out.push(`::warning title=${escapeProperty(`chatcli ${w.code}`)}::${escapeData(w.message)}`);
  }
  if (envelope?.error) {
    const e = envelope.error;
    out.push(
      `::error title=${escapeProperty(`chatcli ${e.code} (exit ${exitCode})`)}::${escapeData(e.message)}`,
    );
  } else if (!envelope) {
    out.push(
      `::error title=chatcli (exit ${exitCode})::${escapeData("chatcli printed no result envelope; see the log above")}`,
    );
  } else if (exitCode !== 0) {
    out.push(
      `::error title=chatcli (exit ${exitCode})::${escapeData(envelope.terminal_reason ?? "failed")}`,
    );
  }
  return out;
}

/** Text safe in a Markdown table cell or line: no pipes breaking the table, no HTML. */
function cell(text) {
  return String(text ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "\\|")
    .replace(/\r?\n/g, " ");
}

function tokens(usage) {
  if (!usage) return "—";
  const n = (v) => Number(v ?? 0).toLocaleString("en-US");
  const cache = usage.cache_read_input_tokens
    ? `, ${n(usage.cache_read_input_tokens)} from cache`
    : "";
  return `${n(usage.input_tokens)} in / ${n(usage.output_tokens)} out${cache}`;
}

/** The job summary (Markdown): result, files changed, denials, tokens, cost. */
function summary(envelope, exitCode, task) {
  const ok = envelope && exitCode === 0;
  const head = ok ? "✅ success" : `❌ failed (exit ${exitCode})`;
  const md = [
    `### chatcli ${cell(envelope?.command ?? "")}: ${head}`,
    "",
    `> ${cell(task).slice(0, 500)}`,
    "",
  ];
  if (!envelope) {
    md.push("chatcli printed no result envelope; see the step's log.", "");
    return `${md.join("\n")}\n`;
  }
  if (envelope.error)
    md.push(`**Error** \`${cell(envelope.error.code)}\`: ${cell(envelope.error.message)}`, "");
  const cost =
    envelope.total_cost_usd == null
      ? "—"
      : `$${Number(envelope.total_cost_usd).toFixed(4)}${envelope.cost_is_estimate ? " (estimate)" : ""}`;
  md.push(
    "| | |",
    "|---|---|",
    `| model | ${cell(envelope.model)} |`,
    `| result | ${cell(envelope.terminal_reason)} |`,
    `| turns | ${cell(envelope.num_turns)} |`,
    `| tokens | ${tokens(envelope.usage)} |`,
    `| cost | ${cost} |`,
    `| duration | ${((envelope.duration_ms ?? 0) / 1000).toFixed(1)} s |`,
    "",
  );
  const files = envelope.files_changed ?? [];
  md.push(`**Files changed (${files.length})**`, "");
  for (const f of files) md.push(`- \`${cell(f.path)}\` ${cell(f.change)}`);
  if (files.length === 0) md.push("none");
  md.push("");
  const denials = envelope.permission_denials ?? [];
  md.push(`**Permission denials (${denials.length})**`, "");
  if (denials.length) {
    md.push("| tool | input | reason | allow with |", "|---|---|---|---|");
    for (const d of denials)
      md.push(
        `| ${cell(d.tool)} | \`${cell(d.input)}\` | ${cell(d.reason)} | ${d.suggestion ? `\`${cell(d.suggestion)}\`` : ""} |`,
      );
  } else md.push("none");
  md.push("");
  if (typeof envelope.result === "string" && envelope.result) {
    md.push(
      "<details open><summary>Result</summary>",
      "",
      "```text",
      envelope.result.replace(/```/g, "ʼʼʼ"),
      "```",
      "",
      "</details>",
      "",
    );
  }
  return `${md.join("\n")}\n`;
}

/** GitLab Code Quality entries (shown in merge requests) for denials and the error. */
function codeQuality(envelope, exitCode) {
  const issues = [];
  const add = (check, severity, description, n) =>
    issues.push({
      description,
      check_name: check,
      fingerprint: require("node:crypto")
        .createHash("sha256")
        .update(`${check}\n${description}\n${n}`)
        .digest("hex"),
      severity,
      location: { path: ".", lines: { begin: 1 } },
    });
  for (const [i, d] of (envelope?.permission_denials ?? []).entries())
    add("chatcli-denial", "minor", `chatcli denied ${d.tool} ${d.input}: ${d.reason}`, i);
  if (envelope?.error)
    add("chatcli-error", "major", `chatcli ${envelope.error.code}: ${envelope.error.message}`, 0);
  else if (exitCode !== 0) add("chatcli-error", "major", `chatcli exited ${exitCode}`, 0);
  return issues;
}

module.exports = { chatcliArgs, annotations, summary, codeQuality, escapeData, lines };
