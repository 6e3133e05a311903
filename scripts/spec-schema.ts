// Writes spec/accounting-api.schema.json, the editors' JSON Schema of a spec file or variant, from the
// spec file's zod schema: `npm run spec:schema`. A test fails while it is stale.
import { writeFile } from "node:fs/promises";
import { renderSpecJsonSchema } from "../spec/json-schema.js";

const text = renderSpecJsonSchema();
await writeFile(new URL("../spec/accounting-api.schema.json", import.meta.url), text);
console.log(`wrote spec/accounting-api.schema.json (${text.length} characters)`);
