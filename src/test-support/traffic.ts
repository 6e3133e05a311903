import fc from "fast-check";
import type { TestReference } from "./reference.js";

// Random traffic for a reference: API requests with every kind of credential, pre-flights and control
// calls (faults of every kind, resets, clock moves, journal reads), as sequences fast-check draws.

/** The control key the references receiving this traffic are started with. */
export const TRAFFIC_CONTROL_KEY = "ctl_equivalence-0123456789";

export interface Step {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

const LABELS = [
  "lumiere-full",
  "lumiere-full-2",
  "boreal-full",
  "lumiere-contacts-read",
  "lumiere-contacts-write",
  "lumiere-products-write",
  "lumiere-no-scope",
  "lumiere-revoked",
  "lumiere-expired",
  "lumiere-expiring",
  "petitpas-full",
] as const;

type Credential =
  | { kind: "label"; label: (typeof LABELS)[number] }
  | { kind: "raw"; value: string }
  | { kind: "none" };

const credential: fc.Arbitrary<Credential> = fc.oneof(
  // One token more often than the others, so that its rate limit runs out within a sequence.
  { weight: 4, arbitrary: fc.constant({ kind: "label" as const, label: "lumiere-full" as const }) },
  { weight: 4, arbitrary: fc.constantFrom(...LABELS).map((label) => ({ kind: "label" as const, label })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "Bearer acct_0000000000000000000000000000000000000000",
        "Bearer short",
        "Basic dXNlcjpwYXNz",
        "Bearer a, Bearer b",
        `Bearer ${TRAFFIC_CONTROL_KEY}`,
      )
      .map((value) => ({ kind: "raw" as const, value })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
);

const LIST_PATHS = ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"];
const OTHER_PATHS = ["/api/v1/nowhere", "/api/v1/contacts/", "/API/v1/contacts", "/api/v2/contacts"];

const query = fc
  .record(
    {
      limit: fc.constantFrom("1", "2", "50", "200", "0", "201", "abc", "050"),
      type: fc.constantFrom("CLIENT", "SUPPLIER", "BOTH", "client"),
      status: fc.constantFrom("PAID", "DRAFT", "OVERDUE", "nope"),
      before: fc.constantFrom("2026-10-30", "2026-10-30T00:00:00.000Z", "2026-10-30T12:00", "yesterday"),
    },
    { requiredKeys: [] },
  )
  .map((q) => {
    const search = new URLSearchParams(q as Record<string, string>).toString();
    return search === "" ? "" : `?${search}`;
  });

interface Body {
  contentType: string | undefined;
  text: string;
}

const contactBody: fc.Arbitrary<Body> = fc.oneof(
  fc.constantFrom("CLIENT", "SUPPLIER", "BOTH").map((type) => ({
    contentType: "application/json",
    text: JSON.stringify({ type, name: `Contact ${type}` }),
  })),
  fc.constantFrom(
    { contentType: "application/json", text: JSON.stringify({ type: "CLIENT", name: "x".repeat(201) }) },
    { contentType: "application/json", text: JSON.stringify({ type: "CLIENT", name: "A", emial: "a@b" }) },
    { contentType: "application/json", text: '{"type":"CLIENT",' },
    { contentType: "text/plain", text: JSON.stringify({ type: "CLIENT", name: "A" }) },
    { contentType: undefined, text: JSON.stringify({ type: "CLIENT", name: "A" }) },
    { contentType: "application/json", text: "" },
    { contentType: "application/json", text: "[]" },
  ),
);

const productBody: fc.Arbitrary<Body> = fc.oneof(
  // Three skus only, so that duplicates (400, §4) come up.
  fc
    .record({
      sku: fc.constantFrom("SKU-A", "SKU-B", "SKU-C"),
      price: fc.constantFrom("0", "12.5", "1.2345"),
    })
    .map(({ sku, price }) => ({
      contentType: "application/json",
      text: `{"sku":"${sku}","name":"Product ${sku}","unitPrice":${price}}`,
    })),
  fc.constantFrom(
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":1.23456}' },
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":"12"}' },
    { contentType: "application/json", text: '{"sku":"SKU-X","name":"P","unitPrice":-1}' },
  ),
);

const withBody = (headers: Record<string, string>, body: Body): Pick<Step, "headers" | "body"> => ({
  headers: body.contentType === undefined ? headers : { ...headers, "Content-Type": body.contentType },
  body: body.text,
});

const apiStep: fc.Arbitrary<{ step: Step; credential: Credential }> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ path: fc.constantFrom(...LIST_PATHS), query, credential })
      .map(({ path, query: q, credential: c }) => ({
        step: { method: "GET", path: `${path}${q}`, headers: {} },
        credential: c,
      })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ body: contactBody, credential }).map(({ body, credential: c }) => ({
      step: { method: "POST", path: "/api/v1/contacts", ...withBody({}, body) },
      credential: c,
    })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ body: productBody, credential }).map(({ body, credential: c }) => ({
      step: { method: "POST", path: "/api/v1/products", ...withBody({}, body) },
      credential: c,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
        path: fc.constantFrom(...OTHER_PATHS, "/api/v1/invoices", "/api/v1/expenses", "/api/v1/contacts"),
        credential,
      })
      .map(({ method, path, credential: c }) => ({ step: { method, path, headers: {} }, credential: c })),
  },
);

export const authorize = (
  { step, credential: c }: { step: Step; credential: Credential },
  ref: TestReference,
) => {
  if (c.kind === "none") return step;
  const value = c.kind === "raw" ? c.value : `Bearer ${ref.token(c.label)}`;
  return { ...step, headers: { ...step.headers, Authorization: value } };
};

const preflight: fc.Arbitrary<Step> = fc
  .record({
    path: fc.constantFrom(...LIST_PATHS, ...OTHER_PATHS),
    method: fc.constantFrom("GET", "POST", "DELETE"),
    headers: fc.constantFrom("authorization", "authorization,content-type", "x-custom"),
  })
  .map(({ path, method, headers }) => ({
    method: "OPTIONS",
    path,
    headers: {
      Origin: "http://localhost:5173",
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": headers,
    },
  }));

/** Every kind of fault of the control surface: a status, a 429 with Retry-After, a delay, a drop. */
const fault = fc
  .record({
    match: fc.constantFrom(
      {},
      { path: "/api/v1/contacts" },
      { method: "GET" },
      { method: "POST", path: "/api/v1/products" },
      { token: "lumiere-full" },
      { organization: "org_boreal" },
    ),
    times: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ match, times }) => ({ ...match, times }))
  .chain((match) =>
    fc.oneof(
      fc.constantFrom(400, 401, 403, 404, 500).map((status) => ({ ...match, status })),
      fc.integer({ min: 0, max: 30 }).map((retryAfter) => ({ ...match, code: "rate_limited", retryAfter })),
      fc.integer({ min: 1, max: 15 }).map((delayMs) => ({ ...match, delayMs })),
      fc.constant({ ...match, drop: true }),
    ),
  );

const control = (method: string, path: string, body?: object): Step => ({
  method,
  path: `/__control${path}`,
  headers: {
    Authorization: `Bearer ${TRAFFIC_CONTROL_KEY}`,
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
  },
  body: body === undefined ? undefined : JSON.stringify(body),
});

const controlStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fault.map((f) => control("POST", "/faults", f)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom({}, { organization: "org_lumiere" }, { organization: "nowhere" })
      .map((b) => control("POST", "/reset", b)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom({ advance: "PT61S" }, { advance: "P1D" }, { frozen: true }, { advance: "soon" })
      .map((b) => control("PUT", "/clock", b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("", "?limit=3", "?path=/api/v1/contacts", "?status=429", "?limit=0")
      .map((q) => control("GET", `/journal${q}`)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      control("GET", "/"),
      control("GET", "/faults"),
      control("DELETE", "/faults"),
      control("DELETE", "/journal"),
      control("GET", "/clock"),
      { ...control("GET", "/faults"), headers: { Authorization: "Bearer not-the-key" } },
    ),
  },
);

export type Planned =
  | { kind: "api"; api: { step: Step; credential: Credential } }
  | { kind: "plain"; step: Step };

export const sequence: fc.Arbitrary<Planned[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: apiStep.map((api) => ({ kind: "api" as const, api })) },
    { weight: 1, arbitrary: preflight.map((step) => ({ kind: "plain" as const, step })) },
    { weight: 3, arbitrary: controlStep.map((step) => ({ kind: "plain" as const, step })) },
  ),
  { minLength: 1, maxLength: 40, size: "medium" },
);
