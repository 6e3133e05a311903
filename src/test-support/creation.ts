import fc from "fast-check";
import request from "supertest";
import { describe, expect } from "vitest";
import type { z } from "zod";
import {
  RawNumber,
  expectData,
  expectInvalid,
  jsonText,
  listIds,
  referenceTest,
  without,
  type TestReference,
} from "./reference.js";

// The tests of §4's two creations (POST /contacts, POST /products) share their way of sending bodies,
// reading what was stored, and drawing bodies for their properties.

/** A fixture label, or the headers of a token made at runtime. */
export type Caller = string | { Authorization: string };

export interface CreationOptions<Created, Listed> {
  path: string;
  created: z.ZodType<Created>;
  listed: z.ZodType<Listed>;
  /** Sends the body as `jsonText` writes it, `RawNumber`s as written, so no float touches a price. */
  rawNumbers?: boolean;
}

export interface CreationHarness<Created, Listed> {
  /** The reference the harness sends to. */
  readonly ref: TestReference;
  create(body: Record<string, unknown>, who?: Caller): request.Test;
  /** The creation's `data`, after checking the 201 and its schema. */
  created(body: Record<string, unknown>, who?: Caller): Promise<Created>;
  /** The first item of the list, the newest (spec-gaps #7). */
  newest(who?: Caller): Promise<Listed>;
  /** Sends a body that must be refused, naming `field`, and checks nothing was stored. */
  expectRejected(body: Record<string, unknown>, field: string): Promise<Record<string, string[]>>;
  /** A number this harness has not given before, as text: what keeps a sku new. */
  uniqueNumber(): string;
  /** A sku this harness has not given before. */
  freshSku(): string;
}

/** A creation's requests and checks against one reference. */
export function creationHarness<Created, Listed>(
  ref: TestReference,
  options: CreationOptions<Created, Listed>,
): CreationHarness<Created, Listed> {
  const { path } = options;
  const headersOf = (who: Caller) => (typeof who === "string" ? ref.auth(who) : who);
  const create = (body: Record<string, unknown>, who: Caller = "lumiere-full") => {
    const post = request(ref.app).post(path).set(headersOf(who));
    return options.rawNumbers === true
      ? post.set("Content-Type", "application/json").send(jsonText(body))
      : post.send(body);
  };
  let skus = 0;
  return {
    ref,
    create,
    created: async (body, who) => options.created.parse(expectData(await create(body, who), 201)),
    newest: async (who = "lumiere-full") => {
      const res = await request(ref.app).get(`${path}?limit=1`).set(headersOf(who));
      const [first] = expectData(res, 200) as unknown[];
      return options.listed.parse(first);
    },
    expectRejected: async (body, field) => {
      const before = await listIds(ref, path, "lumiere-full");
      const details = expectInvalid(await create(body), field);
      expect(await listIds(ref, path, "lumiere-full")).toEqual(before);
      return details;
    },
    uniqueNumber: () => String((skus += 1)),
    freshSku: () => `SKU-${String((skus += 1))}`,
  };
}

/**
 * vitest's `test` with `h`, a creation harness on the test's own reference (`ref`):
 * `it("…", async ({ h }) => h.created(…))`.
 */
export function creationTest<Created, Listed>(options: CreationOptions<Created, Listed>) {
  return referenceTest().extend("h", ({ ref }) => creationHarness(ref, options));
}

export type CreationTest<Created = unknown, Listed = Record<string, unknown>> = ReturnType<
  typeof creationTest<Created, Listed>
>;

/** The smallest product body §4 accepts, with a new sku. */
export const minimalProduct = (h: Pick<CreationHarness<unknown, unknown>, "freshSku">) => ({
  sku: h.freshSku(),
  name: "Affiche A2",
  unitPrice: new RawNumber("25"),
});

export const EMOJI = "😀"; // one code point, two UTF-16 units, four UTF-8 bytes

/**
 * §8's limits, in characters (code points, spec-gaps #16): `max` characters are stored as sent, one
 * more is refused, whether they are ASCII or astral (two UTF-16 units each).
 */
export function describeLengthLimits<Created, Listed extends Record<string, unknown>>(
  it: CreationTest<Created, Listed>,
  limits: readonly (readonly [string, number])[],
  body: (h: CreationHarness<Created, Listed>) => Record<string, unknown>,
  options: {
    /** A value of `max` ASCII characters (a sku must be new each time). */
    ascii?: (max: number, h: CreationHarness<Created, Listed>) => string;
    /** Also: `max - 1` ASCII characters and one astral one, `max + 1` UTF-16 units, accepted. */
    mixed?: boolean;
  } = {},
): void {
  const ascii = options.ascii ?? ((max: number) => "a".repeat(max));
  describe.each(limits)("%s: at most %i characters (spec-gaps #16)", (field, max) => {
    it(`accepts ${max} ASCII characters`, async ({ h }) => {
      const value = ascii(max, h);
      await h.created({ ...body(h), [field]: value });
      expect((await h.newest())[field]).toBe(value);
    });

    it(`refuses ${max + 1} ASCII characters`, async ({ h }) => {
      await h.expectRejected({ ...body(h), [field]: "a".repeat(max + 1) }, field);
    });

    it(`accepts ${max} astral characters (${max * 2} UTF-16 units)`, async ({ h }) => {
      const value = EMOJI.repeat(max);
      await h.created({ ...body(h), [field]: value });
      expect((await h.newest())[field]).toBe(value);
    });

    it(`refuses ${max + 1} astral characters`, async ({ h }) => {
      await h.expectRejected({ ...body(h), [field]: EMOJI.repeat(max + 1) }, field);
    });

    if (options.mixed === true) {
      it(`accepts ${max - 1} ASCII characters and one astral character (${max + 1} UTF-16 units)`, async ({
        h,
      }) => {
        await h.created({ ...body(h), [field]: `${"a".repeat(max - 1)}${EMOJI}` });
      });
    }
  });
}

// --- arbitraries for the properties -----------------------------------------------------------------

/** A non-blank string of 1..max code points, astral ones included. */
export const textArb = (max: number) =>
  // Something a reader would see: white space, zero-width and control characters alone are blank.
  fc
    .string({ unit: "binary", minLength: 1, maxLength: max })
    .filter((s) => /[^\s\p{Z}\p{Cc}\p{Cf}]/u.test(s));

/** 1 to 20 characters more than `max`, all one of `chars`. */
export const tooLongArb = (max: number, chars: readonly string[]) =>
  fc
    .tuple(fc.integer({ min: max + 1, max: max + 20 }), fc.constantFrom(...chars))
    .map(([n, c]) => c.repeat(n));

/** A field the body's schema does not know, with any JSON value. */
export const unknownFieldArb = (known: readonly string[]): fc.Arbitrary<{ field: string; value: unknown }> =>
  fc.record({
    field: fc
      .stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/)
      .filter((k) => k !== "__proto__" && !known.includes(k)),
    value: fc.jsonValue(),
  });

/** A valid body with exactly one constraint broken (the value to put there; undefined: remove it), and the field it breaks. */
export const oneBroken = <B extends object>(
  valid: fc.Arbitrary<B>,
  breakage: fc.Arbitrary<{ field: string; value: unknown }>,
): fc.Arbitrary<{ body: Record<string, unknown>; field: string }> =>
  fc.tuple(valid, breakage).map(([body, { field, value }]) => ({
    body: value === undefined ? without(body, field) : { ...body, [field]: value },
    field,
  }));
