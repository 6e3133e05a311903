import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultFixturesDir } from "../store/fixtures/paths.js";

// The fixture files as JSON, for the tests of their loader: read, picked from and broken on purpose.

/** The fixtures describe the world as of mid-November 2026; a fixed instant keeps token states stable. */
export const FIXTURES_NOW = new Date("2026-11-15T12:00:00.000Z");
export const SHIPPED = defaultFixturesDir();

export type Rec = Record<string, unknown>;

export async function readRaw(file: string, dir = SHIPPED): Promise<unknown> {
  return JSON.parse(await readFile(join(dir, file), "utf8")) as unknown;
}

/** The records of a file's content (`key`: of one of its lists, tokens.json's `tokens`). */
export function list(data: unknown, key?: string): Rec[] {
  const value = key === undefined ? data : (data as Rec)[key];
  if (!Array.isArray(value)) throw new Error("test setup: expected an array");
  return value as Rec[];
}

export function pick(records: Rec[], predicate: (r: Rec) => boolean, nth = 0): Rec {
  const found = records.filter(predicate)[nth];
  if (found === undefined) throw new Error("test setup: no record matches");
  return found;
}

export const idOf = (r: Rec): string => {
  if (typeof r.id !== "string") throw new Error("test setup: record without id");
  return r.id;
};
