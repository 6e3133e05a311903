import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The README's examples, for the tests that run them as written: each is the fenced block that
 * follows an `<!-- example: name -->` comment.
 */

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export function readmeExamples(): Map<string, string> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const examples = new Map<string, string>();
  for (const m of readme.matchAll(/<!-- example: (\S+) -->\s*```\w*\n([\s\S]*?)```/g)) {
    examples.set(m[1] ?? "", m[2] ?? "");
  }
  return examples;
}

export function readmeExample(name: string): string {
  const code = readmeExamples().get(name);
  if (code === undefined) throw new Error(`README.md has no example "${name}"`);
  return code;
}

/**
 * Writes an example to a module of its own, the package's name pointing at its sources (the package
 * is not built here), and imports it: its top level runs.
 */
export async function runExample(name: string): Promise<void> {
  const code = readmeExample(name)
    .replaceAll('"accounting-api-reference/control"', JSON.stringify(join(ROOT, "src/clients/control.ts")))
    .replaceAll('"accounting-api-reference"', JSON.stringify(join(ROOT, "src/index.ts")));
  const dir = await mkdtemp(join(tmpdir(), "acct-readme-"));
  const file = join(dir, `${name}.ts`);
  await writeFile(file, code);
  await import(file);
}
