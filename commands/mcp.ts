import { Command, Option } from "@commander-js/extra-typings";
import { detectWorkspaceRoot } from "../lib/bootstrap/workspace.ts";
import type { Ctx } from "../lib/core/ctx.ts";
import { UsageError } from "../lib/core/errors.ts";
import { configuredSecrets } from "../lib/core/redact.ts";
import { loadSettings } from "../lib/core/settings.ts";
import type { InspectOptions } from "../lib/extensions/inspect.ts";
import { jsonDocument, quotedLine, stripControl } from "../lib/output/terminal.ts";
import { acceptOutputFormat, collect, type RunState } from "./_shared.ts";

type Common = { trustWorkspace?: boolean; mcpConfig?: string[] };

/** `chatcli mcp list|add|remove|tools|serve`. */
export function mcpCommand(ctx: Ctx, state: RunState) {
  const inspect = async (o: Common): Promise<InspectOptions & { secrets: string[] }> => {
    const workspaceRoot = detectWorkspaceRoot(ctx.cwd);
    const settings = await loadSettings(ctx, { workspaceRoot, trustWorkspace: o.trustWorkspace });
    return {
      env: settings.env,
      workspaceRoot,
      trusted: settings.trust.trusted,
      mcpConfig: o.mcpConfig,
      secrets: configuredSecrets(settings.redactEnv),
    };
  };
  const warn = (list: ReadonlyArray<{ message: string }>) => {
    for (const w of list) ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message)}\n`);
  };
  const root = new Command("mcp").description(
    "MCP servers (~/.chatcli/mcp_servers.json, .mcp.json) and `mcp serve`",
  );

  const list = new Command("list")
    .option("--trust-workspace", "count the workspace's .mcp.json and .chatcli/mcp_servers.json")
    .option(
      "--mcp-config <file>",
      "also read this file (.mcp.json format; repeatable)",
      collect,
      [] as string[],
    )
    .description(
      "configured servers: scope, source, trust, status and tool count (connects to check)",
    )
    .option("--json", "print one JSON document")
    .option("--no-connect", "do not start the servers (status not_checked)")
    .action(async (flags) => {
      const o = await inspect(flags as Common);
      const { listServers } = await import("../lib/extensions/inspect.ts");
      const { rows, warnings } = await listServers(ctx, o, flags.connect !== false);
      warn(warnings);
      if (flags.json) ctx.stdout.write(jsonDocument(rows, o.secrets));
      else if (!rows.length)
        ctx.stderr.write("No MCP servers configured (chatcli mcp add NAME -- COMMAND).\n");
      else
        for (const r of rows) {
          const status =
            r.status === "connected"
              ? `connected, ${r.tools} tool${r.tools === 1 ? "" : "s"}`
              : r.status === "failed"
                ? `failed: ${r.error}`
                : r.status === "untrusted"
                  ? "not started: the workspace is not trusted (--trust-workspace)"
                  : r.status.replace("_", " ");
          ctx.stdout.write(
            stripControl(`${r.name}  ${r.transport}  ${r.scope}  ${status}  (${r.source})\n`),
          );
        }
      state.exitCode = 0;
    });
  root.addCommand(list, { isDefault: true });

  root.addCommand(
    new Command("tools")
      .option("--trust-workspace", "count the workspace's .mcp.json and .chatcli/mcp_servers.json")
      .option(
        "--mcp-config <file>",
        "also read this file (.mcp.json format; repeatable)",
        collect,
        [] as string[],
      )
      .description("the tools of one server, as the model sees them (mcp__SERVER__TOOL)")
      .argument("<server>")
      .option("--json", "print one JSON document")
      .action(async (name, flags) => {
        const o = await inspect(flags as Common);
        const { serverTools } = await import("../lib/extensions/inspect.ts");
        const r = await serverTools(ctx, o, name).catch((error: Error) => {
          throw new UsageError(`MCP server ${name} did not start: ${error.message}`, {
            reason: "bad_input",
          });
        });
        if (!r.server)
          throw new UsageError(
            r.untrusted
              ? `MCP server ${name} comes from the workspace, which is not trusted: pass --trust-workspace`
              : `no MCP server named ${JSON.stringify(name)}`,
            {
              reason: "bad_input",
              hint: r.names.length ? `servers: ${r.names.join(", ")}` : "chatcli mcp list",
            },
          );
        const tools = r.tools ?? [];
        if (flags.json) ctx.stdout.write(jsonDocument(tools, o.secrets));
        else
          for (const t of tools) {
            const args = Object.keys((t.input_schema["properties"] ?? {}) as object);
            const desc = t.description.replace(/\s+/g, " ").trim();
            ctx.stdout.write(
              stripControl(`${t.name}(${args.join(", ")})${desc ? `  ${desc}` : ""}\n`),
            );
          }
      }),
  );

  root.addCommand(
    new Command("add")
      .description("add a server to ~/.chatcli/mcp_servers.json (the Go ChatCLI's file)")
      .argument("<name>")
      .argument("<command-or-url>", "the program to start (stdio), or the server's URL (http, sse)")
      .argument("[args...]", "the program's arguments (put -- before them)")
      .addOption(
        new Option("--transport <kind>", "stdio, http or sse").choices(["stdio", "http", "sse"]),
      )
      .option(
        "-e, --env <KEY=VALUE>",
        `a variable the server gets (repeatable; \${VAR} expands)`,
        collect,
        [] as string[],
      )
      .option(
        "-H, --header <'Name: value'>",
        `an HTTP header (repeatable; \${VAR} expands)`,
        collect,
        [] as string[],
      )
      .option("--disabled", "add it switched off")
      .option("--json", "print one JSON document")
      .action(async (name, target, args, flags) => {
        if (!/^[A-Za-z0-9_.-]+$/.test(name))
          throw new UsageError(`server name ${JSON.stringify(name)}: use letters, digits, _ . -`);
        const transport = (flags.transport ?? (/^https?:\/\//i.test(target) ? "http" : "stdio")) as
          | "stdio"
          | "http"
          | "sse";
        const env: Record<string, string> = {};
        for (const pair of flags.env) {
          const i = pair.indexOf("=");
          if (i < 1) throw new UsageError(`--env ${pair}: expected KEY=VALUE`);
          env[pair.slice(0, i)] = pair.slice(i + 1);
        }
        const headers: Record<string, string> = {};
        for (const h of flags.header) {
          const i = h.indexOf(":");
          if (i < 1) throw new UsageError(`--header ${h}: expected 'Name: value'`);
          headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
        }
        if (transport !== "stdio" && !/^https?:\/\//i.test(target))
          throw new UsageError(
            `--transport ${transport} needs an http(s) URL, not ${JSON.stringify(target)}`,
          );
        const { addServer } = await import("../lib/extensions/mcp/store.ts");
        const path = await addServer(ctx.env, {
          name,
          transport,
          ...(transport === "stdio" ? { command: target, args } : { url: target }),
          env,
          headers,
          enabled: !flags.disabled,
        });
        if (flags.json) ctx.stdout.write(jsonDocument({ name, transport, path, added: true }, []));
        else ctx.stderr.write(`Added MCP server ${name} (${transport}) to ${path}.\n`);
      }),
  );

  root.addCommand(
    new Command("remove")
      .description("remove a server from ~/.chatcli/mcp_servers.json")
      .argument("<name>")
      .option("--json", "print one JSON document")
      .action(async (name, flags) => {
        const { removeServer, globalMcpPath } = await import("../lib/extensions/mcp/store.ts");
        if (!(await removeServer(ctx.env, name)))
          throw new UsageError(
            `no MCP server named ${JSON.stringify(name)} in ${globalMcpPath(ctx.env)}`,
            {
              reason: "bad_input",
              hint: "chatcli mcp list",
            },
          );
        if (flags.json) ctx.stdout.write(jsonDocument({ name, removed: true }, []));
        else ctx.stderr.write(`Removed MCP server ${name}.\n`);
      }),
  );

  root.addCommand(
    new Command("serve")
      .description(
        "serve chatcli's memory over MCP (stdio): memory_recall, memory_remember, memory_facts, memory_forget, bootstrap_show",
      )
      .option("--read-only", "offer recall, facts and bootstrap_show only")
      .action(async (flags) => {
        const workspace = detectWorkspaceRoot(ctx.cwd);
        const settings = await loadSettings(ctx, { workspaceRoot: workspace });
        const [{ openMemory }, { serveMemory }] = await Promise.all([
          import("../lib/memory/store.ts"),
          import("../lib/extensions/mcp/serve.ts"),
        ]);
        const note = (line: string) =>
          ctx.stderr.write(stripControl(`chatcli mcp serve: ${line}\n`));
        const memory = openMemory({
          env: settings.env,
          now: ctx.now,
          workspace,
          warn: (l) => note(l),
        });
        await serveMemory(ctx, {
          memory,
          readOnly: flags.readOnly === true,
          secrets: configuredSecrets(settings.redactEnv),
          note,
          bootstrap: async (mode, prompt) => {
            const { showSystemContext } = await import("../lib/bootstrap/show.ts");
            const { document } = await showSystemContext(ctx, {
              mode: mode as "ask" | "agent" | "coder" | "chat",
              files: [],
              prompt,
            });
            const files = document.files.map((f) => `${f.name} (${f.path})`).join(", ");
            const body = document.blocks.map((b) => b.text).join("\n\n");
            return `Files: ${files || "none"}\n\n${body}`;
          },
        });
        state.exitCode = 0;
      }),
  );
  acceptOutputFormat(root);
  return root;
}
