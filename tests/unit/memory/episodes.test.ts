import { describe, expect, test } from "bun:test";
import { type Episode, episodesSection } from "../../../lib/memory/episodes.ts";

const day = 86_400_000;
const now = Date.parse("2026-11-29T12:00:00Z");
const ep = (daysAgo: number, summary: string, extra: Partial<Episode> = {}): Episode => ({
  date: new Date(now - daysAgo * day).toISOString().slice(0, 10),
  at: now - daysAgo * day,
  summary,
  outcome: "",
  refs: [],
  project: "",
  ...extra,
});

describe("Go episodes in retrieval", () => {
  const list = [
    ep(40, "migrated the build to Bazel", { outcome: "CI faster", refs: ["BUILD.bazel"] }),
    ...Array.from({ length: 6 }, (_, i) => ep(13 - i, `recent work ${i}`)),
    ep(0, "fixed the proxy", { project: "chatcli" }),
  ];

  test("no keywords: the newest 5 of the last 14 days, newest first", () => {
    expect(episodesSection(list, [], now)).toBe(
      [
        "## Recent Episodes",
        "",
        "- [2026-11-29] (chatcli) fixed the proxy",
        "- [2026-11-21] recent work 5",
        "- [2026-11-20] recent work 4",
        "- [2026-11-19] recent work 3",
        "- [2026-11-18] recent work 2",
      ].join("\n"),
    );
  });

  test("keywords: matching episodes of any age, outcome and refs shown", () => {
    expect(episodesSection(list, ["bazel"], now)).toBe(
      "## Recent Episodes\n\n- [2026-10-20] migrated the build to Bazel → CI faster [BUILD.bazel]",
    );
  });

  test("nothing recent and nothing matching: no section", () => {
    expect(episodesSection([ep(40, "old")], ["proxy"], now)).toBe("");
  });
});
