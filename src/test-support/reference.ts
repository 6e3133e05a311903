import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import request, { type Response } from "supertest";
import { expect } from "vitest";
import { z } from "zod";
import { ManualClock } from "../model/clock.js";
import type { Scope } from "../model/records.js";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../model/errors.js";
import { loadFixtures, type FixtureSet } from "../store/fixtures/load.js";
import { defaultFixturesDir } from "../store/fixtures/paths.js";
import { createReference, type CreateReferenceOptions, type Reference } from "../entry/reference.js";
import { serverTest } from "./serve.js";

/** The instant every test reference starts at: after every fixture, before `lumiere-expiring` expires. */
export const TEST_NOW = "2026-11-20T12:00:00.000Z";

export interface TestReference extends Reference {
  /** The clear token of a fixture label (`lumiere-full`, `petitpas-full`, …). */
  token(label: string): string;
  /** `{ Authorization: "Bearer …" }` for a fixture label. */
  auth(label: string): { Authorization: string };
  /** The registry id of a fixture label's token, to read its usage through `tokens.get(id)`. */
  tokenId(label: string): string;
}

export type TestReferenceOptions = Omit<CreateReferenceOptions, "clock"> & { clock?: ManualClock };

/**
 * A reference on a clock that only moves when told to, with a silent log and a rate limit high
 * enough that ordinary tests never meet it. Any option can be overridden (the rate-limit tests do).
 * Reads the shipped fixtures unless `fixtures` (loaded once, by `shippedFixtures`) or `fixturesDir`
 * is given: the test fixtures below load them once per file and pass them.
 */
export async function testReference(options: TestReferenceOptions = {}): Promise<TestReference> {
  const clock = options.clock ?? new ManualClock(TEST_NOW);
  const reference = await createReference({
    log: () => {},
    rateLimit: { limit: 1000, windowMs: 60_000 },
    fixtures:
      options.fixturesDir === undefined && options.fixtures === undefined
        ? await shippedFixtures(clock.now())
        : undefined,
    ...options,
    clock,
  });
  const tokenId = (label: string): string => {
    const resolution = reference.tokens.lookup(token(reference, label));
    const id = resolution.ok ? resolution.token.id : resolution.tokenId;
    if (id === undefined) throw new Error(`fixture token ${label} is not known to the registry`);
    return id;
  };
  return {
    ...reference,
    token: (label) => token(reference, label),
    auth: (label) => auth(reference, label),
    tokenId,
  };
}

/** The shipped fixtures as of `now` (TEST_NOW by default): many references can be built from one load. */
export function shippedFixtures(now: Date = new Date(TEST_NOW)): Promise<FixtureSet> {
  return loadFixtures(defaultFixturesDir(), { now });
}

/** What the `ref` fixture overrides of `testReference`'s defaults: no test of a file meets the rate limit. */
const PER_TEST: TestReferenceOptions = { rateLimit: { limit: 1_000_000, windowMs: 60_000 } };

/**
 * vitest's `test`, extended with a fresh reference for each test that asks for one:
 * `it("…", async ({ ref }) => …)`, and `serverTest`'s `serve` and `listen`. The shipped fixtures are
 * read once per file (`shipped`), and each reference stores its own copy. `options` go to `testReference` (a clock of another instant reads
 * the fixtures as of that instant instead).
 */
export function referenceTest(options: TestReferenceOptions = {}) {
  return serverTest
    .extend("shipped", { scope: "file" }, () => shippedFixtures())
    .extend("ref", ({ shipped }) =>
      testReference({
        ...PER_TEST,
        fixtures: options.clock === undefined && options.fixturesDir === undefined ? shipped : undefined,
        ...options,
      }),
    );
}

/** The clear token of a fixture label in a reference's manifest. */
export function token(reference: Reference, label: string): string {
  const entry = reference.manifest.tokens.find((t) => t.label === label);
  if (entry === undefined) throw new Error(`no fixture token labelled ${label}`);
  return entry.token;
}

/** `{ Authorization: "Bearer …" }` for a fixture label. */
export function auth(reference: Reference, label: string): { Authorization: string } {
  return { Authorization: `Bearer ${token(reference, label)}` };
}

// --- the spec's endpoint table ---------------------------------------------------------------------

export interface Endpoint {
  method: "get" | "post";
  path: string;
  scope: Scope;
}

/**
 * §4's table, written out from the spec rather than read from the server's route table, so that a
 * route the server dropped or re-scoped fails the tests instead of silently shrinking them.
 */
export const ENDPOINTS: readonly Endpoint[] = [
  { method: "get", path: "/api/v1/contacts", scope: "contacts:read" },
  { method: "post", path: "/api/v1/contacts", scope: "contacts:write" },
  { method: "get", path: "/api/v1/products", scope: "products:read" },
  { method: "post", path: "/api/v1/products", scope: "products:write" },
  { method: "get", path: "/api/v1/invoices", scope: "invoices:read" },
  { method: "get", path: "/api/v1/expenses", scope: "expenses:read" },
];

export const PATHS = [...new Set(ENDPOINTS.map((e) => e.path))];

export const describeEndpoint = (e: Endpoint): string => `${e.method.toUpperCase()} ${e.path}`;

/**
 * A body the endpoint accepts, or undefined for a GET. A product's sku is `sku`: a test that creates
 * several gives each its own (a sku is unique within an organization).
 */
export function validBody(e: Endpoint, sku = "TEST-1"): Record<string, unknown> | undefined {
  if (e.method === "get") return undefined;
  if (e.path === "/api/v1/contacts") return { type: "CLIENT", name: "Valid contact" };
  return { sku, name: "Valid product", unitPrice: 10 };
}

// --- responses -------------------------------------------------------------------------------------

/** §7's envelope, strictly: nothing beside `error`, nothing in it beside code, message and details. */
export const ErrorEnvelope = z.strictObject({
  error: z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string().min(1),
    // spec-gaps #36: an object keyed by field path, each a non-empty list of messages. Not z.record:
    // zod 4.1 refuses any object with an own `constructor` key as "not a record".
    details: z
      .custom<
        Record<string, string[]>
      >((v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((messages) => Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === "string" && m !== "")), "details must map each field to a non-empty list of messages")
      .optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The response, short enough for an assertion message. */
export function describeResponse(res: Response): string {
  const text = res.text.length > 300 ? `${res.text.slice(0, 300)}…` : res.text;
  return `${res.status} ${text}`;
}

/** Asserts the status, the JSON media type and §7's envelope with `code`; returns the error. */
export function expectError(res: Response, status: number, code: ErrorCode): ErrorEnvelope["error"] {
  expect(res.status, `status of ${describeResponse(res)}`).toBe(status);
  expect((res.body as Partial<ErrorEnvelope>).error?.code, `code of ${describeResponse(res)}`).toBe(code);
  expect(ERROR_STATUS[code]).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json(;|$)/);
  const parsed = ErrorEnvelope.safeParse(res.body);
  if (!parsed.success) throw new Error(`not the §7 envelope: ${JSON.stringify(res.body)}`);
  return parsed.data.error;
}

/** Asserts a 400 invalid_request whose `details` names `field`; returns the details. */
export function expectInvalid(res: Response, field: string): Record<string, string[]> {
  const error = expectError(res, 400, "invalid_request");
  expect(error.details, `details should name ${field}: ${JSON.stringify(res.body)}`).toBeDefined();
  const details = error.details ?? {};
  expect(Object.keys(details)).toContain(field);
  return details;
}

/** The `data` of a success response, after checking the status and the envelope. */
export function expectData(res: Response, status: 200 | 201): unknown {
  expect(res.status, `status of ${describeResponse(res)}`).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json(;|$)/);
  expect(Object.keys(res.body as object)).toEqual(["data"]);
  return (res.body as { data: unknown }).data;
}

// --- request bodies --------------------------------------------------------------------------------

/** A JSON number written as given: the text reaches the server without passing through a float. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** Serializes a flat body, writing `RawNumber` values as their text. */
export function jsonText(body: Record<string, unknown>): string {
  const members = Object.entries(body).map(
    ([key, value]) =>
      `${JSON.stringify(key)}:${value instanceof RawNumber ? value.text : JSON.stringify(value)}`,
  );
  return `{${members.join(",")}}`;
}

/** A copy of `body` without `field`. */
export function without(body: object, field: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));
}

// --- fixtures, read from the files rather than from the server --------------------------------------

export interface FixtureRecord {
  id: string;
  organizationId: string;
  createdAt: string;
  [field: string]: unknown;
}

export async function readFixture(name: "contacts" | "products" | "invoices" | "expenses") {
  const text = await readFile(join(defaultFixturesDir(), `${name}.json`), "utf8");
  return JSON.parse(text) as FixtureRecord[];
}

/**
 * POSTs a valid contact to org_lumiere as `label`, asserts the refusal (`status`, `code`), and that
 * no contact was stored.
 */
export async function expectContactRefused(
  reference: TestReference,
  label: string,
  status: number,
  code: ErrorCode,
): Promise<ErrorEnvelope["error"]> {
  const before = reference.store.countContacts("org_lumiere");
  const res = await request(reference.app)
    .post("/api/v1/contacts")
    .set(reference.auth(label))
    .send({ type: "CLIENT", name: "x" });
  const error = expectError(res, status, code);
  expect(reference.store.countContacts("org_lumiere")).toBe(before);
  return error;
}

/** Ids of an organization's list as a client reads it (200 at most, the cap). */
export async function listIds(reference: TestReference, path: string, label: string): Promise<string[]> {
  const res = await request(reference.app).get(`${path}?limit=200`).set(reference.auth(label));
  return (expectData(res, 200) as { id: string }[]).map((item) => item.id);
}

// --- property tests --------------------------------------------------------------------------------

/** Fixed so that a failure replays as is; FC_SEED=<n> explores other runs. */
export const FC_SEED = Number(process.env.FC_SEED ?? 424242);
export const FC_RUNS = 50;

/**
 * Runs a property with the fixed seed. fast-check's own report has the seed and the shrink path; the
 * prefix makes sure the seed to replay with is the first thing a failure says.
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncProperty<Ts>,
  numRuns = FC_RUNS,
): Promise<void> {
  try {
    await fc.assert(property, { seed: FC_SEED, numRuns });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(
      `property failed with FC_SEED=${FC_SEED} (replay: FC_SEED=${FC_SEED} npx vitest run)\n${message}`,
      {
        cause: err,
      },
    );
  }
}
