/** Pure helpers of the user profile's list semantics (reference §2.10). */

const STATUS_MARKERS = [
  "progresso",
  "progress",
  "andamento",
  "pendente",
  "pending",
  "concluí",
  "concluid",
  "completed",
  "done",
  "finalizad",
  "revisão",
  "revisao",
  "review",
  "respondida",
  "answered",
  "✅",
];

/** Splits on `,` `;` and newlines, but not inside (), [] or {}; items trimmed of bullets. */
export function splitItems(value: string, separators = ",;\n"): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of value) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth = Math.max(0, depth - 1);
    if (depth === 0 && separators.includes(ch)) {
      out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out
    .map((s) =>
      s
        .trim()
        .replace(/^[-•*\t ]+/, "")
        .trim(),
    )
    .filter((s) => s !== "");
}

/** An item with unbalanced parentheses is a fragment of a bad split. */
export function isFragment(item: string): boolean {
  let depth = 0;
  for (const ch of item) {
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    if (depth < 0) return true;
  }
  return depth !== 0;
}

/** The identity of a list entry: status tails, parentheses, accents and punctuation folded away. */
export function itemStem(item: string): string {
  let s = item.toLowerCase().replace(/[*`~]/g, "");
  const sep = /\s(?:—|–|--)\s/g;
  let last = -1;
  for (const m of s.matchAll(sep)) last = m.index ?? -1;
  if (last >= 0) {
    const tail = s.slice(last);
    if (STATUS_MARKERS.some((k) => tail.includes(k))) s = s.slice(0, last);
  }
  s = s.replace(/\([^)]*\)/g, "");
  s = s.normalize("NFD").replace(/\p{M}/gu, "");
  return s
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[ .,;:!?]+$/, "");
}

/** Upserts items by stem (same stem replaces in place). Returns whether anything changed. */
export function upsertItems(list: string[], items: readonly string[]): boolean {
  let changed = false;
  for (const item of items) {
    if (!item || isFragment(item)) continue;
    const st = itemStem(item);
    const at = list.findIndex((e) => itemStem(e) === st);
    if (at >= 0) {
      if (list[at] !== item) {
        list[at] = item;
        changed = true;
      }
    } else {
      list.push(item);
      changed = true;
    }
  }
  return changed;
}

/** Removes entries containing the matcher (case-insensitive) or with the same stem. */
export function removeItems(list: string[], matchers: readonly string[]): string[] {
  return list.filter(
    (e) =>
      !matchers.some((m) => {
        const lm = m.toLowerCase();
        return (lm !== "" && e.toLowerCase().includes(lm)) || itemStem(e) === itemStem(m);
      }),
  );
}

/** A de-duplicated (by stem) list of the items. */
export function dedupeItems(items: readonly string[]): string[] {
  const out: string[] = [];
  upsertItems(out, items);
  return out;
}

const SENSITIVE =
  "salary income renda salario salário fgts patrimonio patrimônio saldo financ invest divida dívida emprest imposto bank banco conta cartao cartão card pix cpf rg passport passaporte address endereco endereço phone telefone whatsapp email saude saúde health doenca doença medic terapia familia família family filho filha esposa marido conjuge cônjuge arma weapon gun religi politic polít".split(
    " ",
  );

/** Whether a field or preference key looks sensitive (over-flagging is intended). */
export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase();
  return SENSITIVE.some((w) => k.includes(w));
}

const HARD = [
  "nunca",
  "never",
  "jamais",
  "proibid",
  "forbidden",
  "must not",
  "must ",
  "não pode",
  "nao pode",
  "sempre",
  "always",
  "obrigat",
];

/** A directive is a hard rule when it says never/always/must (EN+PT). */
export function isHardDirective(text: string): boolean {
  const t = text.toLowerCase();
  return HARD.some((w) => t.includes(w));
}

/** `[scope:name] text` → {scope, text}. */
export function directiveScope(text: string): { scope?: string; text: string } {
  const m = /^\s*\[scope:([^\]]+)\]\s*/i.exec(text);
  return m ? { scope: (m[1] as string).trim(), text: text.slice(m[0].length) } : { text };
}

/** Expertise normalisation: beginner / intermediate / expert, other values kept. */
export function normalizeExpertise(value: string): string {
  const v = value.trim().toLowerCase();
  if (["beginner", "novice", "iniciante"].includes(v)) return "beginner";
  if (["intermediate", "mid", "intermediario", "intermediário"].includes(v)) return "intermediate";
  if (["expert", "advanced", "senior", "avançado", "avancado"].includes(v)) return "expert";
  return value.trim();
}

const DONE_WORDS = [
  "concluído",
  "concluida",
  "concluída",
  "concluido",
  "completed",
  "done",
  "finalizado",
  "finalizada",
];
const ECHO_VERBS =
  /^(remove|remover|remova|delete|apagar|apague|limpar|limpe|update|atualizar|atualize)\b/i;
const ECHO_TOPIC = /goal|objetivo|profile|perfil|certifica|memória|memoria|memory/i;
const ENV_KEYS = ["os", "shell", "terminal", "editor", "ide", "hardware"];
const ENV_PREFIXES = ["mac_", "macos_", "os_", "hw_", "machine_", "env_"];

/**
 * Self-healing on load (reference §2.10): list fields deduped by stem (last variant wins, first
 * position kept) without fragments; finished goals and instruction echoes dropped; machine-ish
 * preferences moved to `environment`; sensitive preference keys flagged. Returns whether it changed.
 */
export function healProfile(p: Record<string, unknown>): boolean {
  const before = JSON.stringify(p);
  for (const field of ["certifications", "skills", "goals", "interests", "directives"]) {
    if (!Array.isArray(p[field])) continue;
    let items = (p[field] as unknown[]).filter(
      (x): x is string => typeof x === "string" && !isFragment(x),
    );
    if (field === "goals") {
      items = items.filter((g) => {
        const words = g.toLowerCase().split(/[^\p{L}\p{N}✅]+/u);
        if (g.includes("✅") || DONE_WORDS.some((w) => words.includes(w))) return false;
        return !(ECHO_VERBS.test(g.trim()) && ECHO_TOPIC.test(g));
      });
    }
    const out: string[] = [];
    for (const item of items) {
      const at = out.findIndex((e) => itemStem(e) === itemStem(item));
      if (at >= 0) out[at] = item;
      else out.push(item);
    }
    p[field] = out;
  }
  const prefs = p["preferences"];
  if (prefs && typeof prefs === "object" && !Array.isArray(prefs)) {
    const env = (
      p["environment"] && typeof p["environment"] === "object" ? p["environment"] : {}
    ) as Record<string, unknown>;
    const meta = (
      p["field_meta"] && typeof p["field_meta"] === "object" ? p["field_meta"] : {}
    ) as Record<string, Record<string, unknown>>;
    for (const [k, v] of Object.entries(prefs as Record<string, unknown>)) {
      const lk = k.toLowerCase();
      const prefix = ENV_PREFIXES.find((x) => lk.startsWith(x));
      if (ENV_KEYS.includes(lk) || prefix) {
        const envKey = prefix ? lk.slice(prefix.length) || lk : lk;
        if (!(envKey in env)) env[envKey] = v;
        delete (prefs as Record<string, unknown>)[k];
        continue;
      }
      if (isSensitiveKey(k) && meta[`pref:${k}`]?.["sensitive"] !== true) {
        meta[`pref:${k}`] = { ...(meta[`pref:${k}`] ?? {}), sensitive: true };
      }
    }
    if (Object.keys(env).length) p["environment"] = env;
    if (Object.keys(meta).length) p["field_meta"] = meta;
  }
  return JSON.stringify(p) !== before;
}

/** `KEY=VALUE` (or `KEY: VALUE`) pairs → fields; returns the first malformed pair as `bad`. */
export function parseProfilePairs(pairs: readonly string[]): {
  fields: Record<string, string>;
  bad?: string;
} {
  const fields: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=") > 0 ? pair.indexOf("=") : pair.indexOf(":");
    if (at <= 0) return { fields, bad: pair };
    fields[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return { fields };
}
