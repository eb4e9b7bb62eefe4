import { describe, expect, test } from "bun:test";
import { localDate } from "../../../lib/memory/gotime.ts";
import { applyProfileUpdate, type Profile } from "../../../lib/memory/profile.ts";
import { profileText } from "../../../lib/memory/profile-format.ts";
import { healProfile, itemStem, splitItems } from "../../../lib/memory/profile-text.ts";

const NOW = new Date("2026-08-02T12:00:00Z");

describe("profile update semantics", () => {
  test("list split is paren-aware; upsert replaces same-stem entries in place", () => {
    expect(splitItems("Go, Hugo (light, fast); - SQL\n• Rust")).toEqual([
      "Go",
      "Hugo (light, fast)",
      "SQL",
      "Rust",
    ]);
    expect(itemStem("Publish a **blog** (Hugo) — EM PROGRESSO (2/10)")).toBe("publish a blog");
    const p: Profile = { goals: ["publish a blog (Hugo) — EM PROGRESSO (2/10)", "learn Rust"] };
    expect(
      applyProfileUpdate(
        p,
        { goals: "Publish a blog (Hugo) — EM PROGRESSO (3/10)" },
        "extraction",
        NOW,
      ),
    ).toEqual(["goals"]);
    expect(p["goals"]).toEqual(["Publish a blog (Hugo) — EM PROGRESSO (3/10)", "learn Rust"]);
  });

  test("_done/_remove, replace_ and clearing; fragments skipped", () => {
    const p: Profile = {
      goals: ["publish a blog", "learn Rust", "run a marathon"],
      skills: ["Go"],
    };
    applyProfileUpdate(p, { goals_done: "rust", skills: "SQL (Postgres" }, "user", NOW);
    expect(p["goals"]).toEqual(["publish a blog", "run a marathon"]);
    expect(p["skills"]).toEqual(["Go"]);
    applyProfileUpdate(p, { replace_goals: "ship v2, ship v2." }, "user", NOW);
    expect(p["goals"]).toEqual(["ship v2."]);
    applyProfileUpdate(p, { goals_replace: "" }, "user", NOW);
    expect(p["goals"]).toEqual([]);
  });

  test("scalars, expertise normalisation, env_, milestones, stances, free-form preferences, meta", () => {
    const p: Profile = {};
    const changed = applyProfileUpdate(
      p,
      {
        Name: "Ana",
        level: "avançado",
        env_shell: "zsh",
        milestone: "Earned the CKA",
        stance: "prefer table-driven tests :: cheap to extend",
        renda_mensal: "10k",
      },
      "extraction",
      NOW,
    );
    expect(changed.sort()).toEqual([
      "environment",
      "expertise_level",
      "milestones",
      "name",
      "preferences",
      "stances",
    ]);
    expect(p).toMatchObject({
      name: "Ana",
      expertise_level: "expert",
      environment: { shell: "zsh" },
      milestones: [{ text: "Earned the CKA" }],
      stances: [{ position: "prefer table-driven tests", reason: "cheap to extend" }],
      preferences: { renda_mensal: "10k" },
    });
    const meta = p["field_meta"] as Record<string, Record<string, unknown>>;
    expect(meta["name"]?.["source"]).toBe("extraction");
    expect(meta["pref:renda_mensal"]?.["sensitive"]).toBe(true);
    // re-affirming a value as the user only bumps confirmed_at
    const later = new Date(NOW.getTime() + 86400_000);
    expect(applyProfileUpdate(p, { name: "Ana" }, "user", later)).toEqual([]);
    expect(meta["name"]?.["source"]).toBe("user");
  });

  test("self-healing: duplicate stems, finished goals, echoes, machine prefs → environment", () => {
    const p: Profile = {
      goals: [
        "learn rust",
        "Learn Rust!",
        "ship v1 — done ✅",
        "remove the goal about memory",
        "blog (draft",
      ],
      preferences: { os: "macOS", editor: "nvim", salary: "x", github: "ana" },
      environment: { editor: "vim" },
    };
    expect(healProfile(p)).toBe(true);
    expect(p["goals"]).toEqual(["Learn Rust!"]);
    expect(p["environment"]).toEqual({ editor: "vim", os: "macOS" });
    expect(p["preferences"]).toEqual({ salary: "x", github: "ana" });
    expect(healProfile(p)).toBe(false);
  });

  test("prompt text: scoped directives, hard vs preference, privacy and stale lines", () => {
    const p: Profile = {
      name: "Ana",
      directives: ["[scope:chatcli] never use CGO", "[scope:other] use tabs", "avoid jargon"],
      preferences: { salary: "x" },
      field_meta: {
        name: {
          source: "user",
          updated_at: "2026-01-01T12:00:00Z",
          confirmed_at: "2026-01-01T12:00:00Z",
        },
      },
    };
    const text = profileText(p, "/home/ana/src/chatcli", NOW.getTime());
    expect(text).toContain("Directives — hard rules (MUST follow): [chatcli] never use CGO");
    expect(text).toContain("Directives — preferences: avoid jargon");
    expect(text).not.toContain("use tabs");
    expect(text).toContain("salary [sensitive]: x");
    expect(text).toContain(
      `Possibly stale (not re-confirmed since): name (${localDate(Date.parse("2026-01-01T12:00:00Z"))})`,
    );
    expect(text).toContain("Privacy: fields tagged [sensitive] are private context");
  });
});
