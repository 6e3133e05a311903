import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  RawNumber,
  expectData,
  expectInvalid,
  jsonText,
  listIds,
  referencePerTest,
  without,
  type TestReference,
} from "./reference.js";

// The tests of §4's two creations (POST /contacts, POST /products) share their way of sending bodies,
// reading what was stored, and drawing bodies for their properties.

/** A fixture label, or the headers of a token made at runtime. */
export type Caller = string | { Authorization: string };

export interface CreationHarness<Created, Listed> {
  /** The reference of the running test (a new one for each). */
  readonly ref: TestReference;
  create(body: Record<string, unknown>, who?: Caller): request.Test;
  /** The creation's `data`, after checking the 201 and its schema. */
  created(body: Record<string, unknown>, who?: Caller): Promise<Created>;
  /** The first item of the list, the newest (spec-gaps #7). */
  newest(who?: Caller): Promise<Listed>;
  /** Sends a body that must be refused, naming `field`, and checks nothing was stored. */
  expectRejected(body: Record<string, unknown>, field: string): Promise<Record<string, string[]>>;
}

export function creationHarness<Created, Listed>(options: {
  path: string;
  created: z.ZodType<Created>;
  listed: z.ZodType<Listed>;
  /** Sends the body as `jsonText` writes it, `RawNumber`s as written, so no float touches a price. */
  rawNumbers?: boolean;
}): CreationHarness<Created, Listed> {
  const { path } = options;
  const fresh = referencePerTest();
  const headersOf = (who: Caller) => (typeof who === "string" ? fresh.ref.auth(who) : who);
  const create = (body: Record<string, unknown>, who: Caller = "lumiere-full") => {
    const post = request(fresh.ref.app).post(path).set(headersOf(who));
    return options.rawNumbers === true
      ? post.set("Content-Type", "application/json").send(jsonText(body))
      : post.send(body);
  };
  return {
    get ref() {
      return fresh.ref;
    },
    create,
    created: async (body, who) => options.created.parse(expectData(await create(body, who), 201)),
    newest: async (who = "lumiere-full") => {
      const res = await request(fresh.ref.app).get(`${path}?limit=1`).set(headersOf(who));
      const [first] = expectData(res, 200) as unknown[];
      return options.listed.parse(first);
    },
    expectRejected: async (body, field) => {
      const before = await listIds(fresh.ref, path, "lumiere-full");
      const details = expectInvalid(await create(body), field);
      expect(await listIds(fresh.ref, path, "lumiere-full")).toEqual(before);
      return details;
    },
  };
}

let counter = 0;
/** A number no earlier call gave, as text: what keeps a sku new. */
export const uniqueNumber = (): string => String((counter += 1));

/** A sku no earlier call gave. */
export const freshSku = (): string => `SKU-${uniqueNumber()}`;

/** The smallest product body §4 accepts, with a new sku. */
export const minimalProduct = () => ({ sku: freshSku(), name: "Affiche A2", unitPrice: new RawNumber("25") });

export const EMOJI = "😀"; // one code point, two UTF-16 units, four UTF-8 bytes

/**
 * §8's limits, in characters (code points, spec-gaps #16): `max` characters are stored as sent, one
 * more is refused, whether they are ASCII or astral (two UTF-16 units each).
 */
export function describeLengthLimits(
  limits: readonly (readonly [string, number])[],
  body: () => Record<string, unknown>,
  h: Pick<CreationHarness<unknown, Record<string, unknown>>, "created" | "newest" | "expectRejected">,
  options: {
    /** A value of `max` ASCII characters (a sku must be new each time). */
    ascii?: (max: number) => string;
    /** Also: `max - 1` ASCII characters and one astral one, `max + 1` UTF-16 units, accepted. */
    mixed?: boolean;
  } = {},
): void {
  const ascii = options.ascii ?? ((max: number) => "a".repeat(max));
  describe.each(limits)("%s: at most %i characters (spec-gaps #16)", (field, max) => {
    it(`accepts ${max} ASCII characters`, async () => {
      const value = ascii(max);
      await h.created({ ...body(), [field]: value });
      expect((await h.newest())[field]).toBe(value);
    });

    it(`refuses ${max + 1} ASCII characters`, async () => {
      await h.expectRejected({ ...body(), [field]: "a".repeat(max + 1) }, field);
    });

    it(`accepts ${max} astral characters (${max * 2} UTF-16 units)`, async () => {
      const value = EMOJI.repeat(max);
      await h.created({ ...body(), [field]: value });
      expect((await h.newest())[field]).toBe(value);
    });

    it(`refuses ${max + 1} astral characters`, async () => {
      await h.expectRejected({ ...body(), [field]: EMOJI.repeat(max + 1) }, field);
    });

    if (options.mixed === true) {
      it(`accepts ${max - 1} ASCII characters and one astral character (${max + 1} UTF-16 units)`, async () => {
        await h.created({ ...body(), [field]: `${"a".repeat(max - 1)}${EMOJI}` });
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
