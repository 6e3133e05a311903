import type { z } from "zod";
import type { Principal } from "../../auth/authenticate.js";
import { Accounting } from "../../domain/accounting.js";
import type { AddedValue, AddedValues, Stored } from "../../model/records.js";
import { defaultSpec } from "../../../spec/index.js";
import { compileSpec, type CompiledSpec } from "../../routes/compile.js";
import type { AvailableId, Endpoint } from "../../routes/table.js";
import { cachedBytes, dataBytes, jsonBytes, listBytes } from "../../serialization/envelope.js";
import type { ReferenceState } from "../../store/state.js";
import { randomIds, type IdGenerator } from "../../store/ids.js";
import { parseQuery } from "../../http/query.js";
import { beforeOf, filterOf, limitOf } from "../../validation/schemas.js";
import { validate } from "../../validation/validate.js";

/**
 * The one place where §4's rows (src/routes/table.ts) meet the code that answers them: each row of a
 * compiled spec is bound to a domain operation and to the spec's serializer of what it returns.
 */

/** What a bound endpoint gets: the request's query string (without `?`) and body, unread, and who is asking. */
export interface Call {
  query: string;
  body: unknown;
  principal: Principal;
}

export interface BoundEndpoint {
  readonly endpoint: Endpoint;
  /** Validates the call's query and body with the row's schemas, runs the operation, serializes. */
  answer(call: Call, accounting: Accounting): Buffer;
}

/** What an operation receives, typed by its row's schemas. */
type Input<E extends Endpoint> = {
  query: Readonly<z.output<E["query"]>>;
  body: z.output<E["body"]>;
  principal: Principal;
};

/** The most query strings an endpoint keeps validated; past it, it starts afresh. */
const KEPT_QUERIES = 256;

/**
 * The reader of an endpoint's query strings. A validated query is kept, by its text: a frontend reads
 * the same list with the same query again and again, and parsing and validating it was the largest
 * part of a list read's own work (8 % of an in-process read's profile, 1.6 % more for Express's
 * req.query; DECISIONS.md, "The request path (issue #28)"). Only accepted queries are kept, frozen,
 * since every request that sends the same text shares one.
 */
function queryReader<E extends Endpoint>(endpoint: E): (text: string) => Readonly<z.output<E["query"]>> {
  const kept = new Map<string, Readonly<z.output<E["query"]>>>();
  return (text) => {
    let query = kept.get(text);
    if (query === undefined) {
      query = Object.freeze(validate<E["query"]>(endpoint.query, parseQuery(text), "query"));
      if (kept.size >= KEPT_QUERIES) kept.clear();
      kept.set(text, query);
    }
    return query;
  };
}

/** A GET is given no body (the door reads none): the one value it can have is validated once. */
function noBody<E extends Endpoint>(endpoint: E): () => z.output<E["body"]> {
  const none = validate<E["body"]>(endpoint.body, undefined, "body");
  return () => none;
}

/** The call's query and body, validated with the row's schemas. */
function parser<E extends Endpoint>(endpoint: E): (call: Call) => Input<E> {
  const queryOf = queryReader(endpoint);
  const bodyOf =
    endpoint.method === "get"
      ? noBody(endpoint)
      : (body: unknown) => validate<E["body"]>(endpoint.body, body, "body");
  return (call) => ({ query: queryOf(call.query), body: bodyOf(call.body), principal: call.principal });
}

/** A list: the records' bytes are made once per record (src/serialization/envelope.ts). */
function list<E extends Endpoint, R extends object>(
  endpoint: E,
  read: (input: Input<E>, accounting: Accounting) => readonly Stored<R>[],
  serialize: (record: R) => unknown,
): BoundEndpoint {
  const bytesOf = cachedBytes(serialize);
  const parse = parser(endpoint);
  return {
    endpoint,
    answer: (call, accounting) => listBytes(read(parse(call), accounting).map(bytesOf)),
  };
}

/** A creation: the new record's answer, made for this request alone. */
function create<E extends Endpoint, R>(
  endpoint: E,
  make: (input: Input<E>, accounting: Accounting) => R,
  serialize: (record: R, input: Input<E>) => unknown,
): BoundEndpoint {
  const parse = parser(endpoint);
  return {
    endpoint,
    answer: (call, accounting) => {
      const input = parse(call);
      return dataBytes(jsonBytes(serialize(make(input, accounting), input)));
    },
  };
}

/** The values of a spec's added fields in a validated creation body (absent: not sent). */
function addedOf(body: Readonly<Record<string, unknown>>, names: readonly string[]): AddedValues | undefined {
  let added: Record<string, AddedValue> | undefined;
  for (const name of names) {
    const value = body[name] as AddedValue | undefined;
    if (value !== undefined) (added ??= {})[name] = value;
  }
  return added;
}

/** A compiled spec's rows, each bound to its operation and serializer. */
function bind(compiled: CompiledSpec): Record<AvailableId, BoundEndpoint> {
  const { table: t, wire, spec } = compiled;
  const contactFields = Object.keys(spec.fields.contact);
  const productFields = Object.keys(spec.fields.product);
  const filterParam = (id: AvailableId) => t[id].filterParam;
  return {
    listContacts: list(
      t.listContacts,
      ({ query, principal }, a) =>
        a.listContacts(principal.organizationId, {
          limit: limitOf(query),
          before: beforeOf(query),
          type: filterOf(query, filterParam("listContacts")),
        }),
      (c) => wire.toContact(c),
    ),
    createContact: create(
      t.createContact,
      ({ body, principal }, a) =>
        a.createContact(principal.organizationId, body, addedOf(body, contactFields)),
      (contact, { body }) => wire.toContactCreated(contact, body),
    ),
    listProducts: list(
      t.listProducts,
      ({ query, principal }, a) =>
        a.listProducts(principal.organizationId, { limit: limitOf(query), before: beforeOf(query) }),
      (p) => wire.toProduct(p),
    ),
    createProduct: create(
      t.createProduct,
      ({ body, principal }, a) =>
        a.createProduct(principal.organizationId, body, addedOf(body, productFields)),
      (p) => wire.toProduct(p),
    ),
    listInvoices: list(
      t.listInvoices,
      ({ query, principal }, a) =>
        a.listInvoices(principal.organizationId, {
          limit: limitOf(query),
          before: beforeOf(query),
          status: filterOf(query, filterParam("listInvoices")),
        }),
      (i) => wire.toInvoice(i),
    ),
    listExpenses: list(
      t.listExpenses,
      ({ query, principal }, a) =>
        a.listExpenses(principal.organizationId, {
          limit: limitOf(query),
          before: beforeOf(query),
          status: filterOf(query, filterParam("listExpenses")),
        }),
      (e) => wire.toExpense(e),
    ),
  };
}

const bound = new WeakMap<CompiledSpec, Record<AvailableId, BoundEndpoint>>();

/** A compiled spec's bound endpoints, made once per compiled spec (their query caches with them). */
export function boundFor(compiled: CompiledSpec): Record<AvailableId, BoundEndpoint> {
  let made = bound.get(compiled);
  if (made === undefined) {
    made = bind(compiled);
    bound.set(compiled, made);
  }
  return made;
}

/** The default spec's bound endpoints (what the reference serves without a variant). */
export const BOUND = boundFor(compileSpec(defaultSpec()));

/** The domain's operations over one state, made once per state. */
export function accountingOf(ids: IdGenerator = randomIds): (state: ReferenceState) => Accounting {
  const made = new WeakMap<ReferenceState, Accounting>();
  return (state) => {
    let accounting = made.get(state);
    if (accounting === undefined) {
      accounting = new Accounting({ store: state.store, clock: state.clock, ids });
      made.set(state, accounting);
    }
    return accounting;
  };
}
