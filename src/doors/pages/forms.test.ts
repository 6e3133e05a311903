import { describe, expect, it } from "vitest";
import {
  earliestExpiryDate,
  expiryInstant,
  isRevokeConfirmed,
  parseNewToken,
  parseOrganizationChoice,
  type NewTokenField,
} from "./forms.js";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const valid = { name: "CI export", scopes: ["contacts:read", "invoices:read"], expiresOn: "" };

describe("the expiry date", () => {
  it.each([
    { date: "2026-11-21", instant: "2026-11-21T00:00:00.000Z" },
    { date: "2028-02-29", instant: "2028-02-29T00:00:00.000Z" },
    { date: "9999-12-31", instant: "9999-12-31T00:00:00.000Z" },
  ])("is the start of $date in UTC", ({ date, instant }) => {
    expect(expiryInstant(date)?.toISOString()).toBe(instant);
  });

  it.each([
    "2026-02-30",
    "2027-02-29",
    "2026-13-01",
    "2026-1-5",
    "21/11/2026",
    "2026-11-21T00:00",
    "",
    "+2026-11-21",
  ])("is not read from %j", (date) => {
    expect(expiryInstant(date)).toBeUndefined();
  });

  it.each([
    { now: "2026-11-20T12:00:00.000Z", earliest: "2026-11-21" },
    { now: "2026-11-20T00:00:00.000Z", earliest: "2026-11-21" },
    { now: "2026-12-31T23:59:59.999Z", earliest: "2027-01-01" },
  ])("can be $earliest at the earliest when it is $now", ({ now, earliest }) => {
    expect(earliestExpiryDate(new Date(now))).toBe(earliest);
  });
});

describe("the new-token form", () => {
  it("reads a name, the ticked scopes in SCOPES order and no expiry", () => {
    const parsed = parseNewToken({ ...valid, scopes: ["invoices:read", "contacts:read"] }, NOW);
    expect(parsed).toMatchObject({
      ok: true,
      input: { name: "CI export", scopes: ["contacts:read", "invoices:read"], expiresAt: null },
    });
  });

  it("reads one ticked scope, sent as a lone string", () => {
    const parsed = parseNewToken({ ...valid, scopes: "products:write" }, NOW);
    expect(parsed).toMatchObject({ ok: true, input: { scopes: ["products:write"] } });
  });

  it("trims the name and reads tomorrow as the earliest expiry", () => {
    const parsed = parseNewToken({ ...valid, name: "  CI  ", expiresOn: "2026-11-21" }, NOW);
    expect(parsed).toMatchObject({
      ok: true,
      input: { name: "CI", expiresAt: new Date("2026-11-21T00:00:00.000Z") },
    });
  });

  it("ignores the CSRF field and anything else the form carries", () => {
    expect(parseNewToken({ ...valid, _csrf: "x", extra: "y" }, NOW).ok).toBe(true);
  });

  const refusals: { why: string; body: Record<string, unknown>; field: NewTokenField; message: RegExp }[] = [
    { why: "no name", body: { ...valid, name: "" }, field: "name", message: /must not be blank/ },
    { why: "a blank name", body: { ...valid, name: " \t " }, field: "name", message: /must not be blank/ },
    {
      why: "a name of 101 characters",
      body: { ...valid, name: "é".repeat(101) },
      field: "name",
      message: /at most 100 characters/,
    },
    { why: "two names", body: { ...valid, name: ["a", "b"] }, field: "name", message: /once/ },
    { why: "no scope", body: { name: "x" }, field: "scopes", message: /Tick at least one scope/ },
    {
      why: "an unknown scope",
      body: { ...valid, scopes: ["contacts:read", "contacts:delete"] },
      field: "scopes",
      message: /Unknown scope: contacts:delete/,
    },
    {
      why: "today as the expiry",
      body: { ...valid, expiresOn: "2026-11-20" },
      field: "expiresOn",
      message: /after today \(2026-11-20, UTC\)/,
    },
    {
      why: "a past expiry",
      body: { ...valid, expiresOn: "2025-01-01" },
      field: "expiresOn",
      message: /after today/,
    },
    {
      why: "an expiry that is not a date",
      body: { ...valid, expiresOn: "next week" },
      field: "expiresOn",
      message: /YYYY-MM-DD/,
    },
    {
      why: "two expiry dates",
      body: { ...valid, expiresOn: ["2027-01-01", "2028-01-01"] },
      field: "expiresOn",
      message: /once/,
    },
  ];

  it.each(refusals)("refuses $why, on $field alone", ({ body, field, message }) => {
    const parsed = parseNewToken(body, NOW);
    if (parsed.ok) throw new Error("expected a refusal");
    expect(Object.keys(parsed.errors)).toEqual([field]);
    expect(parsed.errors[field]).toMatch(message);
  });

  it("names every refused field at once and gives back what was typed", () => {
    const parsed = parseNewToken({ name: " ", expiresOn: "2020-01-01" }, NOW);
    expect(parsed).toMatchObject({
      ok: false,
      values: { name: "", scopes: [], expiresOn: "2020-01-01" },
    });
    if (parsed.ok) return;
    expect(Object.keys(parsed.errors).sort()).toEqual(["expiresOn", "name", "scopes"]);
  });

  it.each([undefined, null, "text", 42])("treats a body of %j as an empty form", (body) => {
    const parsed = parseNewToken(body, NOW);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(Object.keys(parsed.errors).sort()).toEqual(["name", "scopes"]);
  });
});

describe("the small forms", () => {
  it.each([
    { body: { organization: "org_boreal" }, choice: "org_boreal" },
    { body: { organization: ["a", "b"] }, choice: undefined },
    { body: {}, choice: undefined },
  ])("reads the organization of $body as $choice", ({ body, choice }) => {
    expect(parseOrganizationChoice(body)).toBe(choice);
  });

  it.each([
    { body: { confirm: "yes" }, confirmed: true },
    { body: { confirm: "no" }, confirmed: false },
    { body: { confirm: ["yes", "yes"] }, confirmed: false },
    { body: {}, confirmed: false },
  ])("reads $body as confirmed: $confirmed", ({ body, confirmed }) => {
    expect(isRevokeConfirmed(body)).toBe(confirmed);
  });
});
