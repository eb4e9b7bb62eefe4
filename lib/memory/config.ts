import type { Env } from "../core/ctx.ts";
import { memoryDir } from "../core/paths.ts";

/** Constants and env overrides of the memory store (reference §2.1). */
export interface MemoryConfig {
  dir: string;
  maxSize: number;
  retentionDays: number;
  maxFacts: number;
  retrievalBudget: number;
  enabled: boolean;
  /** Redaction list: the values of configured secrets. */
  secrets: string[];
  threatscan: boolean;
}

export const HALF_LIFE_DAYS = 30;
export const COMPACTION_INTERVAL_MS = 24 * 3600_000;
export const COMPACTION_CHECK_MS = 6 * 3600_000;
export const TOMBSTONE_RETENTION_MS = 30 * 86400_000;
export const ARCHIVE_THRESHOLD = 0.1;
export const PENDING_CAP = 100;
export const DIGEST_RUNES = 600;

export const CATEGORIES = [
  "architecture",
  "pattern",
  "preference",
  "gotcha",
  "project",
  "personal",
  "general",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Positive int from env; invalid or ≤ 0 falls back (Go behaviour). */
function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw || !/^\d+$/.test(raw)) return fallback;
  const n = Number(raw);
  return n > 0 ? n : fallback;
}

/** Reads the memory configuration from env (evaluated per call). */
export function memoryConfig(env: Env, secrets: readonly string[] = []): MemoryConfig {
  const scan = (env["CHATCLI_THREATSCAN"] ?? "").trim().toLowerCase();
  return {
    dir: memoryDir(env),
    maxSize: positiveInt(env, "CHATCLI_MEMORY_MAX_SIZE", 32768),
    retentionDays: positiveInt(env, "CHATCLI_MEMORY_RETENTION_DAYS", 30),
    maxFacts: positiveInt(env, "CHATCLI_MEMORY_MAX_FACTS", 500),
    retrievalBudget: positiveInt(env, "CHATCLI_MEMORY_RETRIEVAL_BUDGET", 4000),
    enabled: env["CHATCLI_MEMORY_ENABLED"] !== "false",
    secrets: [...secrets],
    threatscan: !["false", "0", "off", "no"].includes(scan),
  };
}

export type MemoryMode = "index" | "full" | "off";

/** `CHATCLI_MEMORY_MODE`: full|index|off, case-insensitive; unknown → index. */
export function memoryModeOf(env: Env): MemoryMode {
  const v = (env["CHATCLI_MEMORY_MODE"] ?? "").trim().toLowerCase();
  return v === "full" || v === "off" ? v : "index";
}

/** Confidence of a user-stated fact. */
export const CONFIDENCE_USER = 0.9;
