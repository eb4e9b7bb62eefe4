import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes a file (creating parent dirs) and returns its path. */
export function put(root: string, rel: string, text: string): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Creates directories and returns the first one. */
export function dirs(root: string, ...rels: string[]): string {
  for (const rel of rels) mkdirSync(join(root, rel), { recursive: true });
  return join(root, rels[0] ?? "");
}
