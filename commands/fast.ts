import type { Ctx } from "../lib/core/ctx.ts";
import { quotedLine } from "../lib/output/terminal.ts";
import { fastCompact } from "./fast-compact.ts";

/**
 * A fast dispatch for the hot read-only commands scripts call many times (issue 23): their plainest
 * forms run here without commander and without loading any other command, and print exactly what
 * the commander path prints (tests/unit/commands/fast.test.ts runs every case both ways). Anything
 * else — another flag, `--help`, a typo, global flags — returns undefined and goes through
 * commands/cli.ts as before.
 *
 *   bootstrap show [WORD…]                        words that are not flags
 *   memory facts [CATEGORY] [--json]              in either order
 *   compact [--level 1|3] [--no-llm] [FILE|-]     no model call possible (commands/fast-compact.ts)
 */
export async function fastCli(argv: readonly string[], ctx: Ctx): Promise<number | undefined> {
  const [command, sub, ...rest] = argv;
  if (command === "bootstrap" && sub === "show" && allWords(rest)) {
    return guard(argv, ctx, () => bootstrapShow(ctx, rest));
  }
  if (command === "memory" && sub === "facts" && rest.length <= 2) {
    let json = 0;
    const words: string[] = [];
    for (const arg of rest) {
      if (arg === "--json") json++;
      else if (isWord(arg)) words.push(arg);
    }
    if (json + words.length === rest.length && json <= 1 && words.length <= 1) {
      return guard(argv, ctx, () => memoryFacts(ctx, words[0], json === 1));
    }
  }
  if (command === "compact") {
    return fastCompact(argv.slice(1), ctx, async (error) =>
      (await import("./cli.ts")).reportFailure(argv, ctx, error),
    );
  }
  return undefined;
}

/** A positional argument commander would take as it is (no flag, no `--`, not `help`). */
function isWord(arg: string): boolean {
  return arg !== "" && !arg.startsWith("-") && arg !== "help";
}

// Plain loops on these paths where elsewhere every/some/reduce/forEach would do: the engine
// compiles each of those builtins at its first call, ~70 µs apiece of a start (issue 23).
function allWords(args: readonly string[]): boolean {
  for (const arg of args) if (!isWord(arg)) return false;
  return true;
}

/** Runs a command body; a failure is reported as commands/cli.ts reports it. */
async function guard(argv: readonly string[], ctx: Ctx, body: () => Promise<void>) {
  try {
    await body();
    return 0;
  } catch (error) {
    const { reportFailure } = await import("./cli.ts");
    return reportFailure(argv, ctx, error);
  }
}

/** `bootstrap show WORDS…` in text mode, as commands/bootstrap.ts's show action runs it. */
async function bootstrapShow(ctx: Ctx, words: readonly string[]): Promise<void> {
  const [{ showSystemContext }, { stripControl }] = await Promise.all([
    import("../lib/bootstrap/show.ts"),
    import("../lib/output/terminal.ts"),
  ]);
  const prompt = words.join(" ");
  const { document, secrets } = await showSystemContext(ctx, {
    mode: "ask",
    files: [],
    prompt,
    bare: false,
    model: undefined,
    blocksOnly: true,
    memory: async (q) => {
      const { memoryForPrompt } = await import("../lib/memory/prompt.ts");
      const result = await memoryForPrompt({
        env: q.env,
        cwd: q.cwd,
        workspace: q.workspaceRoot,
        now: ctx.now,
        mode: q.memoryMode,
        query: prompt,
        surface: q.mode === "agent" || q.mode === "coder" ? "agent" : "chat",
        track: false,
        warn: (line) => ctx.stderr.write(`${line}\n`),
      });
      return { stable: result.stable, volatile: result.volatile };
    },
  });
  for (const w of document.warnings)
    ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message, secrets)}\n`);
  const blocks = document.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i] as (typeof blocks)[number];
    const kind = b.cache ? "cached" : "volatile";
    ctx.stderr.write(
      `── ${i + 1}/${blocks.length} ${b.id} (${kind}, ~${b.tokens_estimate} tokens) ──\n`,
    );
    const text = ctx.stdout.isTTY ? stripControl(b.text) : b.text;
    ctx.stdout.write(`${text}${i < blocks.length - 1 ? "\n\n" : "\n"}`);
  }
}

/** `memory facts [CATEGORY] [--json]`, as commands/memory.ts's facts action runs it. */
async function memoryFacts(ctx: Ctx, category: string | undefined, json: boolean): Promise<void> {
  const [{ detectWorkspaceRoot }, { loadSettings }, { loadFacts, openMemory }, factsModule] =
    await Promise.all([
      import("../lib/bootstrap/workspace.ts"),
      import("../lib/core/settings.ts"),
      import("../lib/memory/store.ts"),
      import("../lib/memory/facts.ts"),
    ]);
  const workspace = detectWorkspaceRoot(ctx.cwd);
  const { env, warnings } = await loadSettings(ctx, { workspaceRoot: workspace });
  // as commands/memory.ts: a .env the Go tool rejects is not loaded here either, say so
  for (const w of warnings)
    if (w.code === "dotenv_invalid" || w.code === "link_outside_workspace")
      ctx.stderr.write(`chatcli: warning: ${quotedLine(w.message)}\n`);
  const mem = openMemory({
    env,
    now: ctx.now,
    workspace,
    warn: (line) => ctx.stderr.write(`${line}\n`),
  });
  // lib/memory/ops.ts's listFacts (without loading what its other operations need)
  const nowMs = mem.now().getTime();
  const state = await loadFacts(mem);
  const facts = factsModule.listedFacts(
    factsModule.scoredFacts(state.facts.values(), nowMs),
    category,
  );
  const { jsonDocument, stripControl } = await import("../lib/output/terminal.ts");
  if (json) {
    const { configuredSecrets } = await import("../lib/core/redact.ts");
    // facts are what JSON.parse read from the store, plus numbers: plain data
    ctx.stdout.write(jsonDocument(facts, configuredSecrets(ctx.env), undefined, { plain: true }));
    return;
  }
  const { renderFacts } = await import("../lib/memory/render.ts");
  ctx.stdout.write(stripControl(renderFacts(facts, category)));
}
