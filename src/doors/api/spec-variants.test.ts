import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../openapi/document.js";
import { OpenApiValidator } from "../../test-support/openapi-validator.js";
import { testReference, type TestReference } from "../../test-support/reference.js";

/**
 * The matrix of issue 26 against the reference alone: each variant served by validation, routes,
 * error answers and the rate limit (the kit-vs-reference matrix is the kit's). Every answer is also
 * judged by the variant's own OpenAPI document (Ajv, strict), the one its /openapi.json serves.
 * `rateLimit: undefined` leaves the rate limit to the spec.
 */

const CONTACTS = "/api/v1/contacts";
const PRODUCTS = "/api/v1/products";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { data?: unknown; error?: { code: string; message: string; details?: Record<string, string[]> } };
}

const validators = new WeakMap<TestReference, OpenApiValidator>();

/** A request through `reference.fetch`, its answer judged by the variant's document. */
async function call(
  ref: TestReference,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<Answer> {
  const res = await ref.fetch(`http://localhost${path}`, {
    method,
    headers: {
      ...ref.auth("lumiere-full"),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const headers = Object.fromEntries(res.headers);
  let validator = validators.get(ref);
  if (validator === undefined) {
    validator = new OpenApiValidator(buildOpenApiDocument({ spec: ref.spec }));
    validators.set(ref, validator);
  }
  const verdict = validator.checkResponse({
    method,
    path: path.split("?")[0] ?? path,
    status: res.status,
    headers,
    text,
  });
  expect(verdict, `${method} ${path} ${res.status} ${text.slice(0, 200)}`).toEqual({ ok: true });
  return { status: res.status, headers, body: JSON.parse(text) as Answer["body"] };
}

const post = (ref: TestReference, path: string, body: unknown) => call(ref, "POST", path, body);
const get = (ref: TestReference, path: string) => call(ref, "GET", path);
const items = (a: Answer): Record<string, unknown>[] => a.body.data as Record<string, unknown>[];

function expectData(a: Answer, status: 200 | 201): Record<string, unknown> {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  return a.body.data as Record<string, unknown>;
}

function expectError(a: Answer, status: number, code: string): NonNullable<Answer["body"]["error"]> {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(a.body.error?.code).toBe(code);
  return a.body.error ?? { code: "", message: "" };
}

describe("a spec variant served by the reference (issue 26)", () => {
  it("page max 500: a page of 500 is served, 501 refused with the variant's range", async () => {
    const ref = await testReference({ spec: { limits: { page: { max: 500 } } } });
    for (let i = 0; i < 260; i += 1)
      expectData(await post(ref, CONTACTS, { type: "CLIENT", name: `c${i}` }), 201);
    expect(items(await get(ref, `${CONTACTS}?limit=500`)).length).toBeGreaterThan(260);
    expect(items(await get(ref, CONTACTS)).length).toBe(50);
    const error = expectError(await get(ref, `${CONTACTS}?limit=501`), 400, "invalid_request");
    expect(error.details).toEqual({ limit: ["must be an integer from 1 to 500"] });
  });

  it("60 requests a minute: the 61st within the window is 429, and served again a minute later", async () => {
    const ref = await testReference({ spec: { limits: { rate: { requests: 60 } } }, rateLimit: undefined });
    for (let i = 0; i < 60; i += 1) expect((await get(ref, CONTACTS)).status).toBe(200);
    const refused = await get(ref, CONTACTS);
    expectError(refused, 429, "rate_limited");
    expect(refused.headers["retry-after"]).toBe("60");
    expect(refused.headers["ratelimit-policy"]).toBe('"per-token"; q=60; w=60');
    ref.clock.advance(60_000);
    expect((await get(ref, CONTACTS)).status).toBe(200);
  });

  it("contact name max 100: 100 characters accepted, 101 refused", async () => {
    const ref = await testReference({ spec: { limits: { contact: { name: 100 } } } });
    expectData(await post(ref, CONTACTS, { type: "CLIENT", name: "é".repeat(100) }), 201);
    const error = expectError(
      await post(ref, CONTACTS, { type: "CLIENT", name: "é".repeat(101) }),
      400,
      "invalid_request",
    );
    expect(error.details).toEqual({ name: ["must be at most 100 characters"] });
  });

  it("duplicate sku 409 conflict: the variant's status and code, other refusals unchanged", async () => {
    const ref = await testReference({
      spec: { errors: { duplicateSku: { status: 409, code: "conflict" } } },
    });
    const body = { sku: "DUP-1", name: "Thing", unitPrice: 1 };
    expectData(await post(ref, PRODUCTS, body), 201);
    const res = await post(ref, PRODUCTS, body);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: {
        code: "conflict",
        message: "sku is already used by another product of this organization",
        details: { sku: ["is already used by another product of this organization"] },
      },
    });
    expectError(await post(ref, PRODUCTS, { ...body, sku: "" }), 400, "invalid_request");
  });

  it("an added optional product field currency (string, max 3): accepted, served, null where absent", async () => {
    const ref = await testReference({
      spec: { fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } } },
    });
    const created = expectData(
      await post(ref, PRODUCTS, { sku: "CUR-1", name: "Thing", unitPrice: 2, currency: "CAD" }),
      201,
    );
    expect(created).toMatchObject({ sku: "CUR-1", currency: "CAD" });
    expect(
      expectData(await post(ref, PRODUCTS, { sku: "CUR-2", name: "Other", unitPrice: 2 }), 201),
    ).toMatchObject({
      currency: null,
    });
    const error = expectError(
      await post(ref, PRODUCTS, { sku: "CUR-3", name: "Thing", unitPrice: 2, currency: "CADX" }),
      400,
      "invalid_request",
    );
    expect(error.details).toEqual({ currency: ["must be at most 3 characters"] });
    const listed = items(await get(ref, `${PRODUCTS}?limit=200`));
    expect(listed.find((p) => p.sku === "CUR-1")?.currency).toBe("CAD");
    // Fixture records have no value: null (spec-gaps #4).
    expect(listed.every((p) => "currency" in p)).toBe(true);
    expect(listed.filter((p) => p.currency === null).length).toBe(listed.length - 1);
  });

  it("an added contact type: accepted on creation, filtered on, listed", async () => {
    const ref = await testReference({
      spec: { enums: { contactTypes: ["CLIENT", "SUPPLIER", "BOTH", "PARTNER"] } },
    });
    expectData(await post(ref, CONTACTS, { type: "PARTNER", name: "Ally" }), 201);
    const partners = items(await get(ref, `${CONTACTS}?type=PARTNER`));
    expect(partners.map((c) => [c.type, c.name])).toEqual([["PARTNER", "Ally"]]);
    const error = expectError(await get(ref, `${CONTACTS}?type=OTHER`), 400, "invalid_request");
    expect(error.details).toEqual({ type: ["must be one of CLIENT, SUPPLIER, BOTH, PARTNER"] });
  });
});

describe("added fields of every type (issue 26)", () => {
  const fields = {
    contact: {
      rank: { type: "number", required: true },
      vip: { type: "boolean", required: false },
      tier: { type: "string", required: false, enum: ["GOLD", "SILVER"] },
    },
    product: { weight: { type: "decimal", required: false } },
  };

  it("required enforced, enum enforced, a number and a boolean served as JSON", async () => {
    const ref = await testReference({ spec: { fields } });
    expect(
      expectError(await post(ref, CONTACTS, { type: "CLIENT", name: "A" }), 400, "invalid_request").details,
    ).toEqual({
      rank: ["is required"],
    });
    expect(
      expectError(
        await post(ref, CONTACTS, { type: "CLIENT", name: "A", rank: 1, tier: "BRONZE" }),
        400,
        "invalid_request",
      ).details,
    ).toEqual({ tier: ["must be one of GOLD, SILVER"] });
    const created = expectData(
      await post(ref, CONTACTS, { type: "CLIENT", name: "A", rank: 2.5, vip: true }),
      201,
    );
    // The creation subset carries what was sent, like email and phone (spec-gaps #5).
    expect(created).toMatchObject({ name: "A", rank: 2.5, vip: true });
    expect(created).not.toHaveProperty("tier");
    const listed = items(await get(ref, `${CONTACTS}?limit=1`))[0];
    expect(listed).toMatchObject({ name: "A", rank: 2.5, vip: true, tier: null });
  });

  it("a decimal read exactly and served as a 4-decimal string; 5 decimals refused", async () => {
    const ref = await testReference({ spec: { fields } });
    const res = await post(
      ref,
      PRODUCTS,
      '{"sku":"W-1","name":"Heavy","unitPrice":1,"weight":12345678901.2345}',
    );
    expect(expectData(res, 201)).toMatchObject({ weight: "12345678901.2345" });
    const five = await post(ref, PRODUCTS, '{"sku":"W-2","name":"Heavy","unitPrice":1,"weight":1.00001}');
    expect(expectError(five, 400, "invalid_request").details).toEqual({
      weight: ["must have at most 4 decimal places"],
    });
  });
});
