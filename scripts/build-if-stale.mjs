// `npm start` runs this first (scripts/start.mjs, in its own process): it builds only when dist/ is older
// than what it is built from, so that a start with an up-to-date build does not pay for the TypeScript
// compiler (seconds) each time. Run alone, it does the same (the benches run it so).
// `node scripts/build-if-stale.mjs --stamp` is the last step of `npm run build`: it marks dist/ as
// built now. Plain JavaScript on purpose: it runs before there is any build.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".build-stamp");

const runAlone = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];

if (runAlone && process.argv.includes("--stamp")) {
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  process.exit(0);
}

/** What the build reads: tsconfig.build.json's sources (tests left out, as there) and the configs. */
const INPUT_DIRS = ["spec", "src", "conformance"];
const INPUT_FILES = [
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
  "scripts/bundle.mjs",
  "scripts/clean-dist.mjs",
];
const notBuilt = (name) => name.endsWith(".test.ts") || name === "test-support";

/** The newest modification time under `dir`, the folders' own included: a file deleted or renamed moves its folder's. */
function newest(dir) {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (notBuilt(entry.name)) continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return -Infinity; // never built here (a fresh clone) or built before stamps existed
  }
}

/** What `read` finds, or nothing for a path that does not exist. */
const orNever = (read) => {
  try {
    return read();
  } catch {
    return -Infinity;
  }
};

/** Builds when the sources are newer than the build; the build's exit status (0 when none was needed). */
export function buildIfStale() {
  const inputs = Math.max(
    ...INPUT_DIRS.map((d) => orNever(() => newest(join(root, d)))),
    ...INPUT_FILES.map((f) => orNever(() => statSync(join(root, f)).mtimeMs)),
  );
  if (inputs <= builtAt()) return 0;
  // `npm run build` also writes the stamp. A shell on Windows, where npm is a .cmd file.
  const result = spawnSync("npm", ["run", "build"], {
    cwd: root,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  return result.status ?? 1;
}

if (runAlone) process.exit(buildIfStale());
