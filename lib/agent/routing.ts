import type { Env } from "../core/ctx.ts";

export type RouteMode = "off" | "hint" | "auto";

/** CHATCLI_AGENT_SMART_ROUTE: 0|false|off|no → off; auto|redirect|2 → auto; anything else → hint. */
export function routeMode(env: Env): RouteMode {
  const v = env["CHATCLI_AGENT_SMART_ROUTE"]?.trim().toLowerCase() ?? "";
  if (["0", "false", "off", "no"].includes(v)) return "off";
  if (["auto", "redirect", "2"].includes(v)) return "auto";
  return "hint";
}

const CONTEXT =
  /@(file|git|command|history|env)\b|\.\/|\.\.\/|~\/|\.(go|py|js|ts|tsx|jsx|rs|java|kt|swift|c|cpp|h|hpp|rb|php|md|json|yaml|yml|toml|sh|bash)\b/i;
/** Nouns that point at the workspace ("what does this project do?" needs the tools). */
const WORKSPACE =
  /\b(repo|repos|repository|reposit[óo]rio|project|projeto|codebase|code ?base|c[óo]digo|source|sources|files?|arquivos?|folders?|pastas?|director(y|ies)|diret[óo]rios?|branch(es)?|commits?|readme|makefile|dockerfile|package\.json|tests?|testes?|logs?|stack ?trace)\b/i;
const VERBS =
  /\b(create|crie|criar|build|compile|compilar|run|execut[eao]r?|deploy|install|instal[ae]r?|configure|configur[ae]r?|rename|renomear|refactor|refator[ae]r?|fix|corrig[ei]r?|debug|depur[ae]r?|test|test[ae]r?|write|escrev[ea]r?|read file|open file|edit|edit[ae]r?|patch|delete|delet[ae]r?|remove|remov[ea]r?|push|commit)\b|\b(git|make|go build|go test|npm|yarn|docker|kubectl) /i;
const LEADS = [
  "what",
  "why",
  "how does",
  "how do",
  "when",
  "where",
  "who",
  "is there",
  "are there",
  "can you explain",
  "explain",
  "tell me about",
  "summarize",
  "summary of",
  "difference between",
  "o que",
  "por que",
  "porque",
  "pq",
  "como funciona",
  "como é",
  "quando",
  "onde",
  "quem",
  "existe",
  "existem",
  "pode me explicar",
  "explique",
  "fale sobre",
  "resuma",
  "resumo de",
  "diferença entre",
  "qual",
  "quais",
  "quanto",
  "quantos",
];

/** The lexical classifier: is this task a conversational question that needs no tools? */
export function isTrivialQuery(task: string, mode: RouteMode): boolean {
  const q = task.trim();
  if (!q || mode === "off") return false;
  if (Buffer.byteLength(q) > 160) return false;
  if (CONTEXT.test(q) || VERBS.test(q) || WORKSPACE.test(q)) return false;
  const lower = q.toLowerCase();
  if (["<tool_call", "<tool ", "<agent_call", "```"].some((s) => lower.includes(s))) return false;
  if (LEADS.some((lead) => lower.startsWith(`${lead} `) || lower.startsWith(`${lead}?`)))
    return true;
  return q.endsWith("?") && q.split(/\s+/).length <= 10;
}

/** The stderr tip printed when a task looks like a plain question. */
export const ROUTE_TIP =
  "ℹ Tip: this query looks conversational — it needs no tools. Use `chatcli ask` for questions; CHATCLI_AGENT_SMART_ROUTE=auto answers them directly.";
