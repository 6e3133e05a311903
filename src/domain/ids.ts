import { randomInt } from "node:crypto";

/** Makes a new identifier for a record of one kind (spec-gaps #3: opaque, random, unique). */
export type IdGenerator = (prefix: string) => string;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const randomIds: IdGenerator = (prefix) => {
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i += 1) id += BASE62[randomInt(62)];
  return id;
};
