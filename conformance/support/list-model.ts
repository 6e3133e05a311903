import fc from "fast-check";
import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { CheckContext, HttpExchange } from "../types.js";
import {
  expectList,
  expectStatus,
  expectSuccess,
  fail,
  requestLine,
  snippet,
  type JsonObject,
} from "./assert.js";
import {
  contactBodyArb,
  limitArb,
  padTo,
  productBodyArb,
  productJsonText,
  type ContactBody,
  type ProductDraft,
} from "./arbitraries.js";
import {
  beforeSupport,
  currentPage,
  dataObject,
  fullToken,
  listRequest,
  postProduct,
  unique,
  withUniqueSku,
} from "./data.js";
import { matchesFilter, type FilterReading } from "./filters.js";
import { listedContactProblems, listedProductProblems } from "./shapes.js";
import { LIST_NAMES, ORDER_FIELD, type KitSpec, type ListName } from "../spec/kit-spec.js";

/**
 * A model-based check (fast-check commands): random sequences of creations and reads across two
 * organizations, every answer compared with a model built from what the kit read at the start and
 * created since. It catches what a fixed check looks past: a filter, a `before` or a limit that forgets
 * the organization only in some combination, a record stored otherwise than sent (values at their
 * maximum length included), a page longer than asked.
 *
 * The target is live and cannot be reset, so the model is cumulative: every run and every shrinking
 * step starts from what the previous ones left, as the target does.
 */

type Org = 0 | 1;

interface Created {
  /** Contacts: the body sent; products: the draft sent (unitPrice as its JSON text). */
  sent: ContactBody | ProductDraft;
  /**
   * What names the record in a read, unique in the run: a contact's name, a product's sku. Never the
   * id: two organizations may number their records alike (spec-gaps #3).
   */
  key: string;
  exchange: HttpExchange;
}

interface Collection {
  /** Every record the organization is known to hold in this list, by id. */
  byId: Map<string, JsonObject>;
  /** Whether `byId` is the whole list (it was read to its end and the kit knows each creation since). */
  complete: boolean;
  /** The kit's own creations, matched in reads by their unique name (contacts) or sku (products). */
  created: Created[];
}

export interface ListModel {
  /** The run's spec: the limits and filters reads are judged by. */
  spec: KitSpec;
  orgs: Org[];
  tokens: Record<Org, ManifestToken | undefined>;
  lists: Record<Org, Record<ListName, Collection>>;
  /** Per list: how `before` behaves (spec-gaps #8), so that reads only send it where it means something. */
  before: Record<ListName, "supported" | "ignored" | "unusable">;
}

const emptyCollections = (): Record<ListName, Collection> => ({
  contacts: { byId: new Map(), complete: false, created: [] },
  products: { byId: new Map(), complete: false, created: [] },
  invoices: { byId: new Map(), complete: false, created: [] },
  expenses: { byId: new Map(), complete: false, created: [] },
});

/** Reads every list of every organization once, at the largest page, to start the model. */
export async function buildModel(ctx: CheckContext): Promise<ListModel> {
  const second = ctx.tokens.find({ kind: "full", org: 1 });
  const model: ListModel = {
    spec: ctx.spec,
    orgs: second === undefined ? [0] : [0, 1],
    tokens: { 0: fullToken(ctx, 0), 1: second },
    lists: { 0: emptyCollections(), 1: emptyCollections() },
    before: { contacts: "unusable", products: "unusable", invoices: "unusable", expenses: "unusable" },
  };
  for (const list of LIST_NAMES) {
    const support = await beforeSupport(ctx, list, fullToken(ctx, 0));
    model.before[list] =
      support.kind === "supported" || support.kind === "ignored" ? support.kind : "unusable";
  }
  for (const org of model.orgs) {
    const token = model.tokens[org];
    if (token === undefined) continue;
    for (const list of LIST_NAMES) {
      const ex = await currentPage(ctx, list, token);
      const items = expectList(ex, `${requestLine(ex.request)} must answer 200`);
      const collection = model.lists[org][list];
      for (const item of items) if (typeof item.id === "string") collection.byId.set(item.id, item);
      collection.complete = items.length < ctx.spec.MAX.pageMax;
    }
  }
  return model;
}

export interface Real {
  ctx: CheckContext;
}

// ---- judging a read against the model ------------------------------------------------------------------

export interface ReadQuery {
  org: Org;
  list: ListName;
  filter?: string;
  limit?: string;
  before?: string;
}

const orderTime = (list: ListName, item: JsonObject): number => {
  const value = item[ORDER_FIELD[list]];
  return typeof value === "string" ? Date.parse(value) : Number.NaN;
};

/** No filter, or the filter as the kit reads it (support/filters.ts). */
const matches = (
  spec: KitSpec,
  list: ListName,
  filter: string | undefined,
  item: JsonObject,
  reading: FilterReading,
): boolean => filter === undefined || matchesFilter(spec, list, filter, item, reading);

/** The kit's creation an item stands for, if it is one: by its unique name or sku. */
function createdAs(list: ListName, collection: Collection, item: JsonObject): Created | undefined {
  const key = list === "products" ? item.sku : item.name;
  return typeof key === "string" ? collection.created.find((c) => c.key === key) : undefined;
}

/** How a read departs from the model: what a failure's key names, whatever the ids and values. */
export type ReadProblemKind =
  | "longer than the limit"
  | "outside the filter"
  | "not before"
  | "another organization's"
  | "no record of the organization"
  | "read back otherwise"
  | "count";

export interface ReadProblem {
  kind: ReadProblemKind;
  text: string;
}

/** Every way a read's answer departs from the model (pure: the caller updates the model). */
export function judgeRead(model: ListModel, q: ReadQuery, items: readonly JsonObject[]): ReadProblem[] {
  const problems: ReadProblem[] = [];
  const problem = (kind: ReadProblemKind, text: string): void => void problems.push({ kind, text });
  const collection = model.lists[q.org][q.list];
  const other = q.org === 0 ? 1 : 0;
  const theirs = model.orgs.includes(other) ? model.lists[other][q.list] : undefined;
  const max = q.limit === undefined ? model.spec.MAX.pageDefault : Number(q.limit);
  const before =
    q.before !== undefined && model.before[q.list] === "supported" ? Date.parse(q.before) : undefined;
  if (items.length > max)
    problem("longer than the limit", `${items.length} items, more than the ${max} asked (§4)`);
  for (const item of items) {
    const id = JSON.stringify(item.id);
    if (!matches(model.spec, q.list, q.filter, item, "either")) {
      problem("outside the filter", `${id} does not match the filter ${q.filter ?? ""} (§4)`);
    }
    if (before !== undefined && !(orderTime(q.list, item) < before)) {
      problem("not before", `${id} is not strictly before ${q.before ?? ""} (spec-gaps #8)`);
    }
    const foreign =
      theirs !== undefined &&
      (createdAs(q.list, theirs, item) !== undefined ||
        (typeof item.id === "string" && JSON.stringify(theirs.byId.get(item.id)) === JSON.stringify(item)));
    if (foreign) problem("another organization's", `${id} is organization ${other}'s (§1)`);
    else if (collection.complete && typeof item.id === "string" && !collection.byId.has(item.id)) {
      problem(
        "no record of the organization",
        `${id} is no record of organization ${q.org}'s ${q.list} (§1)`,
      );
    }
    const mine = createdAs(q.list, collection, item);
    if (mine !== undefined) {
      const sent = mine.sent;
      const off =
        "sku" in sent
          ? listedProductProblems(model.spec, sent, item)
          : listedContactProblems(model.spec, sent, item);
      for (const p of off)
        problem(
          "read back otherwise",
          `${id}, created by the kit, reads back otherwise: ${snippet(p.text, 200)}`,
        );
    }
  }
  if (collection.complete) {
    const held = [...collection.byId.values()].filter(
      (i) => before === undefined || orderTime(q.list, i) < before,
    );
    const strict = held.filter((i) => matches(model.spec, q.list, q.filter, i, "exact")).length;
    const lenient = held.filter((i) => matches(model.spec, q.list, q.filter, i, "either")).length;
    const least = Math.min(max, strict);
    const most = Math.min(max, lenient);
    if (items.length < least || items.length > most) {
      problem(
        "count",
        `${items.length} items, where the organization holds ${strict === lenient ? strict : `${strict} to ${lenient}`} matching (so ${least === most ? least : `${least} to ${most}`} with limit ${max})`,
      );
    }
  }
  return problems;
}

// ---- the commands --------------------------------------------------------------------------------------

const tokenOf = (model: ListModel, org: Org): ManifestToken => {
  const token = model.tokens[org];
  if (token === undefined) throw new Error(`the model has no organization ${org}`);
  return token;
};

/** A command made as one organization: it runs only where the model has that organization. */
abstract class AsOrganization implements fc.AsyncCommand<ListModel, Real> {
  constructor(readonly org: Org) {}

  check(model: Readonly<ListModel>): boolean {
    return model.orgs.includes(this.org);
  }

  abstract run(model: ListModel, real: Real): Promise<void>;
}

class ReadCommand extends AsOrganization {
  constructor(
    org: Org,
    readonly list: ListName,
    readonly filterPick: number | undefined,
    readonly limit: string | undefined,
    readonly beforePick: number | undefined,
  ) {
    super(org);
  }

  /** The query, with the filter value and the `before` instant picked among what the model holds. */
  query(model: ListModel): ReadQuery {
    const values = model.spec.LISTS[this.list].filter?.values ?? [];
    const filter =
      this.filterPick === undefined || values.length === 0
        ? undefined
        : values[this.filterPick % values.length];
    const times = [...model.lists[this.org][this.list].byId.values()]
      .map((i) => i[ORDER_FIELD[this.list]])
      .filter((t): t is string => typeof t === "string" && !Number.isNaN(Date.parse(t)))
      .sort();
    const before =
      this.beforePick === undefined || model.before[this.list] === "unusable" || times.length === 0
        ? undefined
        : times[this.beforePick % times.length];
    return {
      org: this.org,
      list: this.list,
      ...(filter === undefined ? {} : { filter }),
      ...(this.limit === undefined ? {} : { limit: this.limit }),
      ...(before === undefined ? {} : { before }),
    };
  }

  async run(model: ListModel, real: Real): Promise<void> {
    const q = this.query(model);
    const param = real.ctx.spec.LISTS[q.list].filter?.param ?? "type";
    const ex = await real.ctx.http.send(
      listRequest(real.ctx, q.list, tokenOf(model, q.org), {
        ...(q.filter === undefined ? {} : { [param]: q.filter }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
        ...(q.before === undefined ? {} : { before: q.before }),
      }),
    );
    const line = `${requestLine(ex.request)} as organization ${q.org}`;
    const items = expectList(ex, `${line} must answer 200`);
    const problems = judgeRead(model, q, items);
    // What the target serves is what the model knows from now on (a created record's own timestamps).
    const collection = model.lists[q.org][q.list];
    for (const item of items) {
      if (typeof item.id === "string" && collection.byId.has(item.id)) collection.byId.set(item.id, item);
    }
    if (problems.length > 0) {
      fail(`${line} departs from what the organization holds`, {
        key: failureKey(
          "departs from the model",
          q.list,
          [...new Set(problems.map((p) => p.kind))].sort().join(", "),
        ),
        expected:
          "only the organization's own records, matching the query, as many as it holds (at most the limit), as they were sent",
        actual: problems
          .slice(0, 5)
          .map((p) => p.text)
          .join("; "),
        exchange: ex,
      });
    }
  }

  override toString(): string {
    return `read(org ${this.org}, ${this.list}, filter #${this.filterPick ?? "-"}, limit ${this.limit ?? "-"}, before #${this.beforePick ?? "-"})`;
  }
}

class CreateContactCommand extends AsOrganization {
  constructor(
    org: Org,
    readonly body: ContactBody,
  ) {
    super(org);
  }

  async run(model: ListModel, real: Real): Promise<void> {
    // A name of its own at every run (the target keeps what earlier runs created), as long as the one drawn.
    const tag = `${unique(real.ctx, "m")} `;
    const rest = [...this.body.name].slice(tag.length).join("");
    const body: ContactBody = { ...this.body, name: `${tag}${rest}` };
    const ex = await real.ctx.http.send({
      method: "POST",
      path: real.ctx.spec.LISTS.contacts.path,
      auth: tokenOf(model, this.org),
      json: body,
    });
    expectStatus(
      ex,
      201,
      `POST ${real.ctx.spec.LISTS.contacts.path} with a valid body as organization ${this.org}`,
    );
    remember(model, this.org, "contacts", { sent: body, key: body.name, exchange: ex });
  }

  override toString(): string {
    return `createContact(org ${this.org}, ${JSON.stringify(this.body)})`;
  }
}

class CreateProductCommand extends AsOrganization {
  constructor(
    org: Org,
    readonly draft: ProductDraft,
  ) {
    super(org);
  }

  async run(model: ListModel, real: Real): Promise<void> {
    // A sku of its own at every run: the target keeps what earlier runs and shrinking steps created.
    const draft = withUniqueSku(real.ctx, this.draft);
    const ex = await postProduct(real.ctx, tokenOf(model, this.org), draft);
    expectSuccess(
      ex,
      `POST ${real.ctx.spec.LISTS.products.path} with a valid body as organization ${this.org}`,
    );
    remember(model, this.org, "products", { sent: draft, key: draft.sku, exchange: ex });
  }

  override toString(): string {
    return `createProduct(org ${this.org}, ${productJsonText(this.draft)})`;
  }
}

/**
 * A creation joins the model, as the creation answer gives it (id, timestamps) over what was sent. A
 * creation answered without an id or an order timestamp (a product's answer is open, spec-gaps #6)
 * leaves the list's count unknown until the end of the run.
 */
function remember(model: ListModel, org: Org, list: ListName, created: Created): void {
  const collection = model.lists[org][list];
  collection.created.push(created);
  const answered = dataObject(created.exchange) ?? {};
  const record: JsonObject = { ...(created.sent as JsonObject), ...answered };
  const id = record.id;
  const time = record[ORDER_FIELD[list]];
  if (typeof id !== "string" || typeof time !== "string" || Number.isNaN(Date.parse(time))) {
    collection.complete = false;
    return;
  }
  collection.byId.set(id, record);
}

// ---- arbitraries ---------------------------------------------------------------------------------------

/** Every string of a contact body at its §8 maximum: the boundary where storage truncates. */
function atMaxContact(spec: KitSpec, body: ContactBody): ContactBody {
  const out: ContactBody = { ...body, name: padTo(body.name, spec.MAX.contactName) };
  if (body.phone !== undefined) out.phone = padTo(body.phone, spec.MAX.contactPhone, "9");
  if (body.address !== undefined) out.address = padTo(body.address, spec.MAX.contactAddress);
  if (body.taxNumberTPS !== undefined)
    out.taxNumberTPS = padTo(body.taxNumberTPS, spec.MAX.contactTaxNumberTPS, "0");
  if (body.taxNumberTVQ !== undefined)
    out.taxNumberTVQ = padTo(body.taxNumberTVQ, spec.MAX.contactTaxNumberTVQ, "0");
  return out;
}

function atMaxProduct(spec: KitSpec, draft: ProductDraft): ProductDraft {
  const out: ProductDraft = { ...draft, name: padTo(draft.name, spec.MAX.productName) };
  if (draft.description !== undefined)
    out.description = padTo(draft.description, spec.MAX.productDescription);
  return out;
}

/** The commands of a run: reads (two in three), contact and product creations, as either organization. */
export function listCommandsArb(
  spec: KitSpec,
  marker: string,
  orgs: readonly Org[],
): fc.Arbitrary<Iterable<fc.AsyncCommand<ListModel, Real>>> {
  const org = fc.constantFrom(...orgs);
  const read = fc
    .record({
      org,
      list: fc.constantFrom(...LIST_NAMES),
      filter: fc.option(fc.nat(), { nil: undefined }),
      limit: fc.option(fc.oneof(limitArb(spec), fc.constantFrom("1", String(spec.MAX.pageMax))), {
        nil: undefined,
      }),
      before: fc.option(fc.nat(), { nil: undefined }),
    })
    .map((r) => new ReadCommand(r.org, r.list, r.filter, r.limit, r.before));
  const contact = fc
    .tuple(
      org,
      fc.oneof(
        contactBodyArb(spec, marker),
        contactBodyArb(spec, marker).map((b) => atMaxContact(spec, b)),
      ),
    )
    .map(([o, body]) => new CreateContactCommand(o, body));
  const product = fc
    .tuple(
      org,
      fc.oneof(
        productBodyArb(spec, marker),
        productBodyArb(spec, marker).map((d) => atMaxProduct(spec, d)),
      ),
    )
    .map(([o, draft]) => new CreateProductCommand(o, draft));
  return fc.commands([read, read, contact, product], { maxCommands: 8 });
}
