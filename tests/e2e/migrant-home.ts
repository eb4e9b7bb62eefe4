import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * A `~/.chatcli` written by the Go ChatCLI, by hand from its formats (reference §0, §2, §5): 2-space
 * JSON without a final newline, nanosecond times with offsets, zero times, `null` lists, keys a newer Go
 * version added, and other subsystems' files chatcli must leave alone.
 */
export const GO_SESSION = {
  version: 2,
  title: "como configurar o proxy",
  chat_history: [
    {
      role: "system",
      content: "[ACTIVE MODE: /agent] You are an agent.",
      system_parts: [{ type: "text", text: "sys part", cache_control: { type: "ephemeral" } }],
    },
    {
      role: "user",
      content: "how do I set the proxy?",
      images: [{ media_type: "image/png", data: "iVBORw0KGgo=", file_name: "x.png" }],
    },
    {
      role: "assistant",
      content: "",
      tool_calls: [
        {
          id: "toolu_01",
          type: "function",
          name: "read_file",
          arguments: { file: "proxy.go" },
          raw: '<tool_call name="@coder" />',
        },
      ],
    },
    {
      role: "tool",
      content: "no such file",
      tool_call_id: "toolu_01",
      is_error: true,
      error_code: "ENOENT",
    },
    {
      role: "assistant",
      content: "Use HTTPS_PROXY.",
      meta: { preserve_verbatim: true, skill_names: "a,b", future_meta: 1 },
      x_message_key: "kept",
    },
  ],
  shared_memory: null,
  x_future: { added_by: "go 2.x" },
};

/** Go's `json.MarshalIndent(v, "", "  ")`: no trailing newline. */
export const goJson = (value: unknown) => JSON.stringify(value, null, 2);

const INDEX = goJson([
  {
    id: "9d1e6a0b3c2f4e5d6a7b8c9d",
    content: "User prefers Go for CLI tools",
    category: "preference",
    tags: ["go", "cli"],
    created_at: "2026-07-30T10:12:44.518233101-03:00",
    last_accessed: "2026-08-01T09:03:10.004-03:00",
    access_count: 4,
    score: 2.48,
    source_project: "/home/ana/src/chatcli",
    confidence: 0.75,
    provenance: "extraction",
    embedding_ref: { model: "voyage-3" },
  },
  {
    id: "0a1b2c3d4e5f60718293a4b5",
    content: "Staging database lives in sa-east-1",
    category: "",
    tags: null,
    created_at: "2026-06-01T12:00:00Z",
    last_accessed: "0001-01-01T00:00:00Z",
    access_count: 0,
    score: 0,
  },
]);

export const GO_PROFILE = goJson({
  name: "Ana",
  role: "SRE",
  skills: ["Go", "Kubernetes"],
  goals: null,
  directives: ["[scope:proj] never use CGO", "avoid jargon"],
  milestones: [{ date: "2026-05-02T10:00:00-03:00", text: "Earned the CKA certification" }],
  stances: [
    { position: "prefer table-driven tests", reason: "cheap", updated_at: "0001-01-01T00:00:00Z" },
  ],
  environment: { os: "macOS", shell: "zsh" },
  field_meta: {
    name: {
      source: "user",
      updated_at: "2026-05-02T10:00:00.123456789+05:30",
      confirmed_at: "0001-01-01T00:00:00Z",
    },
  },
  top_commands: [{ command: "git", count: 3 }],
  future_field: { kept: true },
  last_updated: "2026-08-01T09:03:10-03:00",
});

/** Memory files Go wrote besides the index (read by chatcli, rewritten only by a write command). */
export const GO_MEMORY: Record<string, string> = {
  "memory/user_profile.json": GO_PROFILE,
  "memory/topics.json": goJson([
    {
      name: "Go",
      mentions: 3,
      summary: "decided to use embed.FS for assets",
      first_seen: "2026-07-30T10:12:44.518233101-03:00",
      last_seen: "2026-11-20T10:12:44-03:00",
      related_fact_ids: null,
    },
  ]),
  "memory/projects.json": goJson([
    {
      name: "chatcli",
      path: "/home/ana/src/chatcli",
      description: "Go LLM CLI",
      status: "active",
      technologies: ["Go", "Bubble Tea"],
      key_files: null,
      last_active: "2026-11-20T10:12:44-03:00",
      priority: 0,
      metadata: null,
    },
  ]),
  "memory/usage_stats.json": goJson({
    session_count: 12,
    total_messages: 40,
    avg_session_secs: 1310.5,
    hour_distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 2, 0, 0, 4, 6, 1, 0, 0, 0, 0, 0, 0, 0],
    command_frequency: {},
    feature_usage: { chat: 30, agent: 6, coder: 4 },
    common_errors: [
      {
        pattern: "go: module not found",
        count: 4,
        resolution: "go mod tidy",
        last_seen: "2026-11-20T10:00:00-03:00",
      },
    ],
    last_session: "2026-11-28T21:00:00.123456789-03:00",
  }),
  "memory/compactor_state.json": '{"last_compaction":"2026-11-29T01:00:00.123456789-03:00"}',
  "memory/MEMORY.md": "# Long-term Memory\n\n## Preference\n\n- User prefers Go for CLI tools\n\n",
  "memory/202607/20260730.md": "\n## 10:12\n\n- Modified cli/x.go\n",
  // An extraction Go could not do (provider down), queued for whoever runs next.
  "memory/pending/seg-01795000000000000000.json": JSON.stringify({
    created_at: "2026-11-28T10:00:00.123456789-03:00",
    messages: [
      { role: "user", content: "I switched from vim to neovim last week" },
      { role: "assistant", content: "Noted." },
    ],
  }),
};

/** Files other subsystems own (and Go-only memory features): never deleted or rewritten. */
export const FOREIGN: Record<string, string> = {
  "mcp_servers.json": '{"servers":{}}',
  "app.log": "2026/11/28 10:00:00 started\n",
  "coder_policy.json": goJson({ rules: [{ pattern: "@coder read", action: "allow" }] }),
  "contexts/ctx1/meta.json": '{"name":"ctx1"}',
  "skills/s1/SKILL.md": "# skill\n",
  "plugins/p1/manifest.json": "{}",
  "memory/episodes.json": goJson([
    {
      id: "ep_3f2a9c1d0b7e",
      date: "2026-03-14",
      project: "chatcli",
      summary: "migrated the build to Bazel",
      outcome: "CI 40% faster",
      refs: ["BUILD.bazel"],
      created_at: "2026-03-14T18:22:05.123456789-03:00",
    },
    { id: "ep_0000", date: "2026-03-01", summary: "", outcome: "", refs: null },
  ]),
  "memory/weekly/2026-W47.md": "# Week 47\n",
  "memory/monthly/2026-11.md": "# Nov\n",
  "memory/vector_index.json":
    '{"dimension":3,"provider":"voyage:voyage-4","entries":{"9d1e6a0b3c2f4e5d6a7b8c9d":[0.1,0.2,0.3]}}',
  "memory/graph.json": '{"nodes":[],"edges":[]}',
  "memory/memory_archive.json": goJson([
    {
      id: "444444444444444444444444",
      content: "old archived fact",
      category: "general",
      created_at: "2025-01-01T00:00:00Z",
      last_accessed: "2025-01-01T00:00:00Z",
      access_count: 1,
      score: 0.05,
    },
  ]),
  "sessions/1764370000000000000.json":
    '{"provider":"OPENAI","model":"gpt-4o","input_tokens":10,"output_tokens":5,"cost":0.01}',
  "sessions/numbers.json": "[1,2,3]",
};

/** Writes the Go home under `home/.chatcli`; returns the project dir (a `.agent` workspace). */
export async function writeGoHome(home: string): Promise<{ chatcli: string; project: string }> {
  const chatcli = join(home, ".chatcli");
  const project = join(home, "src", "proj");
  const files: Record<string, string> = {
    ...FOREIGN,
    ...GO_MEMORY,
    "memory/memory_index.json": INDEX,
    "memory/memory_tombstones.json": goJson({
      "222222222222222222222222": "2026-11-01T08:00:00.123456789+01:00",
    }),
    "sessions/go-v2.json": goJson(GO_SESSION),
    "sessions/legacy.json": goJson([
      { role: "user", content: "legacy question" },
      { role: "assistant", content: "legacy answer" },
    ]),
    "sessions/per-mode.json": goJson({
      title: "",
      chat_history: null,
      agent_history: [
        { role: "system", content: "[ACTIVE MODE: /agent] sys" },
        { role: "user", content: "agent task" },
      ],
      coder_history: [{ role: "user", content: "coder task" }],
    }),
  };
  for (const [rel, body] of Object.entries(files)) {
    const path = join(chatcli, rel);
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, body);
  }
  await mkdir(join(project, ".agent"), { recursive: true });
  return { chatcli, project };
}

/** Every file under `dir` (relative path → bytes), to compare before and after a run. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const name of await readdir(d)) {
      const path = join(d, name);
      if ((await stat(path)).isDirectory()) await walk(path);
      else out.set(relative(dir, path), await readFile(path, "utf8"));
    }
  };
  await walk(dir);
  return out;
}

/** Go's time.Time JSON: RFC 3339, up to nanoseconds, `Z` or an offset. */
export const GO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export type Json = Record<string, unknown>;

/** Relative paths under `dir` whose bytes differ from `before` (or appeared, or went away). */
export async function changed(before: Map<string, string>, dir: string): Promise<string[]> {
  const after = await snapshot(dir);
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}
