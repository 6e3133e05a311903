import { describe, expect, it } from "vitest";
import { controlledReference, ctl } from "../../test-support/control.js";
import { createSandbox, type TestSandbox } from "../../test-support/sandboxes.js";
import type { TestReference } from "../../test-support/reference.js";

// POST /__control/sandboxes with { spec }: one worker builds against a draft of the spec while the
// others use the reference's own (issue 26). API calls go through reference.fetch: the tests' judge of
// supertest answers reads the default document, and a sandbox's answers follow its own spec.

const send = (ref: TestReference, s: TestSandbox, method: string, path: string, body?: unknown) =>
  ref.fetch(`http://localhost${path}`, {
    method,
    headers: { ...s.auth("lumiere-full"), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const tokenOf = (ref: TestReference): TestSandbox => ({
  id: "",
  tokens: {},
  organizations: {},
  auth: (label) => ref.auth(label),
  state: () => ref.state,
});

describe("a sandbox with a spec of its own", () => {
  it("answers by its spec while the default state answers by the reference's", async () => {
    const ref = await controlledReference();
    const draft = await createSandbox(ref, {
      spec: {
        errors: { duplicateSku: { status: 409, code: "conflict" } },
        fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } },
      },
    });
    const product = { sku: "DUP", name: "Thing", unitPrice: 1, currency: "CAD" };
    const made = await send(ref, draft, "POST", "/api/v1/products", product);
    expect(made.status).toBe(201);
    expect(((await made.json()) as { data: { currency: string } }).data.currency).toBe("CAD");
    const again = await send(ref, draft, "POST", "/api/v1/products", product);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("conflict");

    const plain = tokenOf(ref);
    const refused = await send(ref, plain, "POST", "/api/v1/products", product);
    expect(refused.status).toBe(400);
    expect(
      ((await refused.json()) as { error: { details: Record<string, string[]> } }).error.details,
    ).toEqual({
      currency: ["is not a known field"],
    });
  });

  it("is merged over the reference's own spec (--spec), not over the default file", async () => {
    const ref = await controlledReference({ spec: { limits: { page: { max: 500 } } } });
    const draft = await createSandbox(ref, { spec: { limits: { contact: { name: 100 } } } });
    expect(draft.state().spec.limits.page.max).toBe(500);
    expect(draft.state().spec.limits.contact.name).toBe(100);
    expect((await send(ref, draft, "GET", "/api/v1/contacts?limit=500")).status).toBe(200);
    const long = await send(ref, draft, "POST", "/api/v1/contacts", {
      type: "CLIENT",
      name: "x".repeat(101),
    });
    expect(long.status).toBe(400);
    // A sandbox without one serves the reference's spec.
    const other = await createSandbox(ref);
    expect(other.state().spec).toBe(ref.spec);
  });

  it("refuses a bad variant with 400 in the envelope, details keyed by the body's path to each bad key", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref)
      .post("/sandboxes", { spec: { limits: { page: { max: 10 }, nope: 1 } } })
      .expect(400);
    const error = (
      res.body as { error: { code: string; message: string; details: Record<string, string[]> } }
    ).error;
    expect(error.code).toBe("invalid_request");
    expect(error.details).toEqual({
      "spec.limits.nope": ["is not a key of the spec file"],
      "spec.limits.page.max": ["must be at least limits.page.default (50)"],
    });
    expect(error.message).toMatch(/^spec is not a valid spec: /);
    expect(ref.sandboxes.size).toBe(0);
  });

  it("refuses a variant that takes away an enumeration value the fixtures use, and a spec that is no object", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref)
      .post("/sandboxes", { spec: { enums: { expenseStatuses: ["DRAFT", "APPROVED", "PAID"] } } })
      .expect(400);
    expect(Object.keys((res.body as { error: { details: object } }).error.details)).toEqual([
      "spec.enums.expenseStatuses",
    ]);
    await ctl(ref)
      .post("/sandboxes", { spec: [1] })
      .expect(400);
    expect(ref.sandboxes.size).toBe(0);
  });

  it("is there in process too: reference.control.createSandbox({ spec })", async () => {
    const ref = await controlledReference();
    const sandbox = ref.control.createSandbox({ spec: { limits: { rate: { requests: 7 } } } });
    const state = ref.sandboxes.list().find((s) => s.id === sandbox.id)?.state;
    expect(state?.rateLimits.limit).toBe(7);
  });
});
