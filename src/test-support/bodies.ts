import request from "supertest";
import { beforeEach, expect } from "vitest";
import { expectData, expectError, referencePerTest, type TestReference } from "./reference.js";

// The tests of request bodies: exact bytes sent to the API, and proof that a refused body stored nothing.

export const CONTACTS = "/api/v1/contacts";
export const PRODUCTS = "/api/v1/products";
export const VALID = '{"type":"CLIENT","name":"Body test"}';
export const json = { "Content-Type": "application/json" };

/** Leaves the bytes alone: superagent would otherwise serialize a Buffer sent as JSON into `{"type":"Buffer"…}`. */
const asIs = (bytes: unknown) => bytes as string;

export interface BodyHarness {
  /** The reference of the running test (a new one for each). */
  readonly ref: TestReference;
  /** org_lumiere's contacts when the test began. */
  readonly contactsBefore: number;
  /** POSTs exactly these bytes with exactly the headers given (none added for a Buffer). */
  post(body: string | Buffer, headers?: Record<string, string>, path?: string): request.Test;
  /** Asserts a 400 invalid_request and that nothing was stored. */
  expectRefused(res: request.Response): Promise<void>;
}

export function bodyHarness(): BodyHarness {
  const fresh = referencePerTest();
  const countProducts = () => fresh.ref.store.listProducts("org_lumiere", { limit: 100_000 }).length;
  let contactsBefore = 0;
  let productsBefore = 0;
  beforeEach(() => {
    contactsBefore = fresh.ref.store.countContacts("org_lumiere");
    productsBefore = countProducts();
  });
  return {
    get ref() {
      return fresh.ref;
    },
    get contactsBefore() {
      return contactsBefore;
    },
    post: (body, headers = {}, path = CONTACTS) =>
      request(fresh.ref.app)
        .post(path)
        .set(fresh.ref.auth("lumiere-full"))
        .set(headers)
        .serialize(asIs)
        .send(typeof body === "string" ? Buffer.from(body, "utf8") : body),
    expectRefused: async (res) => {
      const ref = fresh.ref;
      expectError(res, 400, "invalid_request");
      expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
      expect(countProducts()).toBe(productsBefore);
      // Through the API too: the list a client reads is unchanged.
      const list = await request(ref.app).get(`${CONTACTS}?limit=200`).set(ref.auth("lumiere-full"));
      expect(expectData(list, 200)).toHaveLength(contactsBefore);
    },
  };
}
