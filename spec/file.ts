import { readFile } from "node:fs/promises";
import type { Spec } from "./schema.js";
import { SpecVariantError, applyVariant, defaultSpec } from "./variant.js";

/**
 * Reads a variant from disk (both tools' `--spec FILE`) and merges it over the base. Kept apart from
 * variant.ts so that what runs in a browser (the msw handlers) never imports node:fs.
 */
export async function loadSpecFile(file: string, base: Spec = defaultSpec()): Promise<Spec> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SpecVariantError([{ path: "(the whole file)", message: `cannot be read: ${reason}` }], file);
  }
  let variant: unknown;
  try {
    variant = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SpecVariantError([{ path: "(the whole file)", message: `is not JSON: ${reason}` }], file);
  }
  return applyVariant(variant, base, file);
}
