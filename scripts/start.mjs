// `npm start`: builds when the sources are newer than dist/ (scripts/build-if-stale.mjs), then serves the
// bundled entry in this same process. It used to be a `prestart` script: npm then started a shell and a
// second node process for the check alone, which cost `npm start` about as much as the server's own
// start (DECISIONS.md, "The request path (issue #28)"). `exec node` in package.json keeps npm's SIGTERM
// for this process, the server's.
import { buildIfStale } from "./build-if-stale.mjs";

const status = buildIfStale();
if (status !== 0) process.exit(status);
await import("../dist/bundle/bin.js");
