import request from "supertest";
import { describe, expect } from "vitest";
import { BOUND } from "./handlers.js";
import { exchange, expectEnvelope, only, rawRequest } from "../../test-support/raw-http.js";
import {
  ENDPOINTS,
  describeEndpoint,
  expectData,
  expectContactRefused,
  expectError,
  referenceTest,
  testReference,
  validBody,
  type Endpoint,
  type TestReference,
} from "../../test-support/reference.js";

const it = referenceTest();

const CONTACTS = "/api/v1/contacts";

/** Sends an endpoint's request (a valid body for a POST) with the given headers. */
function call(ref: TestReference, endpoint: Endpoint, headers: Record<string, string>) {
  const req = request(ref.app)[endpoint.method](endpoint.path).set(headers);
  const body = validBody(endpoint);
  return body === undefined ? req : req.send(body);
}

describe("token states (§5.6, §3)", () => {
  interface Row {
    state: string;
    /** Prepares the reference and returns the request to send. */
    send: (ref: TestReference) => request.Test;
  }
  const get = (ref: TestReference, headers: Record<string, string> = {}, path = CONTACTS) =>
    request(ref.app).get(path).set(headers);
  const full = (ref: TestReference) => ref.token("lumiere-full");

  const rows: Row[] = [
    { state: "missing header", send: (ref: TestReference) => get(ref) },
    { state: "empty header", send: (ref: TestReference) => get(ref, { Authorization: "" }) },
    { state: "Basic scheme", send: (ref: TestReference) => get(ref, { Authorization: "Basic x" }) },
    {
      state: "Basic scheme with a valid token",
      send: (ref: TestReference) => get(ref, { Authorization: `Basic ${full(ref)}` }),
    },
    { state: "Bearer alone", send: (ref: TestReference) => get(ref, { Authorization: "Bearer" }) },
    { state: "Bearer and a space", send: (ref: TestReference) => get(ref, { Authorization: "Bearer " }) },
    {
      state: "the token without a scheme",
      send: (ref: TestReference) => get(ref, { Authorization: full(ref) }),
    },
    {
      state: "two spaces after Bearer",
      send: (ref: TestReference) => get(ref, { Authorization: `Bearer  ${full(ref)}` }),
    },
    {
      state: "a trailing word",
      send: (ref: TestReference) => get(ref, { Authorization: `Bearer ${full(ref)} x` }),
    },
    {
      state: "another scheme name",
      send: (ref: TestReference) => get(ref, { Authorization: `Token ${full(ref)}` }),
    },
    {
      state: "wrong token prefix",
      send: (ref: TestReference) =>
        get(ref, { Authorization: `Bearer xyz_${full(ref).slice("acct_".length)}` }),
    },
    {
      state: "truncated token",
      send: (ref: TestReference) => get(ref, { Authorization: `Bearer ${full(ref).slice(0, -1)}` }),
    },
    {
      state: "token with a changed last character",
      send: (ref: TestReference) => get(ref, { Authorization: `Bearer ${full(ref)}X` }),
    },
    {
      state: "unknown well-formed token",
      send: (ref: TestReference) => get(ref, { Authorization: `Bearer acct_${"Q".repeat(40)}` }),
    },
    { state: "revoked (fixture)", send: (ref: TestReference) => get(ref, ref.auth("lumiere-revoked")) },
    { state: "expired (fixture)", send: (ref: TestReference) => get(ref, ref.auth("lumiere-expired")) },
    {
      state: "expired at its expiry instant (clock moved)",
      send: (ref: TestReference) => {
        ref.clock.set("2099-12-31T00:00:00.000Z");
        return get(ref, ref.auth("lumiere-expiring"));
      },
    },
    {
      state: "expired long after its expiry (clock moved)",
      send: (ref: TestReference) => {
        ref.clock.set("2100-06-01T00:00:00.000Z");
        return get(ref, ref.auth("lumiere-expiring"));
      },
    },
    {
      state: "revoked at runtime",
      send: (ref: TestReference) => {
        ref.tokens.revoke(ref.tokenId("lumiere-full"));
        return get(ref, ref.auth("lumiere-full"));
      },
    },
    {
      state: "token in the query string (access_token)",
      send: (ref: TestReference) => get(ref, {}, `${CONTACTS}?access_token=${full(ref)}`),
    },
    {
      state: "token in the query string (token)",
      send: (ref: TestReference) => get(ref, {}, `${CONTACTS}?token=${full(ref)}`),
    },
  ];

  it.for(rows)("answers $state with 401 unauthorized and WWW-Authenticate", async ({ send }, { ref }) => {
    const res = await send(ref);
    expectError(res, 401, "unauthorized");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
  });

  const everyEndpoint = ENDPOINTS.flatMap((endpoint) =>
    [null, "lumiere-revoked", "lumiere-expired"].map((label) => ({
      endpoint,
      label,
      name: describeEndpoint(endpoint),
    })),
  );
  it.for(everyEndpoint)(
    "answers $name with 401 to $label (null: no token)",
    async ({ endpoint, label }, { ref }) => {
      const res = await call(ref, endpoint, label === null ? {} : ref.auth(label));
      expectError(res, 401, "unauthorized");
      expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    },
  );

  it.for([
    { token: (ref: TestReference) => `xyz_${full(ref).slice("acct_".length)}`, what: "another prefix" },
    {
      token: (ref: TestReference) => `ACCT_${full(ref).slice("acct_".length)}`,
      what: "the prefix in another case",
    },
    {
      token: (ref: TestReference) => full(ref).slice(0, "acct_".length + 31),
      what: "31 characters after the prefix",
    },
    { token: (ref: TestReference) => `${full(ref).slice(0, -1)}-`, what: "a character outside base62" },
  ])(
    "calls a well-formed header whose token has $what an invalid token, not a malformed header",
    async ({ token }, { ref }) => {
      const res = await get(ref, { Authorization: `Bearer ${token(ref)}` });
      expectError(res, 401, "unauthorized");
      expect(res.body.error.message).toBe("Invalid token");
      expect(res.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
    },
  );

  it.for([
    { header: (ref: TestReference) => `Token ${full(ref)}`, what: "another scheme" },
    { header: (ref: TestReference) => `Bearer  ${full(ref)}`, what: "two spaces" },
    { header: () => "Bearer", what: "no token" },
  ])("calls a header that is not Bearer <token> ($what) malformed", async ({ header }, { ref }) => {
    const res = await get(ref, { Authorization: header(ref) });
    expectError(res, 401, "unauthorized");
    expect(res.body.error.message).toBe("Malformed Authorization header: expected Bearer <token>");
  });

  it.for(["bearer", "BEARER", "bEaReR"])(
    "accepts the scheme written %s (RFC 9110)",
    async (scheme, { ref }) => {
      const res = await request(ref.app)
        .get(CONTACTS)
        .set("Authorization", `${scheme} ${ref.token("lumiere-full")}`);
      expectData(res, 200);
    },
  );

  it("accepts lumiere-expiring one millisecond before its expiry", async ({ ref }) => {
    ref.clock.set(new Date("2099-12-31T00:00:00.000Z").getTime() - 1);
    expectData(await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring")), 200);
  });

  it("refuses a token revoked at runtime from the very next request, for good", async ({ ref }) => {
    expectData(await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full")), 200);
    ref.tokens.revoke(ref.tokenId("lumiere-full"));
    expectError(await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full")), 401, "unauthorized");
    ref.clock.advance(365 * 86_400_000);
    const later = await request(ref.app)
      .post(CONTACTS)
      .set(ref.auth("lumiere-full"))
      .send({ type: "CLIENT", name: "x" });
    expectError(later, 401, "unauthorized");
  });

  it("revoking one token leaves the others of the organization working", async ({ ref }) => {
    ref.tokens.revoke(ref.tokenId("lumiere-full"));
    expectData(await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-contacts-read")), 200);
  });
});

describe("scopes (§5.6)", () => {
  it("the server's routes are exactly §4's endpoints, each with its scope", () => {
    const routes = Object.values(BOUND).map(({ endpoint: { method, path, scope } }) => ({
      method,
      path,
      scope,
    }));
    expect(routes).toEqual(ENDPOINTS);
  });

  const labels = [
    "lumiere-contacts-read",
    "lumiere-contacts-write",
    "lumiere-products-read",
    "lumiere-products-write",
    "lumiere-invoices-read",
    "lumiere-invoices-write",
    "lumiere-expenses-read",
    "lumiere-expenses-write",
    "lumiere-no-scope",
    "lumiere-full",
  ];

  it("the fixture tokens hold the scopes their labels say", async () => {
    const reference = await testReference();
    const scopes = (label: string) => reference.manifest.tokens.find((t) => t.label === label)?.scopes;
    for (const label of labels.slice(0, 8)) {
      expect(scopes(label)).toEqual([label.replace(/^lumiere-/, "").replace("-", ":")]);
    }
    expect(scopes("lumiere-no-scope")).toEqual([]);
    expect(scopes("lumiere-full")).toHaveLength(8);
  });

  const matrix = ENDPOINTS.flatMap((endpoint) =>
    labels.map((label) => ({ endpoint, label, name: describeEndpoint(endpoint) })),
  );

  it.each(matrix)("$name with $label", async ({ endpoint, label }) => {
    const own = await testReference();
    const scopes = own.manifest.tokens.find((t) => t.label === label)?.scopes ?? [];
    const res = await call(own, endpoint, own.auth(label));
    if (scopes.includes(endpoint.scope)) {
      expectData(res, endpoint.method === "get" ? 200 : 201);
    } else {
      const error = expectError(res, 403, "forbidden");
      expect(error.message).toContain(endpoint.scope);
    }
  });

  it("stores nothing when a POST is refused for its scope", async ({ ref }) => {
    await expectContactRefused(ref, "lumiere-contacts-read", 403, "forbidden");
  });
});

describe("plans (§7, spec-gaps #25)", () => {
  it.for(ENDPOINTS.map((endpoint) => ({ endpoint, name: describeEndpoint(endpoint) })))(
    "refuses petitpas-full, whose plan has no API access, on $name with 403",
    async ({ endpoint }, { ref }) => {
      const error = expectError(await call(ref, endpoint, ref.auth("petitpas-full")), 403, "forbidden");
      expect(error.message).toMatch(/plan/i);
    },
  );

  it("stores nothing for a plan-less organization", async ({ ref }) => {
    const contacts = ref.store.countContacts("org_petitpas");
    const products = ref.store.listProducts("org_petitpas", { limit: 1000 }).length;
    await call(ref, ENDPOINTS[1] as Endpoint, ref.auth("petitpas-full"));
    await call(ref, ENDPOINTS[3] as Endpoint, ref.auth("petitpas-full"));
    expect(ref.store.countContacts("org_petitpas")).toBe(contacts);
    expect(ref.store.listProducts("org_petitpas", { limit: 1000 })).toHaveLength(products);
  });
});

describe("usage: request count and last use (§5.7, spec-gaps #28)", () => {
  const usage = (ref: TestReference, label: string) => {
    const view = ref.tokens.get(ref.tokenId(label));
    if (view === undefined) throw new Error(`no token ${label}`);
    return { requestCount: view.requestCount, lastUsedAt: view.lastUsedAt?.toISOString() ?? null };
  };

  it.for<[string, string, "get" | "post" | "put", string, string | undefined, number]>([
    // outcome, token, method, path, JSON body, status
    ["200 list", "lumiere-full", "get", CONTACTS, undefined, 200],
    ["201 creation", "lumiere-full", "post", CONTACTS, '{"type":"CLIENT","name":"x"}', 201],
    ["400 invalid query", "lumiere-full", "get", `${CONTACTS}?limit=0`, undefined, 400],
    ["400 malformed body", "lumiere-full", "post", CONTACTS, "{", 400],
    ["404 unknown path", "lumiere-full", "get", "/api/v1/nothing", undefined, 404],
    ["404 PUT", "lumiere-full", "put", CONTACTS, undefined, 404],
    ["403 missing scope", "lumiere-contacts-read", "get", "/api/v1/products", undefined, 403],
    ["403 plan without API access", "petitpas-full", "get", CONTACTS, undefined, 403],
  ])(
    "counts a request that ends in %s and records its instant",
    async ([_outcome, label, method, path, body, status], { ref }) => {
      const before = usage(ref, label);
      ref.clock.advance(90_000);
      const req = request(ref.app)[method](path).set(ref.auth(label));
      const res = await (body === undefined ? req : req.set("Content-Type", "application/json").send(body));
      expect(res.status).toBe(status);
      expect(usage(ref, label)).toEqual({
        requestCount: before.requestCount + 1,
        lastUsedAt: ref.clock.now().toISOString(),
      });
    },
  );

  it("counts every request, one each, and keeps the last instant", async ({ ref }) => {
    expect(usage(ref, "lumiere-full")).toEqual({ requestCount: 0, lastUsedAt: null });
    for (let i = 1; i <= 5; i += 1) {
      ref.clock.advance(1_000);
      await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
      expect(usage(ref, "lumiere-full")).toEqual({
        requestCount: i,
        lastUsedAt: ref.clock.now().toISOString(),
      });
    }
  });

  it("counts lower-case bearer like any other", async ({ ref }) => {
    await request(ref.app)
      .get(CONTACTS)
      .set("Authorization", `bearer ${ref.token("lumiere-full")}`);
    expect(usage(ref, "lumiere-full").requestCount).toBe(1);
  });

  it.for(["lumiere-revoked", "lumiere-expired"])(
    "does not count requests with %s",
    async (label, { ref }) => {
      const before = usage(ref, label);
      await request(ref.app).get(CONTACTS).set(ref.auth(label));
      expect(usage(ref, label)).toEqual(before);
    },
  );

  it("stops counting a token once it has expired", async ({ ref }) => {
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring"));
    const counted = usage(ref, "lumiere-expiring");
    expect(counted.requestCount).toBe(1);
    ref.clock.set("2099-12-31T00:00:00.000Z");
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring"));
    expect(usage(ref, "lumiere-expiring")).toEqual(counted);
  });

  it("stops counting a token once it is revoked", async ({ ref }) => {
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
    ref.tokens.revoke(ref.tokenId("lumiere-full"));
    ref.clock.advance(1_000);
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
    expect(usage(ref, "lumiere-full").requestCount).toBe(1);
  });

  it("counts nothing for requests without a usable token", async ({ ref }) => {
    const all = () => ref.manifest.tokens.map((t) => usage(ref, t.label));
    const before = all();
    await request(ref.app).get(CONTACTS);
    await request(ref.app)
      .get(CONTACTS)
      .set("Authorization", `Bearer acct_${"Q".repeat(40)}`);
    await request(ref.app).get(`${CONTACTS}?access_token=${ref.token("lumiere-full")}`);
    expect(all()).toEqual(before);
  });

  it("counts a request against its own token only", async ({ ref }) => {
    await request(ref.app).get(CONTACTS).set(ref.auth("boreal-full"));
    expect(usage(ref, "boreal-full").requestCount).toBe(1);
    expect(usage(ref, "lumiere-full").requestCount).toBe(0);
  });
});

/** The reference behind its own node:http server, whose port each test of the block takes. */
const served = it.extend("port", ({ ref, serve }) => serve(ref.app));

describe("two Authorization headers (RFC 9110 §5.3: one value)", () => {
  // Node keeps only the first in req.headers, so only raw bytes over a socket show the second.

  const send = (port: number, ...values: string[]) =>
    exchange(
      port,
      rawRequest(`GET ${CONTACTS} HTTP/1.1`, [
        "Host: 127.0.0.1",
        ...values.map((v) => `Authorization: ${v}`),
      ]),
    );

  served.for([
    {
      case: "the same valid token twice",
      values: (ref: TestReference) => [
        `Bearer ${ref.token("lumiere-full")}`,
        `Bearer ${ref.token("lumiere-full")}`,
      ],
    },
    {
      case: "a valid token, then an unknown one",
      values: (ref: TestReference) => [
        `Bearer ${ref.token("lumiere-full")}`,
        `Bearer acct_${"Q".repeat(40)}`,
      ],
    },
    {
      case: "an unknown token, then a valid one",
      values: (ref: TestReference) => [
        `Bearer acct_${"Q".repeat(40)}`,
        `Bearer ${ref.token("lumiere-full")}`,
      ],
    },
    {
      case: "a valid token, then an empty header",
      values: (ref: TestReference) => [`Bearer ${ref.token("lumiere-full")}`, ""],
    },
    {
      case: "two tokens of two organizations",
      values: (ref: TestReference) => [
        `Bearer ${ref.token("lumiere-full")}`,
        `Bearer ${ref.token("boreal-full")}`,
      ],
    },
  ])("refuses $case with 401 unauthorized", async ({ values }, { ref, port }) => {
    const res = only(await send(port, ...values(ref)));
    const error = expectEnvelope(res, 401, "unauthorized");
    expect(error.message).toMatch(/Authorization/);
    expect(res.headers.get("www-authenticate")).toEqual(['Bearer error="invalid_request"']);
  });

  served("counts the refused request against neither token", async ({ ref, port }) => {
    const count = () => ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount;
    const before = count();
    await send(port, `Bearer ${ref.token("lumiere-full")}`, `Bearer ${ref.token("lumiere-full")}`);
    expect(count()).toBe(before);
  });

  served("serves the same request with the header once", async ({ ref, port }) => {
    expect(only(await send(port, `Bearer ${ref.token("lumiere-full")}`)).status).toBe(200);
  });
});
