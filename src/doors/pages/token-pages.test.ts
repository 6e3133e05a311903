import request from "supertest";
import { describe, expect } from "vitest";
import {
  expectData,
  expectError,
  referenceTest,
  testReference,
  type TestReference,
} from "../../test-support/reference.js";
import {
  CREATED_PATH,
  NEW_TOKEN_PATH,
  ORGANIZATION_PATH,
  TOKENS_PATH,
  createThroughPage,
  openBrowser,
  rowOf,
  shownSecret,
} from "../../test-support/pages.js";

// The token pages of §5: signing in as an organization, creating, revoking and reading a token's
// usage and status.

const it = referenceTest();

const DAY = 86_400_000;
const XSS = "<img src=x onerror=alert(1)>";
const idOf = (ref: TestReference, secret: string): string => {
  const resolution = ref.tokens.lookup(secret);
  if (!resolution.ok) throw new Error(`token not active: ${resolution.reason}`);
  return resolution.token.id;
};
const api = (ref: TestReference, path: string, secret: string) =>
  request(ref.app).get(path).set("Authorization", `Bearer ${secret}`);

describe("the organization one is signed in as", () => {
  it("is none at first: a selector, no tokens", async ({ ref }) => {
    const { agent } = await openBrowser(ref);
    const page = await agent.get(TOKENS_PATH);
    expect(page.text).toContain("Choose an organization");
    expect(page.text).not.toContain("data-token-id");
    const form = await agent.get(NEW_TOKEN_PATH);
    expect(form.status).toBe(303);
    expect(form.headers.location).toBe(TOKENS_PATH);
  });

  it("is remembered in a cookie and lists that organization's tokens only, newest first, fixtures included", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_boreal");
    const page = await browser.agent.get(TOKENS_PATH);
    const ids = [...page.text.matchAll(/data-token-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(ref.tokens.list("org_boreal").map((t) => t.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(page.text).toContain("Signed in as Plomberie Boréal ltée.");
    expect(page.text).not.toContain(ref.tokenId("lumiere-full"));
  });

  it("ends a sentence after a name that ends with a full stop once (Studio Lumière inc.)", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const list = await browser.agent.get(TOKENS_PATH);
    expect(list.text).toContain("Signed in as Studio Lumière inc.<");
    expect(list.text).not.toContain("inc..");
    const form = await browser.agent.get(NEW_TOKEN_PATH);
    expect(form.text).toContain("For Studio Lumière inc. The token is shown once");
    expect(form.text).not.toContain("inc..");
  });

  it("says all scopes for a token that holds every one, and lists the scopes of the others", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const page = await browser.agent.get(TOKENS_PATH);
    const row = (label: string) =>
      new RegExp(`data-token-id="${ref.tokenId(label)}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? "";
    expect(row("lumiere-full")).toContain("all scopes");
    expect(row("lumiere-full")).not.toContain("<code>contacts:read</code>");
    expect(row("lumiere-contacts-read")).toContain("<code>contacts:read</code>");
    expect(row("lumiere-contacts-read")).not.toContain("all scopes");
  });

  it("shows every fixture token created before it expires, and before the server's start", ({ ref }) => {
    for (const t of ref.manifest.tokens) {
      const view = ref.tokens.get(ref.tokenId(t.label));
      if (view === undefined) throw new Error(`no token ${t.label}`);
      expect(view.createdAt.getTime()).toBeLessThan(ref.clock.now().getTime());
      if (view.expiresAt !== null) expect(view.createdAt.getTime()).toBeLessThan(view.expiresAt.getTime());
    }
  });

  it("never shows a fixture token's clear value, only its hint", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const page = await browser.agent.get(TOKENS_PATH);
    for (const t of ref.manifest.tokens.filter((t) => t.organization === "org_lumiere")) {
      expect(page.text).not.toContain(t.token);
      expect(page.text).toContain(`${ref.tokens.prefix}_…${t.token.slice(-4)}`);
    }
  });

  it("refuses an organization that does not exist, and keeps the one chosen", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const res = await browser.agent
      .post(ORGANIZATION_PATH)
      .type("form")
      .send({ _csrf: browser.csrf, organization: "org_nope" });
    expect(res.status).toBe(303);
    const page = await browser.agent.get(TOKENS_PATH);
    expect(page.text).toContain("Choose one of the organizations in the list.");
    expect(page.text).toContain("Tokens of Studio Lumière inc.");
  });

  it("says when the organization's plan has no API access", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_petitpas");
    const page = await browser.agent.get(TOKENS_PATH);
    expect(page.text).toContain("STARTER plan, which has no API access");
  });
});

describe("creating a token", () => {
  it("shows the clear token once, not cached, then never again", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const { secret, page } = await createThroughPage(browser, {
      name: "CI",
      scopes: ["contacts:read", "products:read"],
    });
    expect(secret).toMatch(/^acct_[0-9A-Za-z]{40}$/);
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.text).toContain("it will not be shown again");
    const again = await browser.agent.get(CREATED_PATH);
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(TOKENS_PATH);
    const list = await browser.agent.get(TOKENS_PATH);
    expect(list.text).not.toContain(secret);
    expect(rowOf(list.text, idOf(ref, secret))).toContain("CI");
  });

  it("shows the created token to the browser that created it only", async ({ ref }) => {
    const creator = await openBrowser(ref, "org_lumiere");
    const other = await openBrowser(ref, "org_lumiere");
    await creator.agent
      .post(TOKENS_PATH)
      .type("form")
      .send({ _csrf: creator.csrf, name: "mine", scopes: "contacts:read" });
    const res = await other.agent.get(CREATED_PATH);
    expect(res.status).toBe(303);
    expect(shownSecret((await creator.agent.get(CREATED_PATH)).text)).toBeDefined();
  });

  it("gives a token that the API takes on its scopes and refuses on others", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const { secret } = await createThroughPage(browser, {
      name: "CI",
      scopes: ["contacts:read", "products:read"],
    });
    expectData(await api(ref, "/api/v1/contacts", secret), 200);
    expectData(await api(ref, "/api/v1/products", secret), 200);
    expectError(await api(ref, "/api/v1/invoices", secret), 403, "forbidden");
  });

  it("stores the expiry date as the start of that day, UTC", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const { secret } = await createThroughPage(browser, {
      name: "CI",
      scopes: "contacts:read",
      expiresOn: "2026-12-01",
    });
    expect(ref.tokens.get(idOf(ref, secret))?.expiresAt?.toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });

  it("escapes the name everywhere it is shown", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const { secret, page } = await createThroughPage(browser, { name: XSS, scopes: "contacts:read" });
    const pages = [
      page,
      await browser.agent.get(TOKENS_PATH),
      await browser.agent.get(`${TOKENS_PATH}/${idOf(ref, secret)}/revoke`),
    ];
    for (const p of pages) {
      expect(p.text).not.toContain("<img");
      expect(p.text).toContain("&lt;img src=x onerror=alert(1)&gt;");
    }
  });

  const invalid: {
    why: string;
    fields: Record<string, string | string[]>;
    field: string;
    message: string;
  }[] = [
    {
      why: "no name",
      fields: { name: "", scopes: "contacts:read" },
      field: "name",
      message: "Name must not be blank",
    },
    { why: "no scope", fields: { name: "CI" }, field: "scopes", message: "Tick at least one scope" },
    {
      why: "an expiry in the past",
      fields: { name: "CI", scopes: "contacts:read", expiresOn: "2026-11-19" },
      field: "expiresOn",
      message: "Choose a date after today (2026-11-20, UTC)",
    },
    {
      why: "today as the expiry",
      fields: { name: "CI", scopes: "contacts:read", expiresOn: "2026-11-20" },
      field: "expiresOn",
      message: "Choose a date after today",
    },
  ];
  it.for(invalid)(
    "gives the form back with $why: the field's message, what was typed, nothing created",
    async ({ fields, field, message }, { ref }) => {
      const browser = await openBrowser(ref, "org_lumiere");
      const before = ref.tokens.list("org_lumiere").length;
      const res = await browser.agent
        .post(TOKENS_PATH)
        .type("form")
        .send({ _csrf: browser.csrf, ...fields });
      expect(res.status).toBe(400);
      expect(res.text).toContain(`id="${field}-error" class="field-error">${message}`);
      expect(res.text).toContain('role="alert"');
      if (typeof fields.name === "string" && fields.name !== "")
        expect(res.text).toContain(`value="${fields.name}"`);
      expect(ref.tokens.list("org_lumiere")).toHaveLength(before);
    },
  );

  it("keeps the ticked scopes and the date when the form comes back", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const res = await browser.agent
      .post(TOKENS_PATH)
      .type("form")
      .send({
        _csrf: browser.csrf,
        name: "",
        scopes: ["products:write", "expenses:read"],
        expiresOn: "2027-01-01",
      });
    expect(res.text.match(/<input[^>]*checked[^>]*>/g)?.map((i) => /value="([^"]+)"/.exec(i)?.[1])).toEqual([
      "products:write",
      "expenses:read",
    ]);
    expect(res.text).toContain('value="2027-01-01"');
  });

  it("offers every scope of §5, labelled with its name, the two write scopes to come marked so", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const form = (await browser.agent.get(NEW_TOKEN_PATH)).text;
    for (const scope of [
      "contacts:read",
      "contacts:write",
      "products:read",
      "products:write",
      "invoices:read",
      "invoices:write",
      "expenses:read",
      "expenses:write",
    ]) {
      const id = `scope-${scope.replace(":", "-")}`;
      expect(form).toContain(`<label for="${id}"><code>${scope}</code></label>`);
      expect(form.includes(`id="${id}-hint" class="hint">`)).toBe(true);
    }
    expect(form.match(/coming soon/g)).toHaveLength(2);
    expect(form).toContain('min="2026-11-21"');
  });

  it("keeps the clear token out of the journal and the log", async () => {
    const lines: string[] = [];
    const own = await testReference({ log: (line) => lines.push(line) });
    const browser = await openBrowser(own, "org_lumiere");
    const res = await browser.agent
      .post(TOKENS_PATH)
      .type("form")
      .send({ _csrf: browser.csrf, name: "CI", scopes: "contacts:read" });
    expect(res.headers.location).not.toMatch(/acct_/);
    const secret = shownSecret((await browser.agent.get(CREATED_PATH)).text) ?? "";
    await request(own.app).get("/api/v1/contacts").set("Authorization", `Bearer ${secret}`);
    await request(own.app).get(`/api/v1/contacts?access_token=${secret}`);
    expect(JSON.stringify(own.control.journal())).not.toContain(secret.slice(5));
    expect(own.control.journal().every((e) => e.path.startsWith("/api/"))).toBe(true);
    expect(lines.join("\n")).not.toContain(secret.slice(5));
  });
});

describe("revoking a token", () => {
  it("asks first: the confirmation page, and a POST without the confirmation changes nothing", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const id = ref.tokenId("lumiere-full");
    const confirm = await browser.agent.get(`${TOKENS_PATH}/${id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("Revoke “lumiere-full”?");
    expect(confirm.text).toContain('name="confirm" value="yes"');
    const unconfirmed = await browser.agent
      .post(`${TOKENS_PATH}/${id}/revoke`)
      .type("form")
      .send({ _csrf: browser.csrf });
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.location).toBe(`${TOKENS_PATH}/${id}/revoke`);
    expect(ref.tokens.get(id)?.status).toBe("Active");
  });

  it("revokes at once once confirmed: the API answers 401, the list says Revoked, with no way back", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const id = ref.tokenId("lumiere-full");
    expectData(await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full")), 200);
    const res = await browser.agent
      .post(`${TOKENS_PATH}/${id}/revoke`)
      .type("form")
      .send({ _csrf: browser.csrf, confirm: "yes" });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(TOKENS_PATH);
    expectError(
      await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full")),
      401,
      "unauthorized",
    );
    const list = await browser.agent.get(TOKENS_PATH);
    expect(list.text).toContain("“lumiere-full” is revoked");
    const row = rowOf(list.text, id);
    expect(row).toContain(">Revoked<");
    expect(row).not.toContain("/revoke");
    const revokedAt = ref.tokens.get(id)?.revokedAt;
    ref.clock.advance(60_000);
    await browser.agent
      .post(`${TOKENS_PATH}/${id}/revoke`)
      .type("form")
      .send({ _csrf: browser.csrf, confirm: "yes" });
    expect(ref.tokens.get(id)?.revokedAt).toEqual(revokedAt);
    expect((await browser.agent.get(`${TOKENS_PATH}/${id}/revoke`)).text).not.toContain('name="confirm"');
  });

  it.for([
    { why: "another organization's token", label: "boreal-full" },
    { why: "an unknown token", label: null },
  ])("answers 404 for $why, and revokes nothing", async ({ label }, { ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const id = label === null ? "tok_nope" : ref.tokenId(label);
    const page = await browser.agent.get(`${TOKENS_PATH}/${id}/revoke`);
    expect(page.status).toBe(404);
    const post = await browser.agent
      .post(`${TOKENS_PATH}/${id}/revoke`)
      .type("form")
      .send({ _csrf: browser.csrf, confirm: "yes" });
    expect(post.status).toBe(404);
    if (label !== null) expect(ref.tokens.get(id)?.status).toBe("Active");
  });
});

describe("usage and status", () => {
  it("shows each request made with the token and its last use", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const id = ref.tokenId("lumiere-contacts-read");
    ref.clock.advance(90_000);
    await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-contacts-read"));
    await request(ref.app).get("/api/v1/invoices").set(ref.auth("lumiere-contacts-read"));
    const view = ref.tokens.get(id);
    const row = rowOf((await browser.agent.get(TOKENS_PATH)).text, id);
    expect(row).toContain(`<td data-label="Requests" class="number">${view?.requestCount}</td>`);
    expect(row).toContain('<time datetime="2026-11-20T12:01:30.000Z">2026-11-20 12:01 UTC</time>');
  });

  it("follows the reference's clock: past its expiry a token is Expired, on the page and for the API", async ({
    ref,
  }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const { secret } = await createThroughPage(browser, {
      name: "short",
      scopes: "contacts:read",
      expiresOn: "2026-11-22",
    });
    const id = idOf(ref, secret);
    expect(rowOf((await browser.agent.get(TOKENS_PATH)).text, id)).toContain(">Active<");
    ref.control.setClock({ advance: "P2D" });
    expect(rowOf((await browser.agent.get(TOKENS_PATH)).text, id)).toContain(">Expired<");
    expectError(await api(ref, "/api/v1/contacts", secret), 401, "unauthorized");
    expect(ref.clock.now().getTime()).toBe(new Date("2026-11-20T12:00:00.000Z").getTime() + 2 * DAY);
  });

  it("does not revoke an expired token: §3 revokes Active ones", async ({ ref }) => {
    const browser = await openBrowser(ref, "org_lumiere");
    const id = ref.tokenId("lumiere-expired");
    const res = await browser.agent
      .post(`${TOKENS_PATH}/${id}/revoke`)
      .type("form")
      .send({ _csrf: browser.csrf, confirm: "yes" });
    expect(res.status).toBe(303);
    expect(ref.tokens.get(id)?.status).toBe("Expired");
    expect((await browser.agent.get(TOKENS_PATH)).text).toContain("is already Expired; nothing changed");
  });
});
