import { parse } from "node:querystring";
import { describe, expect, it } from "vitest";
import { parseQuery } from "./query.js";

describe("parseQuery", () => {
  it("reads the parameter after 10 000 others", () => {
    const text = `${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join("&")}&limit=0`;
    expect(parseQuery(text).limit).toBe("0");
  });

  // Only the cap differs from Express's "simple" parser: decoding and repetition stay as they were.
  it.each(["a=1&a=2", "a+b=c+d", "a=%20%zz", "a", "a=&=b", "__proto__=x&constructor=y", "limit=%E2%82%AC"])(
    "reads %j as the simple parser does",
    (text) => {
      expect(parseQuery(text)).toEqual(parse(text));
    },
  );
});
