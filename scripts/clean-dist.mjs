// The first step of `npm run build`: tsc writes over its outputs but never removes one whose source
// was moved or deleted, and `npm pack` would ship such a stale module with the package. The bundle
// (scripts/bundle.mjs) clears its own folder.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
for (const dir of ["spec", "src", "conformance"]) rmSync(join(dist, dir), { recursive: true, force: true });
