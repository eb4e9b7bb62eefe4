import { redact } from "../core/redact.ts";
import type { ChatMessage } from "../llm/types.ts";
import { addEpisodes } from "./episodes.ts";
import type { ParsedExtraction } from "./extract-parse.ts";
import { addFact } from "./facts.ts";
import { appendDaily } from "./notes.ts";
import { updateProfile } from "./profile.ts";
import { conversationOrigins, originOf } from "./provenance.ts";
import { holdFact } from "./review.ts";
import { unverifiedSource } from "./source.ts";
import { type Memory, mutateFacts } from "./store.ts";
import { classifyFactContent, extractTags } from "./text.ts";
import { neutralize, scanThreat } from "./threatscan.ts";
import { recordTopics, upsertProject } from "./tracking.ts";
import { holdReason, supportedBy } from "./trust.ts";
import { actionWord, mixedScriptWord } from "./trust-words.ts";

/** Applies a parsed extraction: daily, long-term, profile, topics, projects, episodes (Go's order). */
export async function applyExtraction(
  mem: Memory,
  parsed: ParsedExtraction,
  messages: readonly ChatMessage[] = [],
): Promise<{ facts: number; summary: string }> {
  const { origins, userText } = conversationOrigins(messages);
  const userTurns = messages.filter((m) => m.role === "user").map((m) => m.content);
  for (const d of parsed.daily) await appendDaily(mem, mem.cfg.threatscan ? neutralize(d) : d);
  const redacted = parsed.facts.map((f) => ({ ...f, content: redact(f.content, mem.cfg.secrets) }));
  // The user's fact only when one of the user's turns supports it (lib/memory/trust.ts); the rest is
  // unverified: held for review when it asks the agent to act, else stored as an unverified note.
  const judged = redacted.map((f) => {
    if (supportedBy(f.content, userTurns)) return { ...f, source: undefined, hold: undefined };
    const origin = originOf(f.content, origins, userText);
    const source = unverifiedSource(origin ? `extraction:${origin}` : "extraction");
    const category = f.category || classifyFactContent(f.content);
    return { ...f, category, source, hold: holdReason(f.content, category) };
  });
  const facts = judged.filter(
    (f) => f.hold === undefined && !(mem.cfg.threatscan && scanThreat(f.content)),
  );
  const dropped = judged.filter((f) => f.hold === undefined).length - facts.length;
  if (dropped > 0) {
    mem.warn(
      `memory: dropped ${dropped} extracted fact(s) that looked like prompt injection or remote execution`,
    );
  }
  let held = 0;
  for (const f of judged) {
    if (f.hold === undefined || f.source === undefined) continue;
    await holdFact(mem, {
      content: f.content,
      category: f.category,
      source: f.source,
      reason: f.hold,
    });
    held++;
  }
  if (held > 0)
    mem.warn(
      `memory: held ${held} extracted fact(s) for review: not the user's own words and they ask the agent to act (chatcli memory review)`,
    );
  let added = 0;
  if (facts.length) {
    added = await mutateFacts(
      mem,
      (state) => {
        let n = 0;
        for (const f of facts) {
          const r = addFact(
            state,
            {
              content: f.content,
              category: f.category,
              tags: extractTags(f.content),
              sourceProject: mem.workspace,
              confidence: 0.6,
              provenance: "extraction",
              source: f.source,
            },
            mem.now(),
            mem.cfg.maxFacts,
          );
          if (r.kind === "added") n++;
        }
        return n;
      },
      { markdown: (n) => n > 0 },
    );
  }
  // a profile line is injected too: one the user's turns do not support may not ask the agent to act
  const profile = Object.fromEntries(
    Object.entries(parsed.profile).filter(
      ([k, v]) => supportedBy(String(v), userTurns) || !holdReason(`${k} ${v}`, "general"),
    ),
  );
  if (Object.keys(profile).length < Object.keys(parsed.profile).length)
    mem.warn(
      `memory: dropped ${Object.keys(parsed.profile).length - Object.keys(profile).length} extracted profile field(s) that ask the agent to act and are not the user's own words`,
    );
  const profileChanged = Object.keys(profile).length
    ? (await updateProfile(mem, profile, "extraction")).length > 0
    : false;
  // topics and projects are injected into prompts too: the same scan drops poisoned ones, and one
  // the user's turns do not support may not ask the agent to act
  const poisoned = (text: string) => mem.cfg.threatscan && scanThreat(text) !== undefined;
  const steering = (text: string) =>
    poisoned(text) ||
    (!supportedBy(text, userTurns) && (actionWord(text) !== undefined || !!mixedScriptWord(text)));
  const cleanTopics = parsed.topics.filter((t) => !steering(`${t.name} ${t.summary}`));
  const cleanProjects = parsed.projects.filter(
    (p) =>
      !steering(p["project_description"] ?? p["description"] ?? "") &&
      !poisoned(Object.values(p).join("\n")),
  );
  const droppedOther =
    parsed.topics.length - cleanTopics.length + parsed.projects.length - cleanProjects.length;
  if (droppedOther)
    mem.warn(
      `memory: dropped ${droppedOther} extracted topic(s)/project(s) that looked like commands to run`,
    );
  const topics = await recordTopics(mem, cleanTopics);
  let projects = 0;
  for (const p of cleanProjects) if (await upsertProject(mem, p)) projects++;
  const cleanEpisodes = parsed.episodes
    .map((e) => ({
      ...e,
      summary: redact(e.summary, mem.cfg.secrets),
      outcome: redact(e.outcome, mem.cfg.secrets),
    }))
    .filter((e) => !poisoned([e.summary, e.outcome, ...e.refs].join("\n")));
  const episodes = await addEpisodes(mem, cleanEpisodes);
  const parts: string[] = [];
  if (added) parts.push(`+${added} fact(s)`);
  if (profileChanged) parts.push("profile updated");
  if (projects) parts.push(`+${projects} project${projects > 1 ? "s" : ""}`);
  if (topics) parts.push(`+${topics} topic(s)`);
  if (episodes) parts.push(`+${episodes} episode(s)`);
  return { facts: added, summary: parts.join(", ") };
}
