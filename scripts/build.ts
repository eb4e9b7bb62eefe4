// Builds the single self-contained binary dist/chatcli. The SDKs are split out and loaded lazily;
// commander's two heaviest Node imports are replaced by stand-ins (see scripts/stubs/).
import { resolve } from "node:path";
import { $, type BunPlugin } from "bun";

const root = resolve(import.meta.dir, "..");
const outfile = resolve(root, process.argv[2] ?? "dist/chatcli");

// Bun resolves node: built-ins before plugins' onResolve, so rewrite commander's imports on load.
const commanderStubs: BunPlugin = {
  name: "commander-stubs",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const stub = (name: string) => JSON.stringify(resolve(import.meta.dir, "stubs", name));
      // ESM (`from 'node:x'`, commander 15) or CommonJS (`require('node:x')`, commander 14).
      const contents = source
        .replace(/from ['"]node:util['"]/, `from ${stub("commander-util.ts")}`)
        .replace(/require\(['"]node:util['"]\)/, `require(${stub("commander-util.ts")})`)
        .replace(/from ['"]node:child_process['"]/, `from ${stub("commander-child-process.ts")}`)
        .replace(
          /require\(['"]node:child_process['"]\)/,
          `require(${stub("commander-child-process.ts")})`,
        );
      if (!contents.includes("commander-child-process.ts"))
        throw new Error("commander's imports changed: update scripts/build.ts");
      return { contents, loader: "js" };
    });
  },
};

const result = await Bun.build({
  entrypoints: [resolve(root, "main.ts")],
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  minify: true,
  bytecode: true,
  splitting: true,
  format: "esm",
  plugins: [commanderStubs],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const version = (await $`${outfile} --version`.text()).trim();
console.log(`built ${outfile} (chatcli ${version})`);
