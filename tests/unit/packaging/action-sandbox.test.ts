import { describe, expect, test } from "bun:test";
import { createRequire } from "node:module";

// the action's CommonJS modules, as GitHub runs them
const load = createRequire(import.meta.url);
type Deps = Record<string, unknown>;
const { binaryUrl } = load("../../../action/fetch-binary.js") as {
  binaryUrl(url: string, target: string): string;
};
const { chatcliArgs } = load("../../../action/report.js") as {
  chatcliArgs(inputs: Record<string, string>): string[];
};
const { ensureSandbox } = load("../../../action/sandbox.js") as {
  ensureSandbox(log: (line: string) => void, deps: Deps): string;
};

/** A fake Linux runner: which programs exist, whether bwrap works, what was run as root. */
function fakeRunner(state: { bwrap: boolean; works: boolean; restrict: boolean; uid?: number }) {
  const ran: string[] = [];
  return {
    ran,
    deps: {
      platform: "linux",
      uid: state.uid ?? 1001,
      exists: (p: string) => state.restrict && p.includes("apparmor_restrict"),
      run(cmd: string, args: string[]) {
        const line = [cmd, ...args].join(" ");
        if (cmd === "sh") {
          const name = args[1]?.split(" ").at(-1);
          return (name === "bwrap" && state.bwrap) || name === "apparmor_parser" ? 0 : 1;
        }
        if (cmd === "bwrap") return state.works ? 0 : 1;
        ran.push(line);
        if (line.includes("apt-get install")) state.bwrap = true;
        if (line.includes("apparmor_parser -r")) state.works = true;
        return 0;
      },
    },
  };
}

describe("the action's sandbox step (as .ci/run)", () => {
  test("bubblewrap missing: installed with apt-get through sudo", () => {
    const f = fakeRunner({ bwrap: false, works: true, restrict: false });
    expect(ensureSandbox(() => {}, f.deps)).toBe("ready");
    expect(f.ran).toEqual([
      "sudo -n apt-get update -qq",
      "sudo -n apt-get install -y -qq bubblewrap",
    ]);
  });

  test("Ubuntu 24.04: installed but restricted by AppArmor: a profile for bwrap alone is loaded", () => {
    const f = fakeRunner({ bwrap: true, works: false, restrict: true, uid: 0 });
    expect(ensureSandbox(() => {}, f.deps)).toBe("ready");
    expect(f.ran).toEqual([
      "tee /etc/apparmor.d/bwrap",
      "apparmor_parser -r /etc/apparmor.d/bwrap",
    ]);
  });

  test("ready already: nothing is run; not Linux: skipped; still broken: a warning", () => {
    const ok = fakeRunner({ bwrap: true, works: true, restrict: false });
    expect(ensureSandbox(() => {}, ok.deps)).toBe("ready");
    expect(ok.ran).toEqual([]);
    expect(ensureSandbox(() => {}, { ...ok.deps, platform: "darwin" })).toBe("skipped");
    const lines: string[] = [];
    const broken = fakeRunner({ bwrap: true, works: false, restrict: false });
    expect(ensureSandbox((l: string) => lines.push(l), broken.deps)).toBe("unavailable");
    expect(lines.join("\n")).toContain("::warning title=chatcli sandbox::");
  });

  test("chatcliArgs: agent and coder require the sandbox unless told otherwise; ask has none", () => {
    expect(chatcliArgs({ task: "t" })).toContain("--sandbox");
    expect(chatcliArgs({ task: "t" }).join(" ")).toContain("--sandbox required");
    expect(chatcliArgs({ task: "t", sandbox: "auto" }).join(" ")).toContain("--sandbox auto");
    expect(chatcliArgs({ task: "t", sandbox: "" })).not.toContain("--sandbox");
    expect(chatcliArgs({ task: "t", command: "ask" })).not.toContain("--sandbox");
  });

  test("chatcliArgs: allow-network names hosts for agent and coder (one a line or comma-separated)", () => {
    expect(
      chatcliArgs({
        task: "t",
        "allow-network": "registry.npmjs.org\n*.pypi.org, files.pythonhosted.org\n",
      }),
    ).toContain("--allow-network=registry.npmjs.org,*.pypi.org,files.pythonhosted.org");
    expect(chatcliArgs({ task: "t", "allow-network": " " }).join(" ")).not.toContain(
      "--allow-network",
    );
    expect(
      chatcliArgs({ task: "t", command: "ask", "allow-network": "x.example" }).join(" "),
    ).not.toContain("--allow-network");
  });

  test("binaryUrl: a release directory, a {target} template, a plain URL", () => {
    expect(binaryUrl("https://x/rel/", "linux-x64")).toBe("https://x/rel/chatcli-linux-x64");
    expect(binaryUrl("https://x/rel/", "windows-x64")).toBe(
      "https://x/rel/chatcli-windows-x64.exe",
    );
    expect(binaryUrl("https://x/chatcli-{target}", "darwin-arm64")).toBe(
      "https://x/chatcli-darwin-arm64",
    );
    expect(binaryUrl("https://x/my-chatcli", "linux-x64")).toBe("https://x/my-chatcli");
  });
});
