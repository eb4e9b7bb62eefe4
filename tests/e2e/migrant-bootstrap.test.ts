import { beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { baseEnv, requireBinary, runChatcli } from "../support/binary.ts";
import { tempDir } from "../support/ctx.ts";
import { startMockLlm } from "../support/mock-llm.ts";
import { snapshot, writeGoHome } from "./migrant-home.ts";

beforeAll(() => {
  requireBinary();
});

async function put(path: string, body: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, body);
}

const noClock = (text: string) => text.replace(/^Current date: .*$/m, "<NOW>").trimEnd();

describe("bootstrap files and rules a Go ChatCLI user already has", () => {
  test("`bootstrap show` prints Go's workspace layout (files, memory, rules joined by ---), exactly what ask sends", async () => {
    await using home = await tempDir();
    await using llm = await startMockLlm();
    const { chatcli, project } = await writeGoHome(home.path);
    await put(join(chatcli, "AGENTS.md"), "Global agents: be terse.\n");
    await put(join(chatcli, "SOUL.md"), "You are calm.\n");
    await put(join(chatcli, "USER.md"), "I am Ana, an SRE.\n");
    await put(join(chatcli, "IDENTITY.md"), "GLOBAL IDENTITY\n");
    await put(join(chatcli, "rules", "testing.md"), "Always write tests.\n");
    await put(
      join(chatcli, "rules", "go-style.md"),
      "---\npaths: [\"*.go\", 'cmd/**']\n---\nUse gofmt.\n",
    );
    await put(join(project, "AGENTS.md"), "Project agents: use make.\n");
    // Whitespace only: shadows the global IDENTITY.md, and is then dropped (Go §1.3).
    await put(join(project, "IDENTITY.md"), "   \n");
    await put(join(project, "RULES.md"), "Never push to main.\n");
    await put(
      join(project, ".chatcli", "rules", "ts.md"),
      '---\npaths:\n  - "src/**"\n  # a comment\n  - lib/*.ts\n---\n\nTS body.\n',
    );
    const before = await snapshot(chatcli);
    const env = baseEnv(home.path, { ...llm.env("openai"), TZ: "UTC" });
    const prompt = "fix cmd/main.go";
    const show = await runChatcli(["bootstrap", "show", prompt], { env, cwd: project });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      [
        "## AGENTS.md\n\nProject agents: use make.\n",
        "## SOUL.md\n\nYou are calm.\n",
        "## USER.md\n\nI am Ana, an SRE.\n",
        "## RULES.md\n\nNever push to main.\n",
        "# Memory\n\n## User Profile\n\nName: Ana\nRole: SRE\n",
      ].join("\n\n---\n\n"),
    );
    expect(show.stdout).not.toContain("IDENTITY");
    expect(show.stdout).toContain(
      "\n\n---\n\n## Path-Specific Rules\n\n### Rule: go-style (paths: *.go, cmd/**)\n\nUse gofmt.\n\n---\n\n### Rule: testing\n\nAlways write tests.\n\n\nCurrent date: ",
    );
    expect(show.stdout).not.toContain("TS body.");

    llm.push({ text: "done" });
    const ask = await runChatcli(["ask", "--memory", "read", prompt], { env, cwd: project });
    expect(ask.code).toBe(0);
    const sent = (llm.requests[0]?.body as { messages: Array<{ content: string }> } | undefined)
      ?.messages[0]?.content;
    expect(noClock(sent ?? "")).toBe(noClock(show.stdout));
    // Reading bootstrap files, rules and memory changed nothing on disk.
    expect((await snapshot(chatcli)).get("memory/user_profile.json")).toBe(
      before.get("memory/user_profile.json"),
    );
  });
});
