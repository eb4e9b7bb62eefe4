import { LISTS, listKey, SCALARS } from "./profile.ts";

/**
 * The keys `chatcli memory profile set` accepts. The Go tool files any other key as a free-form
 * preference, so a typo (`bogus=1`, `skils=go`) would be stored silently; the command rejects it and
 * takes free-form preferences as `pref:KEY=VALUE` instead. `languages` (and `programming_languages`)
 * name the skills list, with the same _add/_remove/_replace affixes.
 */
export const PROFILE_KEYS_HELP = `Keys:
  name, role, expertise_level, preferred_language (the language to answer in), communication_style,
  company, location                                  scalars (aliases: org, city, tz, lang, …)
  certifications, skills, goals, interests, directives
                                                     lists: KEY=a,b adds; KEY_remove, KEY_replace,
                                                     goals_done; languages = skills
  milestone, stance ("position :: reason")           dated entries
  env_<name>, env_remove                             environment (env_os=linux, env_shell=zsh)
  preferences_remove, sensitive_mark, sensitive_unmark
  pref:<name>                                        a free-form preference (pref:github=ana)`;

const OTHER = new Set([
  "milestone",
  "milestones",
  "stance",
  "stances",
  "position",
  "opinion",
  "environment_remove",
  "env_remove",
  "preferences_remove",
  "preference_remove",
  "remove_preference",
  "remove_preferences",
  "sensitive_mark",
  "mark_sensitive",
  "sensitive_unmark",
  "unmark_sensitive",
]);

/** `languages_add` → `skills_add`: programming languages are skills. */
const CLI_LISTS: Record<string, string> = {
  languages: "skills",
  programming_languages: "skills",
};

/** A key Go's profile update reads as a known field (not the free-form fallback). */
export function isKnownProfileKey(key: string): boolean {
  const k = key.trim().toLowerCase();
  return (
    k in SCALARS ||
    listKey(k) !== undefined ||
    OTHER.has(k) ||
    (k.startsWith("env_") && k.length > 4)
  );
}

/** Every name the known keys are typed as (for "did you mean"). */
export function profileKeyNames(): string[] {
  return [...Object.keys(SCALARS), ...Object.keys(LISTS), ...OTHER, ...Object.keys(CLI_LISTS)];
}

/**
 * The key to hand the profile update for a key typed at `profile set`, or why it is refused:
 * known keys as they are, CLI aliases rewritten, `pref:NAME` as the free-form preference NAME.
 */
export function resolveProfileSetKey(typed: string): { key: string } | { error: string } {
  const k = typed.trim();
  const pref = /^(?:pref:|preferences?\.)(.+)$/i.exec(k);
  if (pref) {
    const name = (pref[1] as string).trim();
    if (!name) return { error: `empty preference name in ${JSON.stringify(typed)}` };
    if (isKnownProfileKey(name))
      return {
        error: `${JSON.stringify(name)} is a profile field, not a preference: set ${name}=…`,
      };
    return { key: name };
  }
  const lower = k.toLowerCase();
  for (const [alias, field] of Object.entries(CLI_LISTS)) {
    const m = new RegExp(`^(?:(\\w+)_)?${alias}(?:_(\\w+))?$`).exec(lower);
    if (!m) continue;
    const candidate = m[1] ? `${m[1]}_${field}` : m[2] ? `${field}_${m[2]}` : field;
    if (listKey(candidate)) return { key: candidate };
  }
  if (isKnownProfileKey(k)) return { key: k };
  return { error: `unknown profile key ${JSON.stringify(typed)}` };
}
