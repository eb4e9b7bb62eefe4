/** Writes docs/schema/*.schema.json from the types' schemas (a test checks they match). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { schemaDocument } from "../lib/output/schema.ts";

const dir = join(import.meta.dir, "..", "docs", "schema");
for (const kind of ["result", "events"] as const)
  writeFileSync(join(dir, `${kind}.schema.json`), schemaDocument(kind, "v1"));
console.log(`wrote ${dir}/{result,events}.schema.json`);
