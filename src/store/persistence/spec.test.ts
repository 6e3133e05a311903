import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../model/clock.js";
import { TEST_NOW, testReference, type TestReference } from "../../test-support/reference.js";

// `--data DIR` under a spec variant (issue 26): the folder remembers the spec it was written under,
// keeps the added fields' values exactly, and refuses a spec whose records it could not serve.

let dir: string;
const open: TestReference[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "reference-data-spec-"));
});

afterEach(async () => {
  for (const ref of open.splice(0)) await ref.close();
  await rm(dir, { recursive: true, force: true });
});

const WITH_FIELDS = {
  title: "products with a currency and a weight",
  fields: {
    product: {
      currency: { type: "string", required: false, maxLength: 3 },
      weight: { type: "decimal", required: false },
    },
  },
  enums: { contactTypes: ["CLIENT", "SUPPLIER", "BOTH", "PARTNER"] },
};

async function start(spec: Record<string, unknown> | undefined): Promise<TestReference> {
  const ref = await testReference({ clock: new ManualClock(TEST_NOW), dataDir: dir, spec });
  open.push(ref);
  return ref;
}

async function stop(ref: TestReference): Promise<void> {
  await ref.close();
  open.splice(open.indexOf(ref), 1);
}

async function send(ref: TestReference, method: string, path: string, body?: string): Promise<Response> {
  return ref.fetch(`http://localhost${path}`, {
    method,
    headers: { ...ref.auth("lumiere-full"), "Content-Type": "application/json" },
    body,
  });
}

describe("a data folder under a spec variant", () => {
  it("keeps added fields' values (a decimal exactly) and added enumeration values across a restart", async () => {
    const first = await start(WITH_FIELDS);
    const made = await send(
      first,
      "POST",
      "/api/v1/products",
      '{"sku":"K-1","name":"Kept","unitPrice":1,"currency":"EUR","weight":123456789012.3456}',
    );
    expect(made.status).toBe(201);
    expect((await send(first, "POST", "/api/v1/contacts", '{"type":"PARTNER","name":"Ally"}')).status).toBe(
      201,
    );
    await stop(first);

    const again = await start(WITH_FIELDS);
    const products = (await (await send(again, "GET", "/api/v1/products?limit=200")).json()) as {
      data: { sku: string; currency: string | null; weight: string | null }[];
    };
    expect(products.data.find((p) => p.sku === "K-1")).toMatchObject({
      currency: "EUR",
      weight: "123456789012.3456",
    });
    const partners = (await (await send(again, "GET", "/api/v1/contacts?type=PARTNER")).json()) as {
      data: { name: string }[];
    };
    expect(partners.data.map((c) => c.name)).toEqual(["Ally"]);
  });

  it("refuses to open under a spec whose added fields differ, saying what differs", async () => {
    await start(WITH_FIELDS).then(stop);
    const refused = await start(undefined).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(
      /state\.json: written under the spec "products with a currency and a weight", whose records this spec cannot serve as they are \(fields\.product was \{"currency":.*, is \{\}; enums\.contactTypes no longer has PARTNER\); start with the --spec it was written under/,
    );
  });

  it("opens a folder of the default spec under a variant that only adds values or changes numbers", async () => {
    await start(undefined).then(stop);
    const ref = await start({
      limits: { page: { max: 500 } },
      enums: { invoiceStatuses: ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED", "DISPUTED"] },
    });
    expect((await send(ref, "GET", "/api/v1/contacts?limit=500")).status).toBe(200);
  });
});
