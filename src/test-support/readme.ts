import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The examples of the README and of the guides under docs/, for the tests that run them as written:
 * each is the fenced block that follows an `<!-- example: name -->` comment, its name unique across
 * those files.
 */

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The documents whose examples tests run: the README and every Markdown file under docs/. */
export function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
  return ["README.md", ...docs.sort().map((f) => `docs/${f}`)];
}

export interface Example {
  /** The document it is in, e.g. `docs/frontend.md`. */
  document: string;
  code: string;
}

export function examples(): Map<string, Example> {
  const found = new Map<string, Example>();
  for (const document of documents()) {
    const text = readFileSync(join(ROOT, document), "utf8");
    for (const m of text.matchAll(/<!-- example: (\S+) -->\s*```\w*\n([\s\S]*?)```/g)) {
      const name = m[1] ?? "";
      const other = found.get(name);
      if (other !== undefined) {
        throw new Error(`two examples named "${name}": in ${other.document} and in ${document}`);
      }
      found.set(name, { document, code: m[2] ?? "" });
    }
  }
  return found;
}

/** A fenced block of a document: an example (named by the comment before it) or output shown. */
export interface Block {
  document: string;
  /** Its opening fence's line, from 1. */
  line: number;
  /** The fence's language: `ts`, `sh`, `text`… */
  language: string;
  /** The name of its `<!-- example: name -->` comment; undefined for a block without one. */
  example: string | undefined;
}

/** Every fenced block of the README and of the guides under docs/, in order. */
export function blocks(): Block[] {
  const found: Block[] = [];
  for (const document of documents()) {
    const lines = readFileSync(join(ROOT, document), "utf8").split("\n");
    let open: string | undefined;
    lines.forEach((text, i) => {
      const fence = /^\s*(`{3,})(\w*)/.exec(text);
      if (fence === null) return;
      if (open !== undefined) {
        if (fence[1] === open && fence[2] === "") open = undefined;
        return;
      }
      open = fence[1];
      const before = lines
        .slice(0, i)
        .filter((l) => l.trim() !== "")
        .at(-1);
      found.push({
        document,
        line: i + 1,
        language: fence[2] ?? "",
        example: /^\s*<!-- example: (\S+) -->$/.exec(before ?? "")?.[1],
      });
    });
  }
  return found;
}

export function example(name: string): string {
  const found = examples().get(name);
  if (found === undefined) throw new Error(`no example "${name}" in ${documents().join(", ")}`);
  return found.code;
}

/**
 * Writes an example to a module of its own, the package's name pointing at its sources (the package
 * is not built here), and imports it: its top level runs.
 */
export async function runExample(name: string): Promise<void> {
  const code = example(name)
    .replaceAll('"accounting-api-reference/control"', JSON.stringify(join(ROOT, "src/clients/control.ts")))
    .replaceAll('"accounting-api-reference"', JSON.stringify(join(ROOT, "src/index.ts")));
  const dir = await mkdtemp(join(tmpdir(), "acct-example-"));
  const file = join(dir, `${name.replaceAll("/", "-")}.ts`);
  await writeFile(file, code);
  await import(file);
}
