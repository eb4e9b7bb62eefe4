import type { ReplHost as Repl } from "./repl-host.ts";
import type { ContextSummary, CostSummary } from "./services.ts";
import { type SlashInput, slashHelp } from "./slash.ts";

const SESSION_USAGE = [
  "Usage: /session <command>",
  "  save <name>   save this conversation under a name",
  "  load <name>   restore a saved conversation",
  "  list          list saved conversations",
  "  new           start a fresh conversation",
  "  rm <name>     delete a saved conversation",
].join("\n");

/** Runs one slash command; "exit" asks the loop to leave. */
export async function handleSlash(repl: Repl, input: SlashInput): Promise<"exit" | undefined> {
  const { services } = repl;
  const s = repl.style;
  switch (input.known ? input.name : "") {
    case "help":
      repl.say(slashHelp());
      return;
    case "exit":
      return "exit";
    case "clear":
      repl.screen.write("\u001b[2J\u001b[3J\u001b[H");
      return;
    case "rewind":
      await repl.rewindMenu();
      return;
    case "compact":
      await compact(repl, input.args);
      return;
    case "agent":
    case "coder": {
      if (input.args === "") {
        repl.say(`Usage: /${input.name} TASK`);
        return;
      }
      await repl.agentRun(input.name as "agent" | "coder", input.args);
      return;
    }
    case "memory": {
      const result = await repl.cancellable((signal) => services.memory(input.args, signal));
      if (result.ok) repl.say(result.value.replace(/\n$/, ""));
      else if (result.cancelled) repl.say("Cancelled.");
      else repl.say(`  ${s.red("ERR")} ${result.error.message}`);
      return;
    }
    case "session":
      await session(repl, input.args);
      return;
    case "cost":
      repl.say(formatCost(services.cost(), services.modelLabel()));
      return;
    case "context": {
      const [sub = "", ...rest] = input.args.split(/\s+/).filter(Boolean);
      const arg = rest.join(" ");
      try {
        if (sub === "") repl.say(formatContext(await services.context()));
        else if (sub === "list") repl.say(await services.attachments());
        else if (sub === "attach" && arg) repl.say(await services.attach(arg));
        else if (sub === "detach" && arg) repl.say(await services.detach(arg));
        else repl.say("Usage: /context [attach PATH | detach NAME | list]");
      } catch (error) {
        repl.say(s.red(`Error: ${(error as Error).message}`));
      }
      return;
    }
    case "model": {
      if (input.args === "") {
        repl.say(`Model: ${services.modelLabel()}`);
        return;
      }
      try {
        repl.say(`Model switched to ${await services.setModel(input.args)}`);
      } catch (error) {
        repl.say(s.red(`Error: ${(error as Error).message}`));
      }
      return;
    }
    default:
      repl.say(`Unknown command: /${input.name} (type /help for the list)`);
  }
}

async function compact(repl: Repl, instruction: string): Promise<void> {
  const s = repl.style;
  if (instruction) repl.say(`📦 Compacting with instruction: ${instruction}`);
  const result = await repl.cancellable((signal) =>
    repl.services.compact(instruction || undefined, signal, (line) => repl.say(`  │ ${line}`)),
  );
  if (!result.ok) {
    if (result.cancelled) repl.say(s.yellow("⚠ Compaction cancelled — the history is unchanged."));
    else repl.say(s.red(`Compaction failed: ${result.error.message}`));
    return;
  }
  const outcome = result.value;
  if (outcome.status === "skipped") return repl.say(outcome.message);
  if (outcome.before === outcome.after && !instruction) {
    return repl.say(
      `Nothing old enough to summarise yet: all ${outcome.before} messages are kept as they are.`,
    );
  }
  const counts = `${outcome.before} → ${outcome.after} messages`;
  repl.say(
    instruction
      ? s.green(`✓ Compacted: ${counts} (preserved: ${instruction})`)
      : `📦 Compacted: ${counts}`,
  );
  await repl.updateStatus(); // the status row's context figure, now
}

async function session(repl: Repl, args: string): Promise<void> {
  const { services } = repl;
  const [sub = "", ...rest] = args.split(/\s+/).filter((w) => w !== "");
  const name = rest.join(" ");
  const needName = ["save", "load", "rm", "delete"].includes(sub) && name === "";
  if (sub === "" || needName) return repl.say(SESSION_USAGE);
  try {
    switch (sub) {
      case "save":
        await services.saveSession(name);
        return repl.say(`Session '${name}' saved successfully.`);
      case "load":
        try {
          await services.loadSession(name);
        } catch (error) {
          return repl.say(`Error loading session: ${(error as Error).message}`);
        }
        return repl.say(`Session '${name}' loaded. The previous conversation has been restored.`);
      case "list": {
        const sessions = await services.listSessions();
        if (sessions.length === 0) return repl.say("No saved sessions found.");
        const lines = sessions.map((e) => `- ${e.name}${e.title ? ` — ${e.title}` : ""}`);
        return repl.say(["Saved sessions:", ...lines].join("\n"));
      }
      case "new":
        await services.newSession();
        return repl.say("New conversation session started; history has been cleared.");
      case "rm":
      case "delete": {
        let current: boolean;
        try {
          current = await services.removeSession(name);
        } catch (error) {
          return repl.say(`Error deleting session: ${(error as Error).message}`);
        }
        repl.say(`Session '${name}' successfully deleted from disk.`);
        if (current) repl.say("It was the current session: the conversation has been cleared.");
        return;
      }
      default:
        return repl.say(`Unknown session command: '${sub}'. Use /session to see options.`);
    }
  } catch (error) {
    repl.say(repl.style.red(`Error: ${(error as Error).message}`));
  }
}

/** Thousands separators, as `/cost` and `/context` print numbers. */
function n(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A price in USD with enough digits that a cheap session never shows as $0.0000. */
export function formatUsd(usd: number): string {
  if (usd === 0 || usd >= 0.01) return `$${usd.toFixed(4)}`;
  if (usd < 0.000001) return "<$0.000001";
  return `$${usd.toFixed(6)}`;
}

/** The `/cost` panel. */
export function formatCost(cost: CostSummary, model: string): string {
  const u = cost.usage;
  const hit =
    u.input_tokens > 0 ? Math.round((u.cache_read_input_tokens / u.input_tokens) * 100) : 0;
  const price =
    cost.costUsd === null
      ? "Pricing not available for this model."
      : `${formatUsd(cost.costUsd)}${cost.costIsEstimate ? " (estimate)" : ""}`;
  const parts = cost.byPurpose ?? [];
  const breakdown =
    parts.length > 0
      ? [
          "  By purpose:",
          ...parts.map(
            (p) =>
              `    ${p.purpose.padEnd(11)} ${String(p.requests).padStart(3)} request${p.requests === 1 ? " " : "s"}  ${n(p.usage.input_tokens).padStart(9)} in  ${n(p.usage.output_tokens).padStart(7)} out  ${p.costUsd === null ? "unpriced" : formatUsd(p.costUsd)}`,
          ),
        ]
      : [];
  return [
    "Session cost",
    `  Model:        ${model}`,
    `  Requests:     ${cost.requests}`,
    `  Input:        ${n(u.input_tokens)} tokens`,
    `  Cache read:   ${n(u.cache_read_input_tokens)} tokens (${hit}% of input)`,
    `  Cache write:  ${n(u.cache_creation_input_tokens)} tokens`,
    `  Output:       ${n(u.output_tokens)} tokens${u.reasoning_tokens ? ` (${n(u.reasoning_tokens)} reasoning)` : ""}`,
    `  Cost:         ${price}`,
    ...breakdown,
  ].join("\n");
}

/** The `/context` table: what the next request carries. */
export function formatContext(summary: ContextSummary): string {
  const width = Math.max(8, ...summary.parts.map((p) => p.label.length));
  const total = summary.parts.reduce((sum, p) => sum + p.tokens, 0);
  const rows = summary.parts.map(
    (p) => `  ${p.label.padEnd(width)}  ${n(p.tokens).padStart(9)} tokens  ${n(p.chars)} chars`,
  );
  const share = summary.window
    ? ` (${((total / summary.window) * 100).toFixed(1)}% of ${n(summary.window)})`
    : "";
  return [
    `Next request (${summary.messages} messages in the conversation)`,
    ...rows,
    `  ${"total".padEnd(width)}  ${n(total).padStart(9)} tokens${share}`,
  ].join("\n");
}
