import { createHash } from "node:crypto";
import type { Env } from "../core/ctx.ts";

/** Fingerprint of a turn's tool calls: names + whitespace-normalised args, order-independent. */
export function fingerprint(calls: ReadonlyArray<{ name: string; arguments: unknown }>): string {
  if (calls.length === 0) return "";
  const items = calls
    .map((c) => `${c.name}|${stableJson(c.arguments).split(/\s+/).filter(Boolean).join(" ")}`)
    .sort();
  return createHash("sha256").update(items.join("\n")).digest("hex").slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Threshold N: CHATCLI_AGENT_EARLY_EXIT_TURNS when an integer in [2,10], else 3; 0 when disabled. */
export function earlyExitThreshold(env: Env): number {
  const flag = env["CHATCLI_AGENT_EARLY_EXIT"]?.trim().toLowerCase();
  if (flag && ["0", "false", "off", "no"].includes(flag)) return 0;
  const raw = env["CHATCLI_AGENT_EARLY_EXIT_TURNS"]?.trim();
  const n = raw && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(n) && n >= 2 && n <= 10 ? n : 3;
}

/** Watches consecutive turns; `observe` returns the run length once it reaches the threshold. */
export class StagnationDetector {
  private readonly history: string[] = [];
  constructor(private readonly threshold: number) {}

  /** Records one turn's fingerprint; returns true when the same batch repeated `threshold` times. */
  observe(print: string): boolean {
    if (this.threshold === 0) return false;
    if (print === "") {
      this.history.length = 0;
      return false;
    }
    this.history.push(print);
    const window = Math.max(6, this.threshold);
    while (this.history.length > window) this.history.shift();
    let run = 0;
    for (let i = this.history.length - 1; i >= 0 && this.history[i] === print; i--) run++;
    return run >= this.threshold;
  }
}
