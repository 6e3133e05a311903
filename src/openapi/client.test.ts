import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import createClient, { type Client } from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { paths } from "../../openapi-types.generated.js";
import { testReference, type TestReference } from "../test-support/reference.js";

/**
 * A client generated from openapi.json (openapi-typescript's types, `npm run openapi`, driven by
 * openapi-fetch) against the running reference: what a frontend developer would do first.
 */

let ref: TestReference;
let server: Server;
let client: Client<paths>;

beforeAll(async () => {
  ref = await testReference();
  server = createServer(ref.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = createClient<paths>({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers: ref.auth("lumiere-full"),
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("a typed client generated from openapi.json, against the running reference", () => {
  it("lists contacts with a filter and a limit", async () => {
    const { data, error, response } = await client.GET("/api/v1/contacts", {
      params: { query: { type: "CLIENT", limit: 3 } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.data.length).toBeGreaterThan(0);
    expect(data?.data.length).toBeLessThanOrEqual(3);
    for (const contact of data?.data ?? []) expect(contact.type).toBe("CLIENT");
  });

  it("creates a contact and a product, and reads them back from the lists", async () => {
    const contact = await client.POST("/api/v1/contacts", {
      body: { type: "SUPPLIER", name: "Typed client inc.", email: "typed@example.com" },
    });
    expect(contact.response.status).toBe(201);
    expect(contact.data?.data).toMatchObject({ type: "SUPPLIER", name: "Typed client inc." });

    const product = await client.POST("/api/v1/products", {
      body: { sku: "TYPED-1", name: "Typed service", type: "SERVICE", unitPrice: 12.5 },
    });
    expect(product.response.status).toBe(201);
    expect(product.data?.data).toMatchObject({ sku: "TYPED-1", unitPrice: "12.5000", taxable: true });

    const contacts = await client.GET("/api/v1/contacts", { params: { query: { limit: 1 } } });
    expect(contacts.data?.data[0]?.id).toBe(contact.data?.data.id);
    const products = await client.GET("/api/v1/products", { params: { query: { limit: 1 } } });
    expect(products.data?.data[0]?.id).toBe(product.data?.data.id);
  });

  it("gets §7's envelope, typed, for a refused request", async () => {
    const { data, error, response } = await client.GET("/api/v1/invoices", {
      params: { query: { limit: 201 } },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    if (error?.error.code !== "invalid_request")
      throw new Error(`expected invalid_request: ${response.status}`);
    // Narrowed by its code: only invalid_request carries details.
    expect(Object.keys(error.error.details ?? {})).toEqual(["limit"]);
  });
});

/**
 * Compile-fail checks: each line below must be a type error, or `npm run typecheck` fails on the
 * unused directive. Never called; the type checker is the test.
 */
export function typeErrors(c: Client<paths>): void {
  // @ts-expect-error: a path the document does not have
  void c.GET("/api/v1/contact");
  // @ts-expect-error: a method the path does not have
  void c.PUT("/api/v1/contacts", { body: {} });
  // @ts-expect-error: a field NewContact does not have (emial for email)
  void c.POST("/api/v1/contacts", { body: { type: "CLIENT", name: "x", emial: "a@example.com" } });
  // @ts-expect-error: a type outside the enum
  void c.POST("/api/v1/contacts", { body: { type: "CUSTOMER", name: "x" } });
  // @ts-expect-error: the required name is missing
  void c.POST("/api/v1/contacts", { body: { type: "CLIENT" } });
  // @ts-expect-error: unitPrice is a JSON number, not a string
  void c.POST("/api/v1/products", { body: { sku: "a", name: "b", unitPrice: "1.00" } });
  // @ts-expect-error: limit is an integer, not a string
  void c.GET("/api/v1/invoices", { params: { query: { limit: "50" } } });
  // @ts-expect-error: a status outside the enum
  void c.GET("/api/v1/expenses", { params: { query: { status: "SENT" } } });
}

/** And what the responses are typed as: money is a string, an unset optional is null. */
export async function responseTypes(c: Client<paths>): Promise<void> {
  const { data } = await c.GET("/api/v1/products");
  const price: string | undefined = data?.data[0]?.unitPrice;
  const description: string | null | undefined = data?.data[0]?.description;
  // @ts-expect-error: unitPrice is served as a string, never a number
  const wrong: number | undefined = data?.data[0]?.unitPrice;
  void [price, description, wrong];
}
