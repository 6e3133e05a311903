import request from "supertest";
import { describe, expect, it } from "vitest";
import { expectError, testReference } from "../../test-support/reference.js";
import { CONTROL_AUTH, CONTROL_KEY, controlledReference, ctl } from "../../test-support/control.js";
import { CONTROL_TABLE } from "./table.js";

// The control surface is reachable on a developer's machine, so by every web page they visit: it
// wants its own key, sends no CORS headers and refuses what a browser sends from another site.

const cors = (res: request.Response) =>
  Object.keys(res.headers).filter((h) => h.startsWith("access-control-"));

describe("the control surface's key", () => {
  const MISSING = /^The control surface needs Authorization: Bearer <control key>/;
  // What a server left running by an earlier run answers under Playwright's reuseExistingServer.
  const MISMATCH = /^The control key does not match the one this reference was started with/;
  it.each([
    ["no Authorization", {}, MISSING],
    ["a wrong key", { Authorization: "Bearer test-control-key-0123456780" }, MISMATCH],
    ["the key without the scheme", { Authorization: CONTROL_KEY }, MISSING],
    ["another scheme", { Authorization: `Basic ${CONTROL_KEY}` }, MISSING],
    ["an empty bearer", { Authorization: "Bearer " }, MISSING],
  ])(
    "refuses %s with 401, says what is wrong and changes nothing",
    async (_what, headers: Record<string, string>, message) => {
      const ref = await controlledReference();
      const res = await request(ref.app).put("/__control/clock").set(headers).send({ advance: "P1D" });
      expectError(res, 401, "unauthorized");
      expect((res.body as { error: { message: string } }).error.message).toMatch(message);
      expect(ref.control.clock().offsetMs).toBe(0);
    },
  );

  it("refuses an API token: the key and the API's tokens open different doors", async () => {
    const ref = await controlledReference();
    expectError(
      await request(ref.app).post("/__control/reset").set(ref.auth("lumiere-full")),
      401,
      "unauthorized",
    );
    expectError(await request(ref.app).get("/api/v1/contacts").set(CONTROL_AUTH), 401, "unauthorized");
  });

  it("is random at each start when not given", async () => {
    const a = await testReference();
    const b = await testReference();
    expect(a.controlKey).toMatch(/^ctl_[0-9A-Za-z]{32}$/);
    expect(a.controlKey).not.toBe(b.controlKey);
  });

  it("can be turned off: its paths are then the API's, where the key is no token", async () => {
    const ref = await testReference({ controlKey: null });
    expect(ref.controlKey).toBeNull();
    expectError(await ctl(ref).get("/"), 401, "unauthorized");
    expectError(await request(ref.app).get("/__control/").set(ref.auth("lumiere-full")), 404, "not_found");
    expect(ref.control.clock().now).toBe("2026-11-20T12:00:00.000Z"); // in process, still there
  });
});

describe("cross-site and DNS-rebinding refusals", () => {
  it.each([
    ["Host: evil.example (DNS rebinding)", { Host: "evil.example:4010" }],
    ["Host: 127.0.0.1.nip.io", { Host: "127.0.0.1.nip.io" }],
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site (another port)", { "Sec-Fetch-Site": "same-site" }],
    ["Origin of another site", { Origin: "https://evil.example" }],
    ["Origin null (a sandboxed frame)", { Origin: "null" }],
  ])(
    "refuses %s with 403, even with the key, and changes nothing",
    async (_what, headers: Record<string, string>) => {
      const ref = await controlledReference();
      const res = await request(ref.app).post("/__control/reset").set(CONTROL_AUTH).set(headers).send({});
      expectError(res, 403, "forbidden");
      expect(cors(res)).toEqual([]);
    },
  );

  it.each([
    ["localhost", "localhost:4010"],
    ["an IPv4 literal", "127.0.0.1:4010"],
    ["an IPv6 literal", "[::1]:4010"],
    ["a .localhost name", "app.localhost"],
  ])("accepts Host %s", async (_what, host) => {
    const ref = await controlledReference();
    const res = await ctl(ref).get("/clock").set("Host", host);
    expect(res.status).toBe(200);
  });

  it("accepts a host name the server was told it has", async () => {
    const ref = await controlledReference({ allowedHosts: ["devbox.internal"] });
    expect((await ctl(ref).get("/clock").set("Host", "devbox.internal:4010")).status).toBe(200);
  });

  it("accepts its own origin and a request typed in by the developer (Sec-Fetch-Site: none)", async () => {
    const ref = await controlledReference();
    const same = await ctl(ref)
      .get("/clock")
      .set("Host", "127.0.0.1:4010")
      .set("Origin", "http://127.0.0.1:4010")
      .set("Sec-Fetch-Site", "same-origin");
    expect(same.status).toBe(200);
    const typed = await ctl(ref).get("/clock").set("Sec-Fetch-Site", "none");
    expect(typed.status).toBe(200);
  });

  it("sends no CORS headers, on answers, refusals and pre-flights alike", async () => {
    const ref = await controlledReference();
    const answers = [
      await ctl(ref).get("/").set("Origin", "http://127.0.0.1"),
      await request(ref.app).get("/__control/").set("Origin", "http://127.0.0.1"),
      await request(ref.app)
        .options("/__control/reset")
        .set("Origin", "https://evil.example")
        .set("Access-Control-Request-Method", "POST")
        .set("Access-Control-Request-Headers", "authorization, content-type"),
    ];
    for (const res of answers) expect(cors(res), `${res.status} ${res.text}`).toEqual([]);
  });

  it("refuses a body that is not JSON (what an HTML form could send) with 400", async () => {
    const ref = await controlledReference();
    const res = await request(ref.app)
      .put("/__control/clock")
      .set(CONTROL_AUTH)
      .set("Content-Type", "text/plain")
      .send('{"advance":"P1D"}');
    expectError(res, 400, "invalid_request");
    expectError(
      await request(ref.app)
        .put("/__control/clock")
        .set(CONTROL_AUTH)
        .set("Content-Type", "application/json")
        .send("{"),
      400,
      "invalid_request",
    );
    expect(ref.control.clock().offsetMs).toBe(0);
  });
});

describe("doors", () => {
  it.each([
    "/api",
    "/api/v2/contacts",
    "/api/contacts",
    "/nowhere",
    "/API/V1/contacts",
    "/__controls",
    "//api/v1/contacts",
  ])(
    "answers %s, a path no other door claims, as the API: CORS, the token before the path (spec-gaps #26), then 404",
    async (path) => {
      const ref = await controlledReference();
      const res = await request(ref.app).get(path).set("Origin", "https://app.example");
      expectError(res, 401, "unauthorized");
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      const known = await request(ref.app)
        .get(path)
        .set(ref.auth("lumiere-full"))
        .set("Origin", "https://app.example");
      expectError(known, 404, "not_found");
      expect(known.headers["access-control-allow-origin"]).toBe("*");
    },
  );

  it.each(["/docs", "/openapi.json"])(
    "serves %s to the developer only: local Host, same site, no CORS",
    async (path) => {
      const ref = await testReference();
      const ok = await request(ref.app).get(path).set("Host", "127.0.0.1:4010");
      expect(ok.status).toBe(200);
      expect(cors(ok)).toEqual([]);
      expectError(await request(ref.app).get(path).set("Host", "evil.example:4010"), 403, "forbidden");
      expectError(await request(ref.app).get(path).set("Sec-Fetch-Site", "cross-site"), 403, "forbidden");
      // A link followed from the developer's app is a top-level navigation: it reads nothing back.
      const followed = await request(ref.app)
        .get(path)
        .set({ "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" });
      expect(followed.status).toBe(200);
    },
  );
});

describe("GET /__control/: what the surface offers", () => {
  it("lists its operations and the clock, over HTTP as in process", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).get("/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(ref.control.describe())));
    const body = res.body as {
      operations: { name: string; method: string; path: string }[];
      clock: { now: string };
    };
    expect(body.operations.map((o) => `${o.method} ${o.path}`)).toContain("POST /__control/reset");
    // Each under the name of its method in the clients, in the table's order.
    expect(body.operations.map((o) => o.name)).toEqual(Object.keys(CONTROL_TABLE));
    expect(body.operations).toContainEqual(
      expect.objectContaining({ name: "setClock", method: "PUT", path: "/__control/clock" }),
    );
    expect(body.clock.now).toBe(ref.clock.now().toISOString());
  });

  it("answers an unknown operation with 404 in the envelope", async () => {
    const ref = await controlledReference();
    expectError(await ctl(ref).get("/nothing"), 404, "not_found");
    expectError(await ctl(ref).post("/clock", {}), 404, "not_found");
  });
});
