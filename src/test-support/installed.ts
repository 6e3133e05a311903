import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./readme.js";

/** Where the guide starts the package's bin from, in a project that has installed it. */
export const INSTALLED_BIN = "node_modules/accounting-api-reference/dist/bundle/bin.js";

/**
 * Puts the package's bin where an install puts it (`INSTALLED_BIN` under `dir`), running this
 * checkout's sources through tsx in the same process: the guide's commands run as written, without a
 * build (which would race `conformance/pack.test.ts`'s). The packed bin itself is the pack test's.
 */
export async function installBinFromSources(dir: string): Promise<void> {
  const bin = join(dir, INSTALLED_BIN);
  await mkdir(join(bin, ".."), { recursive: true });
  await writeFile(
    join(dir, "node_modules/accounting-api-reference/package.json"),
    JSON.stringify({ name: "accounting-api-reference", type: "module" }),
  );
  const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);
  await writeFile(
    bin,
    [
      `import { register } from ${url("node_modules/tsx/dist/esm/api/index.mjs")};`,
      `register({ tsconfig: ${JSON.stringify(join(ROOT, "tsconfig.json"))} });`,
      `await import(${url("src/entry/bin.ts")});`,
    ].join("\n"),
  );
}
