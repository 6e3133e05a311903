import type { z } from "zod";
import type { Principal } from "../../auth/authenticate.js";
import { Accounting } from "../../domain/accounting.js";
import type { Stored } from "../../model/records.js";
import type { AvailableId, Endpoint } from "../../routes/table.js";
import { API_TABLE } from "../../routes/table.js";
import { cachedBytes, dataBytes, jsonBytes, listBytes } from "../../serialization/envelope.js";
import {
  toContact,
  toContactCreated,
  toExpense,
  toInvoice,
  toProduct,
} from "../../serialization/resources.js";
import type { ReferenceState } from "../../store/state.js";
import { randomIds, type IdGenerator } from "../../store/ids.js";
import { parseQuery } from "../../http/query.js";
import { validate } from "../../validation/validate.js";

/**
 * The one place where §4's rows (src/routes/table.ts) meet the code that answers them: each row is
 * bound to a domain operation and to the serializer of what it returns.
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
  serialize: (record: R) => z.input<E["response"]>,
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
  serialize: (record: R, input: Input<E>) => z.input<E["response"]>,
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

const t = API_TABLE;

export const BOUND = {
  listContacts: list(
    t.listContacts,
    ({ query, principal }, a) => a.listContacts(principal.organizationId, query),
    toContact,
  ),
  createContact: create(
    t.createContact,
    ({ body, principal }, a) => a.createContact(principal.organizationId, body),
    (contact, { body }) => toContactCreated(contact, body),
  ),
  listProducts: list(
    t.listProducts,
    ({ query, principal }, a) => a.listProducts(principal.organizationId, query),
    toProduct,
  ),
  createProduct: create(
    t.createProduct,
    ({ body, principal }, a) => a.createProduct(principal.organizationId, body),
    toProduct,
  ),
  listInvoices: list(
    t.listInvoices,
    ({ query, principal }, a) => a.listInvoices(principal.organizationId, query),
    toInvoice,
  ),
  listExpenses: list(
    t.listExpenses,
    ({ query, principal }, a) => a.listExpenses(principal.organizationId, query),
    toExpense,
  ),
} satisfies Record<AvailableId, BoundEndpoint>;

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
