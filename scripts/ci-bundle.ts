// `chatcli-ci.cjs`: the CI integration (action/ci.js and the modules it requires) as one CommonJS file
// for Node ≥ 18, published with each release beside the binaries, so the GitLab template can run it
// from a release without npm.
import { join } from "node:path";

export async function ciBundle(root: string): Promise<string> {
  const built = await Bun.build({
    entrypoints: [join(root, "action", "ci.js")],
    target: "node",
    format: "cjs",
  });
  const [output] = built.outputs;
  if (!built.success || !output)
    throw new Error(`bundling action/ci.js failed: ${built.logs.join("\n")}`);
  return output.text();
}
