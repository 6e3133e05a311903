import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { BOUND } from "./handlers.js";
import { exchange, expectEnvelope, only, rawRequest } from "../../test-support/raw-http.js";
import {
  ENDPOINTS,
  describeEndpoint,
  expectData,
  expectError,
  testReference,
  validBody,
  type Endpoint,
  type TestReference,
} from "../../test-support/reference.js";
import { servePerTest } from "../../test-support/serve.js";

let ref: TestReference;
beforeEach(async () => {
  ref = await testReference();
});

const CONTACTS = "/api/v1/contacts";

/** Sends an endpoint's request (a valid body for a POST) with the given headers. */
function call(endpoint: Endpoint, headers: Record<string, string>, reference: TestReference = ref) {
  const req = request(reference.app)[endpoint.method](endpoint.path).set(headers);
  const body = validBody(endpoint);
  return body === undefined ? req : req.send(body);
}

describe("token states (§5.6, §3)", () => {
  interface Row {
    state: string;
    /** Prepares the reference and returns the request to send. */
    send: () => request.Test;
  }
  const get = (headers: Record<string, string> = {}, path = CONTACTS) =>
    request(ref.app).get(path).set(headers);
  const full = () => ref.token("lumiere-full");

  const rows: Row[] = [
    { state: "missing header", send: () => get() },
    { state: "empty header", send: () => get({ Authorization: "" }) },
    { state: "Basic scheme", send: () => get({ Authorization: "Basic x" }) },
    { state: "Basic scheme with a valid token", send: () => get({ Authorization: `Basic ${full()}` }) },
    { state: "Bearer alone", send: () => get({ Authorization: "Bearer" }) },
    { state: "Bearer and a space", send: () => get({ Authorization: "Bearer " }) },
    { state: "the token without a scheme", send: () => get({ Authorization: full() }) },
    { state: "two spaces after Bearer", send: () => get({ Authorization: `Bearer  ${full()}` }) },
    { state: "a trailing word", send: () => get({ Authorization: `Bearer ${full()} x` }) },
    { state: "another scheme name", send: () => get({ Authorization: `Token ${full()}` }) },
    {
      state: "wrong token prefix",
      send: () => get({ Authorization: `Bearer xyz_${full().slice("acct_".length)}` }),
    },
    { state: "truncated token", send: () => get({ Authorization: `Bearer ${full().slice(0, -1)}` }) },
    { state: "token with a changed last character", send: () => get({ Authorization: `Bearer ${full()}X` }) },
    {
      state: "unknown well-formed token",
      send: () => get({ Authorization: `Bearer acct_${"Q".repeat(40)}` }),
    },
    { state: "revoked (fixture)", send: () => get(ref.auth("lumiere-revoked")) },
    { state: "expired (fixture)", send: () => get(ref.auth("lumiere-expired")) },
    {
      state: "expired at its expiry instant (clock moved)",
      send: () => {
        ref.clock.set("2099-12-31T00:00:00.000Z");
        return get(ref.auth("lumiere-expiring"));
      },
    },
    {
      state: "expired long after its expiry (clock moved)",
      send: () => {
        ref.clock.set("2100-06-01T00:00:00.000Z");
        return get(ref.auth("lumiere-expiring"));
      },
    },
    {
      state: "revoked at runtime",
      send: () => {
        ref.tokens.revoke(ref.tokenId("lumiere-full"));
        return get(ref.auth("lumiere-full"));
      },
    },
    {
      state: "token in the query string (access_token)",
      send: () => get({}, `${CONTACTS}?access_token=${full()}`),
    },
    { state: "token in the query string (token)", send: () => get({}, `${CONTACTS}?token=${full()}`) },
  ];

  it.each(rows)("answers $state with 401 unauthorized and WWW-Authenticate", async ({ send }) => {
    const res = await send();
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
  it.each(everyEndpoint)("answers $name with 401 to $label (null: no token)", async ({ endpoint, label }) => {
    const res = await call(endpoint, label === null ? {} : ref.auth(label));
    expectError(res, 401, "unauthorized");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
  });

  it.each([
    { token: () => `xyz_${full().slice("acct_".length)}`, what: "another prefix" },
    { token: () => `ACCT_${full().slice("acct_".length)}`, what: "the prefix in another case" },
    { token: () => full().slice(0, "acct_".length + 31), what: "31 characters after the prefix" },
    { token: () => `${full().slice(0, -1)}-`, what: "a character outside base62" },
  ])(
    "calls a well-formed header whose token has $what an invalid token, not a malformed header",
    async ({ token }) => {
      const res = await get({ Authorization: `Bearer ${token()}` });
      expectError(res, 401, "unauthorized");
      expect(res.body.error.message).toBe("Invalid token");
      expect(res.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
    },
  );

  it.each([
    { header: () => `Token ${full()}`, what: "another scheme" },
    { header: () => `Bearer  ${full()}`, what: "two spaces" },
    { header: () => "Bearer", what: "no token" },
  ])("calls a header that is not Bearer <token> ($what) malformed", async ({ header }) => {
    const res = await get({ Authorization: header() });
    expectError(res, 401, "unauthorized");
    expect(res.body.error.message).toBe("Malformed Authorization header: expected Bearer <token>");
  });

  it.each(["bearer", "BEARER", "bEaReR"])("accepts the scheme written %s (RFC 9110)", async (scheme) => {
    const res = await request(ref.app)
      .get(CONTACTS)
      .set("Authorization", `${scheme} ${ref.token("lumiere-full")}`);
    expectData(res, 200);
  });

  it("accepts lumiere-expiring one millisecond before its expiry", async () => {
    ref.clock.set(new Date("2099-12-31T00:00:00.000Z").getTime() - 1);
    expectData(await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring")), 200);
  });

  it("refuses a token revoked at runtime from the very next request, for good", async () => {
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

  it("revoking one token leaves the others of the organization working", async () => {
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
    const res = await call(endpoint, own.auth(label), own);
    if (scopes.includes(endpoint.scope)) {
      expectData(res, endpoint.method === "get" ? 200 : 201);
    } else {
      const error = expectError(res, 403, "forbidden");
      expect(error.message).toContain(endpoint.scope);
    }
  });

  it("stores nothing when a POST is refused for its scope", async () => {
    const before = ref.store.countContacts("org_lumiere");
    const res = await request(ref.app)
      .post(CONTACTS)
      .set(ref.auth("lumiere-contacts-read"))
      .send({ type: "CLIENT", name: "x" });
    expectError(res, 403, "forbidden");
    expect(ref.store.countContacts("org_lumiere")).toBe(before);
  });
});

describe("plans (§7, spec-gaps #25)", () => {
  it.each(ENDPOINTS.map((endpoint) => ({ endpoint, name: describeEndpoint(endpoint) })))(
    "refuses petitpas-full, whose plan has no API access, on $name with 403",
    async ({ endpoint }) => {
      const error = expectError(await call(endpoint, ref.auth("petitpas-full")), 403, "forbidden");
      expect(error.message).toMatch(/plan/i);
    },
  );

  it("stores nothing for a plan-less organization", async () => {
    const contacts = ref.store.countContacts("org_petitpas");
    const products = ref.store.listProducts("org_petitpas", { limit: 1000 }).length;
    await call(ENDPOINTS[1] as Endpoint, ref.auth("petitpas-full"));
    await call(ENDPOINTS[3] as Endpoint, ref.auth("petitpas-full"));
    expect(ref.store.countContacts("org_petitpas")).toBe(contacts);
    expect(ref.store.listProducts("org_petitpas", { limit: 1000 })).toHaveLength(products);
  });
});

describe("usage: request count and last use (§5.7, spec-gaps #28)", () => {
  const usage = (label: string) => {
    const view = ref.tokens.get(ref.tokenId(label));
    if (view === undefined) throw new Error(`no token ${label}`);
    return { requestCount: view.requestCount, lastUsedAt: view.lastUsedAt?.toISOString() ?? null };
  };

  it.each([
    { outcome: "200 list", label: "lumiere-full", send: () => request(ref.app).get(CONTACTS), status: 200 },
    {
      outcome: "201 creation",
      label: "lumiere-full",
      send: () => request(ref.app).post(CONTACTS).send({ type: "CLIENT", name: "x" }),
      status: 201,
    },
    {
      outcome: "400 invalid query",
      label: "lumiere-full",
      send: () => request(ref.app).get(`${CONTACTS}?limit=0`),
      status: 400,
    },
    {
      outcome: "400 malformed body",
      label: "lumiere-full",
      send: () => request(ref.app).post(CONTACTS).set("Content-Type", "application/json").send("{"),
      status: 400,
    },
    {
      outcome: "404 unknown path",
      label: "lumiere-full",
      send: () => request(ref.app).get("/api/v1/nothing"),
      status: 404,
    },
    {
      outcome: "404 PUT",
      label: "lumiere-full",
      send: () => request(ref.app).put(CONTACTS),
      status: 404,
    },
    {
      outcome: "403 missing scope",
      label: "lumiere-contacts-read",
      send: () => request(ref.app).get("/api/v1/products"),
      status: 403,
    },
    {
      outcome: "403 plan without API access",
      label: "petitpas-full",
      send: () => request(ref.app).get(CONTACTS),
      status: 403,
    },
  ])("counts a request that ends in $outcome and records its instant", async ({ label, send, status }) => {
    const before = usage(label);
    ref.clock.advance(90_000);
    const res = await send().set(ref.auth(label));
    expect(res.status).toBe(status);
    expect(usage(label)).toEqual({
      requestCount: before.requestCount + 1,
      lastUsedAt: ref.clock.now().toISOString(),
    });
  });

  it("counts every request, one each, and keeps the last instant", async () => {
    expect(usage("lumiere-full")).toEqual({ requestCount: 0, lastUsedAt: null });
    for (let i = 1; i <= 5; i += 1) {
      ref.clock.advance(1_000);
      await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
      expect(usage("lumiere-full")).toEqual({ requestCount: i, lastUsedAt: ref.clock.now().toISOString() });
    }
  });

  it("counts lower-case bearer like any other", async () => {
    await request(ref.app)
      .get(CONTACTS)
      .set("Authorization", `bearer ${ref.token("lumiere-full")}`);
    expect(usage("lumiere-full").requestCount).toBe(1);
  });

  it.each(["lumiere-revoked", "lumiere-expired"])("does not count requests with %s", async (label) => {
    const before = usage(label);
    await request(ref.app).get(CONTACTS).set(ref.auth(label));
    expect(usage(label)).toEqual(before);
  });

  it("stops counting a token once it has expired", async () => {
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring"));
    const counted = usage("lumiere-expiring");
    expect(counted.requestCount).toBe(1);
    ref.clock.set("2099-12-31T00:00:00.000Z");
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-expiring"));
    expect(usage("lumiere-expiring")).toEqual(counted);
  });

  it("stops counting a token once it is revoked", async () => {
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
    ref.tokens.revoke(ref.tokenId("lumiere-full"));
    ref.clock.advance(1_000);
    await request(ref.app).get(CONTACTS).set(ref.auth("lumiere-full"));
    expect(usage("lumiere-full").requestCount).toBe(1);
  });

  it("counts nothing for requests without a usable token", async () => {
    const all = () => ref.manifest.tokens.map((t) => usage(t.label));
    const before = all();
    await request(ref.app).get(CONTACTS);
    await request(ref.app)
      .get(CONTACTS)
      .set("Authorization", `Bearer acct_${"Q".repeat(40)}`);
    await request(ref.app).get(`${CONTACTS}?access_token=${ref.token("lumiere-full")}`);
    expect(all()).toEqual(before);
  });

  it("counts a request against its own token only", async () => {
    await request(ref.app).get(CONTACTS).set(ref.auth("boreal-full"));
    expect(usage("boreal-full").requestCount).toBe(1);
    expect(usage("lumiere-full").requestCount).toBe(0);
  });
});

describe("two Authorization headers (RFC 9110 §5.3: one value)", () => {
  // Node keeps only the first in req.headers, so only raw bytes over a socket show the second.
  const serve = servePerTest();
  let port: number;
  beforeEach(async () => {
    port = await serve(ref.app);
  });

  const send = (...values: string[]) =>
    exchange(
      port,
      rawRequest(`GET ${CONTACTS} HTTP/1.1`, [
        "Host: 127.0.0.1",
        ...values.map((v) => `Authorization: ${v}`),
      ]),
    );

  it.each([
    {
      case: "the same valid token twice",
      values: () => [`Bearer ${ref.token("lumiere-full")}`, `Bearer ${ref.token("lumiere-full")}`],
    },
    {
      case: "a valid token, then an unknown one",
      values: () => [`Bearer ${ref.token("lumiere-full")}`, `Bearer acct_${"Q".repeat(40)}`],
    },
    {
      case: "an unknown token, then a valid one",
      values: () => [`Bearer acct_${"Q".repeat(40)}`, `Bearer ${ref.token("lumiere-full")}`],
    },
    {
      case: "a valid token, then an empty header",
      values: () => [`Bearer ${ref.token("lumiere-full")}`, ""],
    },
    {
      case: "two tokens of two organizations",
      values: () => [`Bearer ${ref.token("lumiere-full")}`, `Bearer ${ref.token("boreal-full")}`],
    },
  ])("refuses $case with 401 unauthorized", async ({ values }) => {
    const res = only(await send(...values()));
    const error = expectEnvelope(res, 401, "unauthorized");
    expect(error.message).toMatch(/Authorization/);
    expect(res.headers.get("www-authenticate")).toEqual(['Bearer error="invalid_request"']);
  });

  it("counts the refused request against neither token", async () => {
    const count = () => ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount;
    const before = count();
    await send(`Bearer ${ref.token("lumiere-full")}`, `Bearer ${ref.token("lumiere-full")}`);
    expect(count()).toBe(before);
  });

  it("serves the same request with the header once", async () => {
    expect(only(await send(`Bearer ${ref.token("lumiere-full")}`)).status).toBe(200);
  });
});
