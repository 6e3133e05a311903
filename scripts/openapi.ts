// Writes openapi.json and the typed client's types from the route table and the zod schemas.
// Run after changing a route or a schema: `npm run openapi`. A test fails while they are stale.
import { writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { renderArtifacts } from "../src/test-support/openapi-artifacts.js";

for (const { path, text } of await renderArtifacts()) {
  await writeFile(path, text);
  console.log(`wrote ${relative(process.cwd(), path)} (${text.length} characters)`);
}
