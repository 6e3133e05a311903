import request from "supertest";
import { expect } from "vitest";
import { expectData, expectError, referenceTest, type TestReference } from "./reference.js";

// The tests of request bodies: exact bytes sent to the API, and proof that a refused body stored nothing.

export const CONTACTS = "/api/v1/contacts";
export const PRODUCTS = "/api/v1/products";
export const VALID = '{"type":"CLIENT","name":"Body test"}';
export const json = { "Content-Type": "application/json" };

/** Leaves the bytes alone: superagent would otherwise serialize a Buffer sent as JSON into `{"type":"Buffer"…}`. */
const asIs = (bytes: unknown) => bytes as string;

export interface BodyHarness {
  /** The reference the harness sends to. */
  readonly ref: TestReference;
  /** org_lumiere's contacts when the harness was made. */
  readonly contactsBefore: number;
  /** POSTs exactly these bytes with exactly the headers given (none added for a Buffer). */
  post(body: string | Buffer, headers?: Record<string, string>, path?: string): request.Test;
  /** Asserts a 400 invalid_request and that nothing was stored. */
  expectRefused(res: request.Response): Promise<void>;
}

/** Bodies sent to one reference, and what it stored before them. */
export function bodyHarness(ref: TestReference): BodyHarness {
  const countProducts = () => ref.store.listProducts("org_lumiere", { limit: 100_000 }).length;
  const contactsBefore = ref.store.countContacts("org_lumiere");
  const productsBefore = countProducts();
  return {
    ref,
    contactsBefore,
    post: (body, headers = {}, path = CONTACTS) =>
      request(ref.app)
        .post(path)
        .set(ref.auth("lumiere-full"))
        .set(headers)
        .serialize(asIs)
        .send(typeof body === "string" ? Buffer.from(body, "utf8") : body),
    expectRefused: async (res) => {
      expectError(res, 400, "invalid_request");
      expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
      expect(countProducts()).toBe(productsBefore);
      // Through the API too: the list a client reads is unchanged.
      const list = await request(ref.app).get(`${CONTACTS}?limit=200`).set(ref.auth("lumiere-full"));
      expect(expectData(list, 200)).toHaveLength(contactsBefore);
    },
  };
}

/** vitest's `test` with `h`, a body harness on the test's own reference: `it("…", async ({ h }) => …)`. */
export const bodyTest = referenceTest().extend("h", ({ ref }) => bodyHarness(ref));
