import { redact } from "../core/redact.ts";
import { formatGoTime, ZERO_TIME } from "./gotime.ts";
import {
  dedupeItems,
  healProfile,
  isFragment,
  isSensitiveKey,
  itemStem,
  normalizeExpertise,
  removeItems,
  splitItems,
  upsertItems,
} from "./profile-text.ts";
import { lockStore, type Memory, readStoreJson, writeStoreJson } from "./store.ts";
import { scanThreat } from "./threatscan.ts";

/** `user_profile.json` (reference §2.10); unknown keys are kept as they are. */
export type Profile = Record<string, unknown>;

const FILE = "user_profile.json";
export const SCALARS: Record<string, string> = {
  name: "name",
  role: "role",
  expertise_level: "expertise_level",
  expertise: "expertise_level",
  level: "expertise_level",
  preferred_language: "preferred_language",
  language: "preferred_language",
  lang: "preferred_language",
  communication_style: "communication_style",
  comm_style: "communication_style",
  style: "communication_style",
  company: "company",
  employer: "company",
  organization: "company",
  org: "company",
  location: "location",
  city: "location",
  country: "location",
  timezone: "location",
  tz: "location",
};
export const LISTS: Record<string, string> = {
  certifications: "certifications",
  certification: "certifications",
  cert: "certifications",
  certs: "certifications",
  skills: "skills",
  skill: "skills",
  goals: "goals",
  goal: "goals",
  objective: "goals",
  objectives: "goals",
  interests: "interests",
  interest: "interests",
  hobby: "interests",
  hobbies: "interests",
  directives: "directives",
  directive: "directives",
};
const OPS: Record<string, "replace" | "remove" | "add"> = {
  replace: "replace",
  set: "replace",
  remove: "remove",
  done: "remove",
  delete: "remove",
  del: "remove",
  add: "add",
};
const ORDER = [
  "name",
  "role",
  "expertise_level",
  "preferred_language",
  "communication_style",
  "company",
  "location",
  "certifications",
  "skills",
  "goals",
  "interests",
  "directives",
  "milestones",
  "stances",
  "environment",
  "preferences",
  "field_meta",
  "top_commands",
];

/** Reads the profile (missing or corrupt → empty; corrupt is quarantined), self-healed in memory. */
export async function loadProfile(mem: Memory): Promise<Profile> {
  const raw = await readStoreJson(mem, FILE, "object");
  const p = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Profile) : {};
  healProfile(p);
  return p;
}

/** Go's field order, omitempty for all but last_updated, extras last. */
export function profileToJson(p: Profile): Profile {
  const out: Profile = {};
  const empty = (v: unknown) =>
    v === undefined ||
    v === null ||
    v === "" ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0);
  for (const k of ORDER) if (!empty(p[k])) out[k] = p[k];
  out["last_updated"] = typeof p["last_updated"] === "string" ? p["last_updated"] : ZERO_TIME;
  for (const [k, v] of Object.entries(p)) if (!(k in out) && !ORDER.includes(k)) out[k] = v;
  return out;
}

const list = (p: Profile, k: string): string[] =>
  Array.isArray(p[k]) ? (p[k] as unknown[]).filter((x): x is string => typeof x === "string") : [];
const dict = (p: Profile, k: string): Record<string, unknown> =>
  p[k] && typeof p[k] === "object" && !Array.isArray(p[k]) ? (p[k] as Record<string, unknown>) : {};
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** Sorts update keys so removals and replacements apply before upserts (Go's order is random). */
function orderKeys(keys: string[]): string[] {
  const rank = (k: string) =>
    /(remove|done|delete|del|replace|set)(_|$)|^(remove|done|delete|del|replace|set)_/.test(
      k.toLowerCase(),
    )
      ? 0
      : 1;
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

/** Applies one KEY=VALUE map to a profile object in memory; returns the keys that changed data. */
export function applyProfileUpdate(
  p: Profile,
  fields: Record<string, string>,
  source: "user" | "extraction",
  now: Date,
): string[] {
  const changed: string[] = [];
  const iso = formatGoTime(now);
  const meta = dict(p, "field_meta");
  // Go's touchFieldMeta: a change stamps the field, a user's restatement confirms it, and the key
  // as typed decides sensitivity (`org=…` flags company: "org" holds "rg"; a preference by its name).
  const touch = (field: string, did: boolean, affirm: boolean) => {
    const m = { ...((meta[field] as Record<string, unknown> | undefined) ?? {}) };
    let dirty = false;
    if (did) {
      Object.assign(m, { source, updated_at: iso, confirmed_at: iso });
      dirty = true;
    } else if (affirm && source === "user") {
      Object.assign(m, { source: "user", confirmed_at: iso });
      dirty = true;
    }
    const named = field.startsWith("pref:") ? field.slice(5) : key;
    if (m["sensitive"] !== true && isSensitiveKey(named.toLowerCase())) {
      m["sensitive"] = true;
      dirty = true;
    }
    if (!dirty) return;
    meta[field] = m;
    p["field_meta"] = meta;
  };
  let key = "";
  for (const rawKey of orderKeys(Object.keys(fields))) {
    const value = (fields[rawKey] ?? "").trim();
    key = rawKey.trim().toLowerCase();
    const listed = listKey(key);
    if (listed) {
      const before = JSON.stringify(list(p, listed.field));
      const items = splitItems(value);
      let next = list(p, listed.field);
      if (listed.op === "replace") next = dedupeItems(items.filter((i) => !isFragment(i)));
      else if (listed.op === "remove") next = removeItems(next, items);
      else upsertItems(next, items);
      p[listed.field] = next;
      const did = JSON.stringify(next) !== before;
      if (did) changed.push(listed.field);
      touch(listed.field, did, listed.op === "add");
      continue;
    }
    if (
      key === "sensitive_mark" ||
      key === "mark_sensitive" ||
      key === "sensitive_unmark" ||
      key === "unmark_sensitive"
    ) {
      // Go's setSensitive: a name that is a stored preference means `pref:<name>`; else as given.
      const on = key.includes("unmark") === false;
      const prefs = dict(p, "preferences");
      for (const f of splitItems(value)) {
        let k = f.trim().toLowerCase();
        if (!k) continue;
        if (Object.hasOwn(prefs, k) && !k.startsWith("pref:")) k = `pref:${k}`;
        const m = { ...((meta[k] as Record<string, unknown> | undefined) ?? {}) };
        if ((m["sensitive"] === true) === on) continue;
        if (on) m["sensitive"] = true;
        else delete m["sensitive"];
        meta[k] = m;
        p["field_meta"] = meta;
        changed.push(k);
      }
      continue;
    }
    if (!value) continue;
    const scalar = SCALARS[key];
    if (scalar) {
      const v = scalar === "expertise_level" ? normalizeExpertise(value) : value;
      const did = str(p[scalar]) !== v;
      if (did) {
        p[scalar] = v;
        changed.push(scalar);
      }
      touch(scalar, did, true);
    } else if (key === "milestone" || key === "milestones") {
      const ms = Array.isArray(p["milestones"])
        ? [...(p["milestones"] as Array<Record<string, unknown>>)]
        : [];
      let did = false;
      for (const text of splitItems(value, ";\n")) {
        if (isFragment(text) || ms.some((m) => itemStem(str(m["text"])) === itemStem(text)))
          continue;
        ms.push({ date: iso, text });
        did = true;
      }
      p["milestones"] = ms;
      if (did) changed.push("milestones");
      touch("milestones", did, false);
    } else if (["stance", "stances", "position", "opinion"].includes(key)) {
      const st = Array.isArray(p["stances"])
        ? [...(p["stances"] as Array<Record<string, unknown>>)]
        : [];
      let did = false;
      for (const item of splitItems(value, ";\n")) {
        const [position = "", reason = ""] = item.split("::").map((s) => s.trim());
        if (!position) continue;
        const entry: Record<string, unknown> = { position, updated_at: iso };
        if (reason) entry["reason"] = reason;
        const at = st.findIndex((s) => itemStem(str(s["position"])) === itemStem(position));
        if (at >= 0 && str(st[at]?.["position"]) === position && str(st[at]?.["reason"]) === reason)
          continue;
        if (at >= 0) st[at] = entry;
        else st.push(entry);
        did = true;
      }
      p["stances"] = st;
      if (did) changed.push("stances");
      touch("stances", did, true);
    } else if (key === "environment_remove" || key === "env_remove") {
      const env = dict(p, "environment");
      const before = Object.keys(env).length;
      for (const k of splitItems(value)) delete env[k.toLowerCase()];
      p["environment"] = env;
      const did = Object.keys(env).length !== before;
      if (did) changed.push("environment");
      touch("environment", did, false);
    } else if (
      [
        "preferences_remove",
        "preference_remove",
        "remove_preference",
        "remove_preferences",
      ].includes(key)
    ) {
      const prefs = dict(p, "preferences");
      let did = false;
      for (const k of splitItems(value)) {
        if (Object.hasOwn(prefs, k)) {
          delete prefs[k];
          delete meta[`pref:${k}`];
          did = true;
        }
      }
      p["preferences"] = prefs;
      if (did) changed.push("preferences");
      // Go records the removal on the field's meta (field_meta.preferences)
      touch("preferences", did, false);
    } else if (key.startsWith("env_") && key.length > 4) {
      const env = dict(p, "environment");
      const k = key.slice(4);
      const did = env[k] !== value;
      env[k] = value;
      p["environment"] = env;
      if (did) changed.push("environment");
      touch("environment", did, true);
    } else {
      const prefs = dict(p, "preferences");
      const k = rawKey.trim();
      const did = prefs[k] !== value;
      prefs[k] = value;
      p["preferences"] = prefs;
      if (did) changed.push("preferences");
      touch(`pref:${k}`, did, true);
    }
  }
  if (changed.length > 0) p["last_updated"] = iso;
  return [...new Set(changed)];
}

export function listKey(
  key: string,
): { field: string; op: "replace" | "remove" | "add" } | undefined {
  if (LISTS[key]) return { field: LISTS[key] as string, op: "add" };
  for (const [op, kind] of Object.entries(OPS)) {
    if (key.endsWith(`_${op}`) && LISTS[key.slice(0, -op.length - 1)])
      return { field: LISTS[key.slice(0, -op.length - 1)] as string, op: kind };
    if (key.startsWith(`${op}_`) && LISTS[key.slice(op.length + 1)])
      return { field: LISTS[key.slice(op.length + 1)] as string, op: kind };
  }
  return undefined;
}

/** Updates `user_profile.json` under its lock (redacted); returns the changed fields. */
export async function updateProfile(
  mem: Memory,
  fields: Record<string, string>,
  source: "user" | "extraction" = "user",
): Promise<string[]> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    const threat = mem.cfg.threatscan ? scanThreat(`${k} ${v}`) : undefined;
    if (threat) mem.warn(`memory: profile field '${k}' not stored (${threat})`);
    else clean[k] = redact(v, mem.cfg.secrets);
  }
  return lockStore(mem, FILE, async () => {
    const raw = await readStoreJson(mem, FILE, "object");
    const before = JSON.stringify(raw ?? {});
    const p = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Profile) : {};
    healProfile(p);
    const changed = applyProfileUpdate(p, clean, source, mem.now());
    if (JSON.stringify(p) !== before) await writeStoreJson(mem, FILE, profileToJson(p));
    return changed;
  });
}
