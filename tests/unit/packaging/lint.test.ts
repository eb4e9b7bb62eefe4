import { expect, test } from "bun:test";
import pkg from "../../../package.json" with { type: "json" };

test("npm test's lint step fails on a warning, so a passing npm test prints none", () => {
  expect(pkg.scripts.lint).toBe("biome check --error-on-warnings .");
  expect(pkg.scripts.test).toContain("bun run lint");
});
