/**
 * The spec's sections and clauses (accounting-api.md), each clause with a stable id, a short
 * paraphrase in the kit's words, the spec's own words it rests on (`quote`: its sentence, bullet or
 * table row, exactly as written; a test finds each in the spec text) and what kind of clause it is. Checks cite clauses by id; reports,
 * the coverage table and the clause document read them here.
 *
 * Ids follow the spec's structure (DECISIONS.md, "Clause ids"):
 * - `§N.k`: the k-th clause of section N's own text, outside its sub-sections, in the spec's order:
 *   bullets, numbered items and table rows alike (`§5.6` is item 6 of §5, `§8.2` the second row of the
 *   limits table, `§4.5` the first row of §4's endpoint table after its four common rules);
 * - `§N Name.k`: the k-th clause of a sub-section (a `###` heading, or a labelled table), named by a
 *   short form of its title (`§4 Pagination.2`, `§2 Contact.3` for the contact table's third row,
 *   `§4 Products body.7` for the duplicate-sku rule under the product body table).
 * A sentence that follows a table in the same sub-section is that sub-section's next clause.
 *
 * Written from the spec, never imported from the reference, like spec/constants.ts.
 */

/** The spec's sections, in its order: checks name theirs with these. */
export const SECTION = {
  service: "§1 What the service does",
  resources: "§2 Resources and their fields",
  states: "§3 States and transitions",
  endpoints: "§4 Endpoints",
  auth: "§5 Authentication",
  events: "§6 Events",
  errors: "§7 Errors",
  limits: "§8 Limits",
  versioning: "§9 Versioning",
} as const;

export type SectionName = (typeof SECTION)[keyof typeof SECTION];

export interface Section {
  number: number;
  /** "§4 Endpoints". */
  name: SectionName;
  /** "Endpoints". */
  title: string;
}

/** The sections with their numbers, in the spec's order (SECTION is written in that order). */
export const SECTIONS: readonly Section[] = Object.values(SECTION).map((name, i) => ({
  number: i + 1,
  name,
  title: name.slice(name.indexOf(" ") + 1),
}));

/** In spec order: the catalogue is sorted by it. */
export const SECTION_ORDER: readonly string[] = SECTIONS.map((s) => s.name);

/**
 * rule: normative, and visible through the API: a check can hold a target to it.
 * unseen: normative, but only visible elsewhere (the web interface, how tokens are kept or shown).
 * open: the spec says "not shown": an open point of spec-gaps, which checks probe at most.
 * informative: promises nothing (purpose, advice, plans).
 */
export type ClauseKind = "rule" | "unseen" | "open" | "informative";

interface Entry<I extends string> {
  id: I;
  kind: ClauseKind;
  says: string;
  /** The spec's own words the clause rests on: its sentence, bullet or table row, exactly as written. */
  quote: string;
  /** The spec-gaps row that takes the kit's stance on this clause's open point. */
  gap?: number;
}

const entry =
  (kind: ClauseKind) =>
  <const I extends string>(id: I, says: string, quote: string): Entry<I> => ({ id, kind, says, quote });
const rule = entry("rule");
const unseen = entry("unseen");
const informative = entry("informative");
const open = <const I extends string>(id: I, says: string, quote: string, gap?: number): Entry<I> => ({
  id,
  kind: "open",
  says,
  quote,
  ...(gap === undefined ? {} : { gap }),
});

const ENTRIES = [
  // §1 What the service does
  informative(
    "§1.1",
    "The API gives programs one organization's contacts, products, invoices and expenses.",
    "The service is an accounting platform for organizations. Its public REST API gives programmatic access to the data of one organization: contacts (clients and suppliers), products/services, invoices and expenses.",
  ),
  rule(
    "§1.2",
    "A token belongs to one organization and reaches only its data; what that organization lacks is 404.",
    "Every request is made with an API token that belongs to one organization. A token only reaches data of its own organization. A resource that is absent from that organization is reported as not found (404).",
  ),
  rule(
    "§1.3",
    "Contacts and products can be listed and created; invoices and expenses listed.",
    "Operations available: list and create contacts; list and create products; list invoices; list expenses.",
  ),
  rule(
    "§1.4",
    "Invoice creation is announced, not there yet; expenses cannot be written; the two write scopes are coming soon.",
    "Invoice creation (POST /api/v1/invoices) is announced as coming soon and does not exist yet. Creating or modifying expenses is also not available. The scopes invoices:write and expenses:write exist but are marked as coming soon.",
  ),
  rule("§1.5", "Every answer is JSON in UTF-8.", "All responses are JSON, UTF-8 encoded."),
  rule(
    "§1.6",
    "A success is an object with the one key data: an object (one element, a creation) or an array.",
    "Response envelope on success: an object with one key `data`. `data` is an object (single element, or the result of a POST) or an array (list).",
  ),
  rule("§1.7", "An error uses the envelope of §7.", "Response envelope on error: see part 7."),

  // §2 Resources and their fields: the general conventions, then one sub-section per table
  rule(
    "§2.1",
    "Amounts in answers are decimal strings with four decimals.",
    "Monetary amounts in responses are decimal strings with four decimal places, to avoid floating-point loss. Clients are expected to handle them with a decimal type.",
  ),
  rule(
    "§2.2",
    "Timestamps are ISO 8601 in UTC with milliseconds and Z; invoice and expense dates (and dueDate) are midnights.",
    "Timestamps are ISO 8601 strings in UTC with millisecond precision and a trailing Z. Invoice and expense `date` and invoice `dueDate` carry a midnight time (T00:00:00.000Z).",
  ),
  rule("§2.3", "Identifiers are strings.", "Identifiers are strings."),
  open(
    "§2.4",
    "Which optional fields may be absent or null is not said, beyond a contact's tax numbers, which may be null.",
    "Nullability and presence of optional fields in responses: not shown beyond taxNumberTPS and taxNumberTVQ, which can be null on a contact.",
    4,
  ),
  open(
    "§2.5",
    "Identifiers' format and length are not said beyond their being strings.",
    "Format and length of identifier values: not shown beyond being strings.",
    3,
  ),
  rule("§2 Contact.1", "A contact's id is a string identifier.", "| id | string | identifier |"),
  rule(
    "§2 Contact.2",
    "A contact's type is CLIENT, SUPPLIER or BOTH.",
    "| type | string | CLIENT, SUPPLIER or BOTH |",
  ),
  rule(
    "§2 Contact.3",
    "A contact's name is a string of at most 200 characters when created.",
    "| name | string | max 200 characters on creation |",
  ),
  rule(
    "§2 Contact.4",
    "A contact's email is a valid e-mail address.",
    "| email | string | valid e-mail address format |",
  ),
  rule(
    "§2 Contact.5",
    "A contact's phone is a string of at most 50 characters when created.",
    "| phone | string | max 50 characters on creation |",
  ),
  rule(
    "§2 Contact.6",
    "A contact's address is a postal address of at most 500 characters when created.",
    "| address | string | postal address, max 500 characters on creation |",
  ),
  rule(
    "§2 Contact.7",
    "taxNumberTPS, the federal tax number, is a string or null, at most 50 when created.",
    "| taxNumberTPS | string or null | federal sales tax number, max 50 on creation |",
  ),
  rule(
    "§2 Contact.8",
    "taxNumberTVQ, the provincial tax number, is a string or null, at most 50 when created.",
    "| taxNumberTVQ | string or null | provincial sales tax number, max 50 on creation |",
  ),
  rule("§2 Contact.9", "A contact's createdAt is a timestamp.", "| createdAt | string | timestamp |"),
  rule("§2 Contact.10", "A contact's updatedAt is a timestamp.", "| updatedAt | string | timestamp |"),
  rule(
    "§2 Contact.11",
    "A creation answers a subset of the contact (id, type, name, email, phone, createdAt); fields not sent are left out.",
    "The creation response carries a subset: id, type, name, email, phone, createdAt (fields not provided at creation are absent from the example response shape).",
  ),
  rule("§2 Product.1", "A product's id is a string identifier.", "| id | string | identifier |"),
  rule(
    "§2 Product.2",
    "A product's sku is a unique item code of at most 100 characters.",
    "| sku | string | unique item code, max 100 characters |",
  ),
  rule(
    "§2 Product.3",
    "A product's name has at most 200 characters.",
    "| name | string | max 200 characters |",
  ),
  rule(
    "§2 Product.4",
    "A product's description has at most 2000 characters.",
    "| description | string | max 2000 characters |",
  ),
  rule("§2 Product.5", "A product's type is PRODUCT or SERVICE.", "| type | string | PRODUCT or SERVICE |"),
  rule(
    "§2 Product.6",
    "unitPrice is a four-decimal string in answers and a number >= 0 when created.",
    "| unitPrice | decimal string in responses (4 decimals) | number >= 0 on creation |",
  ),
  rule(
    "§2 Product.7",
    "taxable is a boolean; true means both sales taxes (TPS and TVQ) apply.",
    "| taxable | boolean | true means federal and provincial sales taxes (TPS and TVQ) apply |",
  ),
  rule("§2 Product.8", "A product's createdAt is a timestamp.", "| createdAt | string | timestamp |"),
  rule("§2 Product.9", "A product's updatedAt is a timestamp.", "| updatedAt | string | timestamp |"),
  rule("§2 Invoice.1", "An invoice's id is a string identifier.", "| id | string | identifier |"),
  rule(
    "§2 Invoice.2",
    "invoiceNumber is the number people see, a string.",
    "| invoiceNumber | string | human-facing invoice number |",
  ),
  rule(
    "§2 Invoice.3",
    "An invoice's date is a midnight timestamp.",
    "| date | string | timestamp (midnight) |",
  ),
  rule("§2 Invoice.4", "dueDate is a midnight timestamp.", "| dueDate | string | timestamp (midnight) |"),
  rule(
    "§2 Invoice.5",
    "An invoice's status is DRAFT, SENT, PAID, OVERDUE or VOIDED.",
    "| status | string | DRAFT, SENT, PAID, OVERDUE, VOIDED |",
  ),
  rule(
    "§2 Invoice.6",
    "subtotal is the amount before taxes, a decimal string.",
    "| subtotal | decimal string | amount before taxes |",
  ),
  rule(
    "§2 Invoice.7",
    "An invoice's tps is the federal tax, a decimal string.",
    "| tps | decimal string | federal tax amount |",
  ),
  rule(
    "§2 Invoice.8",
    "An invoice's tvq is the provincial tax, a decimal string.",
    "| tvq | decimal string | provincial tax amount |",
  ),
  rule(
    "§2 Invoice.9",
    "An invoice's total includes the taxes, a decimal string.",
    "| total | decimal string | total including taxes |",
  ),
  rule("§2 Invoice.10", "An invoice's description is free text.", "| description | string | free text |"),
  rule(
    "§2 Invoice.11",
    "An invoice's contact is an object: id, name and email, strings.",
    "| contact | object | id (string), name (string), email (string) |",
  ),
  rule("§2 Invoice.12", "An invoice's createdAt is a timestamp.", "| createdAt | string | timestamp |"),
  rule("§2 Expense.1", "An expense's id is a string identifier.", "| id | string | identifier |"),
  rule(
    "§2 Expense.2",
    "An expense's date is a midnight timestamp.",
    "| date | string | timestamp (midnight) |",
  ),
  rule(
    "§2 Expense.3",
    "An expense's status is DRAFT, APPROVED, PAID or REJECTED.",
    "| status | string | DRAFT, APPROVED, PAID, REJECTED |",
  ),
  rule(
    "§2 Expense.4",
    "amount is the amount before taxes, a decimal string.",
    "| amount | decimal string | amount before taxes |",
  ),
  rule(
    "§2 Expense.5",
    "An expense's tps is the federal tax, a decimal string.",
    "| tps | decimal string | federal tax amount |",
  ),
  rule(
    "§2 Expense.6",
    "An expense's tvq is the provincial tax, a decimal string.",
    "| tvq | decimal string | provincial tax amount |",
  ),
  rule(
    "§2 Expense.7",
    "An expense's total includes the taxes, a decimal string.",
    "| total | decimal string | total including taxes |",
  ),
  rule("§2 Expense.8", "An expense's description is free text.", "| description | string | free text |"),
  rule(
    "§2 Expense.9",
    "An expense's contact is an object: id and name, strings.",
    "| contact | object | id (string), name (string) |",
  ),
  rule(
    "§2 Expense.10",
    "An expense's account is a ledger account object: id, code and name, strings.",
    "| account | object | ledger account: id (string), code (string), name (string) |",
  ),
  rule("§2 Expense.11", "An expense's createdAt is a timestamp.", "| createdAt | string | timestamp |"),
  unseen(
    "§2 API token.1",
    "A token has a name, chosen when it is made.",
    "| name | descriptive label chosen at creation |",
  ),
  unseen(
    "§2 API token.2",
    "A token has the scopes chosen when it is made (§5).",
    "| scopes | set of permissions chosen at creation (part 5) |",
  ),
  unseen(
    "§2 API token.3",
    "A token may have an expiry date, set when it is made.",
    "| expiry date | optional, defined at creation |",
  ),
  unseen("§2 API token.4", "A token records when it was last used.", "| last use | moment of last use |"),
  unseen(
    "§2 API token.5",
    "A token counts the requests made with it.",
    "| request count | total number of requests made with the token |",
  ),
  unseen("§2 API token.6", "A token is Active, Expired or Revoked.", "| status | Active, Expired, Revoked |"),

  // §3 States and transitions
  rule(
    "§3 Invoice status.1",
    "An invoice is DRAFT, SENT, PAID, OVERDUE or VOIDED.",
    "States: DRAFT, SENT, PAID, OVERDUE, VOIDED.",
  ),
  open(
    "§3 Invoice status.2",
    "How an invoice moves between states is not said.",
    "Transitions: not shown.",
    30,
  ),
  rule(
    "§3 Expense status.1",
    "An expense is DRAFT, APPROVED, PAID or REJECTED.",
    "States: DRAFT, APPROVED, PAID, REJECTED.",
  ),
  open(
    "§3 Expense status.2",
    "How an expense moves between states is not said.",
    "Transitions: not shown.",
    30,
  ),
  rule(
    "§3 Token status.1",
    "Revoking an Active token (confirmed, in the web interface) makes it Revoked at once and for good: every later request with it gets 401 unauthorized.",
    "| Active | revoke action in the web interface (confirmed) | token exists | Revoked | effect is immediate and irreversible; every later request with the token fails with 401 and code unauthorized |",
  ),
  rule(
    "§3 Token status.2",
    "An Active token whose expiry date comes is Expired: its requests get 401 unauthorized.",
    "| Active | expiry date reached | an expiry date was defined | Expired | requests with the token fail with 401 unauthorized |",
  ),
  rule(
    "§3 Token status.3",
    "Contacts and products carry no status.",
    "Contacts and products have no status field.",
  ),

  // §4 Endpoints: the common rules, then the endpoint table, then the sub-sections
  rule(
    "§4.1",
    "Every endpoint wants Authorization: Bearer <token> and the scope its row names.",
    "Every endpoint requires the header `Authorization: Bearer <ACCESS_TOKEN>` and the scope named in its row.",
  ),
  rule(
    "§4.2",
    "POST bodies are JSON, sent with Content-Type: application/json.",
    "POST bodies are JSON and are sent with `Content-Type: application/json`.",
  ),
  rule(
    "§4.3",
    "A list succeeds with 200, a creation with 201; errors are §7's.",
    "Success: 200 for lists, 201 for creation. Errors: part 7.",
  ),
  rule(
    "§4.4",
    "CORS: any origin; methods GET, POST, PUT, PATCH, DELETE, OPTIONS; headers Authorization and Content-Type; pre-flights are answered. What PUT, PATCH and DELETE get is not said.",
    "CORS is supported: allowed origin is any; allowed methods GET, POST, PUT, PATCH, DELETE, OPTIONS; allowed headers Authorization and Content-Type. Pre-flight requests (OPTIONS) are therefore answered. Other methods (PUT, PATCH, DELETE) have no endpoint: not shown.",
  ),
  rule(
    "§4.5",
    "GET /api/v1/contacts, contacts:read: filter type (CLIENT, SUPPLIER, BOTH), limit (default 50, max 200); 200 with an array of contacts.",
    "| GET | /api/v1/contacts | contacts:read | type (optional: CLIENT, SUPPLIER or BOTH); limit (optional int, default 50, max 200) | none | 200, `data`: array of Contact |",
  ),
  rule(
    "§4.6",
    "POST /api/v1/contacts, contacts:write, the body below: 201 with the contact (a subset).",
    "| POST | /api/v1/contacts | contacts:write | none | see below | 201, `data`: Contact (subset) |",
  ),
  rule(
    "§4.7",
    "GET /api/v1/products, products:read: limit 1 to 200 (default 50); 200 with an array of products.",
    "| GET | /api/v1/products | products:read | limit (int, 1 to 200, default 50) | none | 200, `data`: array of Product |",
  ),
  rule(
    "§4.8",
    "POST /api/v1/products, products:write, the body below, creates a product.",
    "| POST | /api/v1/products | products:write | none | see below | endpoint creates a product; the response shape is not shown |",
  ),
  rule(
    "§4.9",
    "GET /api/v1/invoices, invoices:read: filter status (the five invoice statuses), limit 1 to 200 (default 50); 200 with an array of invoices.",
    "| GET | /api/v1/invoices | invoices:read | status (DRAFT, SENT, PAID, OVERDUE or VOIDED); limit (int, 1 to 200, default 50) | none | 200, `data`: array of Invoice |",
  ),
  rule(
    "§4.10",
    "GET /api/v1/expenses, expenses:read: filter status (the four expense statuses), limit 1 to 200 (default 50); 200 with an array of expenses.",
    "| GET | /api/v1/expenses | expenses:read | status (DRAFT, APPROVED, PAID or REJECTED); limit (int, 1 to 200, default 50) | none | 200, `data`: array of Expense |",
  ),
  open(
    "§4.11",
    "The status and body a product creation answers are not said.",
    "The product creation response status code is not shown, and neither is its body.",
    6,
  ),
  rule(
    "§4 Contacts body.1",
    "type is required: CLIENT, SUPPLIER or BOTH.",
    "| type | string | yes | CLIENT, SUPPLIER or BOTH |",
  ),
  rule(
    "§4 Contacts body.2",
    "name is required, a string of at most 200 characters.",
    "| name | string | yes | max 200 characters |",
  ),
  rule(
    "§4 Contacts body.3",
    "email is optional, in valid e-mail format.",
    "| email | string | no | valid e-mail format |",
  ),
  rule(
    "§4 Contacts body.4",
    "phone is optional, at most 50 characters.",
    "| phone | string | no | max 50 characters |",
  ),
  rule(
    "§4 Contacts body.5",
    "address is optional, at most 500 characters.",
    "| address | string | no | max 500 characters |",
  ),
  rule(
    "§4 Contacts body.6",
    "taxNumberTPS is optional, at most 50 characters.",
    "| taxNumberTPS | string | no | max 50 characters |",
  ),
  rule(
    "§4 Contacts body.7",
    "taxNumberTVQ is optional, at most 50 characters.",
    "| taxNumberTVQ | string | no | max 50 characters |",
  ),
  rule(
    "§4 Products body.1",
    "sku is required, at most 100 characters, unique among the products.",
    "| sku | string | yes | unique among products, max 100 characters |",
  ),
  rule(
    "§4 Products body.2",
    "name is required, at most 200 characters.",
    "| name | string | yes | max 200 characters |",
  ),
  rule(
    "§4 Products body.3",
    "description is optional, at most 2000 characters.",
    "| description | string | no | max 2000 characters |",
  ),
  rule(
    "§4 Products body.4",
    "type is optional: PRODUCT, the default, or SERVICE.",
    "| type | string | no | PRODUCT (default) or SERVICE |",
  ),
  rule("§4 Products body.5", "unitPrice is a required number >= 0.", "| unitPrice | number | yes | >= 0 |"),
  rule(
    "§4 Products body.6",
    "taxable is an optional boolean, true by default.",
    "| taxable | boolean | no | default true |",
  ),
  rule(
    "§4 Products body.7",
    "A sku already used gets 400 invalid_request.",
    "Rule: a duplicate sku yields 400 with code invalid_request.",
  ),
  rule(
    "§4 Pagination.1",
    "A list holds at most limit items (50 by default, 200 at most).",
    "A list returns at most `limit` items (default 50, max 200).",
  ),
  rule(
    "§4 Pagination.2",
    "Past 200 items, a client asks again with limit and before set from the last item's date.",
    "To read beyond 200 results, the client repeats the request with limit and a date filter `before` set from the date of the last result of the previous page.",
  ),
  open(
    "§4 Pagination.3",
    "before comes to the endpoints one by one: which take it, and in what format, is not said.",
    "The `before` parameter is being added to endpoints progressively. Which endpoints accept it and its exact format: not shown.",
    8,
  ),
  open(
    "§4 Pagination.4",
    "What a limit outside 1 to 200, or not an integer, gets is not said.",
    "Behavior for a limit outside 1 to 200 or not an integer: not shown.",
    10,
  ),
  rule(
    "§4 Not available.1",
    "POST /api/v1/invoices is announced and not available yet.",
    "POST /api/v1/invoices: announced, not yet available.",
  ),

  // §5 Authentication: the numbered items, then the scopes table
  rule(
    "§5.1",
    "A request carries Authorization: Bearer <token>; tokens start with a fixed prefix and an underscore. What follows the prefix is not said.",
    "Each request carries the header `Authorization: Bearer <ACCESS_TOKEN>`. The token starts with a fixed prefix `<token_prefix>_`. Token length and character set after the prefix: not shown.",
  ),
  unseen(
    "§5.2",
    "Tokens are made in the web interface: a name, scopes, an optional expiry date.",
    "Tokens are created in the web interface (settings, API tokens, new token): the user gives a name and ticks scopes; an expiry date can optionally be defined.",
  ),
  unseen(
    "§5.3",
    "A token is shown in clear once, when made; a lost one is revoked and replaced.",
    "The token in clear text is displayed once only, at creation, and cannot be shown again. A lost token is revoked and replaced.",
  ),
  rule(
    "§5.4",
    "A token reaches all its organization's data that its scopes allow.",
    "A token gives access to all data of its organization within its granted scopes.",
  ),
  rule(
    "§5.5",
    "Revoking, in the web interface, is immediate and final: later requests get 401 unauthorized.",
    "Revocation is done in the web interface, is instant and irreversible, and makes later requests fail with 401 unauthorized.",
  ),
  rule(
    "§5.6",
    "A missing, invalid, expired or revoked token gets 401 unauthorized; a valid token without the endpoint's scope gets 403 forbidden.",
    "A token that is missing, invalid, expired or revoked gives 401 unauthorized. A valid token without the scope required by the endpoint gives 403 forbidden.",
  ),
  unseen(
    "§5.7",
    "A usage view shows each token's last use, request count and status.",
    "A token usage view shows per token: last use, request count, status (Active, Expired, Revoked).",
  ),
  informative(
    "§5.8",
    "Advice on keeping tokens: a secret store, one per integration, the fewest scopes, rotation, never in source control or a client app.",
    "Recommended practice: store tokens in environment variables or a secrets manager; one token per integration; minimal scopes; rotate every 6 to 12 months; do not commit tokens to source control, embed them in client-side apps, share them in clear text or reuse them across servers or environments.",
  ),
  rule("§5 Scopes.1", "contacts:read reads contacts.", "| contacts:read | read contacts |"),
  rule(
    "§5 Scopes.2",
    "contacts:write creates and changes contacts.",
    "| contacts:write | create / modify contacts |",
  ),
  rule("§5 Scopes.3", "products:read reads products.", "| products:read | read products |"),
  rule(
    "§5 Scopes.4",
    "products:write creates and changes products.",
    "| products:write | create / modify products |",
  ),
  rule("§5 Scopes.5", "invoices:read reads invoices.", "| invoices:read | read invoices |"),
  rule(
    "§5 Scopes.6",
    "invoices:write, for creating and changing invoices, is coming soon.",
    "| invoices:write | create / modify invoices (coming soon) |",
  ),
  rule("§5 Scopes.7", "expenses:read reads expenses.", "| expenses:read | read expenses |"),
  rule(
    "§5 Scopes.8",
    "expenses:write, for creating and changing expenses, is coming soon.",
    "| expenses:write | create / modify expenses (coming soon) |",
  ),

  // §6 Events
  open(
    "§6.1",
    "No events, webhooks or notifications are described.",
    "Events: not shown. No event kinds, webhooks or notifications are described.",
  ),

  // §7 Errors: the error body, then the codes
  rule("§7.1", "error.code is a string for machines.", "| error.code | string | machine-readable code |"),
  rule(
    "§7.2",
    "error.message is a string for people.",
    "| error.message | string | human-readable description |",
  ),
  rule(
    "§7.3",
    "error.details is optional, an object of details per field; its structure is not said.",
    "| error.details | object | optional, per-field details. Exact structure of the details object: not shown. |",
  ),
  rule(
    "§7.4",
    "400 invalid_request: a malformed body or invalid data (a duplicate sku among them).",
    "| 400 | invalid_request | payload malformed or contains invalid data (includes duplicate sku on product creation) |",
  ),
  rule(
    "§7.5",
    "401 unauthorized: a token missing, invalid, expired or revoked.",
    "| 401 | unauthorized | token missing, invalid, expired or revoked |",
  ),
  rule(
    "§7.6",
    "403 forbidden: a valid token without the scope, or an organization whose plan falls short.",
    "| 403 | forbidden | valid token without the required scope, or the organization's plan is insufficient |",
  ),
  rule(
    "§7.7",
    "404 not_found: nothing of that kind in the caller's organization.",
    "| 404 | not_found | requested resource does not exist in the caller's organization |",
  ),
  rule(
    "§7.8",
    "429 rate_limited: more than 100 requests a minute.",
    "| 429 | rate_limited | more than 100 requests per minute |",
  ),
  rule(
    "§7.9",
    "500 internal_error: the server failed; the client tries again a few seconds later.",
    "| 500 | internal_error | server-side error; the client retries after a few seconds |",
  ),

  // §8 Limits: the table, then what it leaves open
  rule(
    "§8.1",
    "100 requests a minute; past that, 429 rate_limited.",
    "| Request rate | 100 requests per minute; beyond it, 429 rate_limited |",
  ),
  rule(
    "§8.2",
    "A page holds 50 items by default, 1 at least, 200 at most.",
    "| Page size (limit) | default 50, min 1, max 200 |",
  ),
  rule("§8.3", "A contact's name has at most 200 characters.", "| Contact name | max 200 characters |"),
  rule(
    "§8.4",
    "A contact's phone and tax numbers have at most 50 characters each.",
    "| Contact phone, taxNumberTPS, taxNumberTVQ | max 50 characters each |",
  ),
  rule("§8.5", "A contact's address has at most 500 characters.", "| Contact address | max 500 characters |"),
  rule("§8.6", "A product's sku has at most 100 characters.", "| Product sku | max 100 characters |"),
  rule("§8.7", "A product's name has at most 200 characters.", "| Product name | max 200 characters |"),
  rule(
    "§8.8",
    "A product's description has at most 2000 characters.",
    "| Product description | max 2000 characters |",
  ),
  rule("§8.9", "A product's unitPrice is >= 0.", "| Product unitPrice | >= 0 |"),
  open(
    "§8.10",
    "What the rate limit counts, its headers and when it resets are not said.",
    "Rate-limit scope (per token or otherwise), rate-limit response headers and reset behavior: not shown.",
    21,
  ),

  // §9 Versioning
  rule(
    "§9.1",
    "The version is in the path: every endpoint starts with /api/v1.",
    "The version is part of the path: all endpoints start with /api/v1.",
  ),
  informative(
    "§9.2",
    "Endpoints and parameters (before) come progressively; invoice creation and invoice and expense writes are planned.",
    "Endpoints and parameters (for example before) are added progressively; invoice creation and write access for invoices and expenses are planned.",
  ),
  open(
    "§9.3",
    "How versions are deprecated and what may change between them is not said.",
    "Deprecation policy and rules for changes between versions: not shown.",
  ),
] as const;

/**
 * A quote as a reader meets it: a table row's cells joined by " · ", without the row's bars; a
 * sentence or bullet as it is.
 */
export function quoteText(quote: string): string {
  const row = /^\|(.*)\|$/.exec(quote);
  return row === null ? quote : (row[1] ?? "").trim().replace(/\s*\|\s*/g, " · ");
}

/** A clause's id: `§5.6`, `§4 Pagination.2`. */
export type ClauseId = (typeof ENTRIES)[number]["id"];

/** What comes before a clause's number: `§5`, `§4 Pagination`. */
export type ClausePart = ClauseId extends `${infer P}.${string}` ? P : never;

export interface Clause {
  id: ClauseId;
  /** Its section's number. */
  section: number;
  /** `§4 Pagination`, or `§4` for the section's own text. */
  part: ClausePart;
  /** Its number within the part. */
  number: number;
  kind: ClauseKind;
  /** What it says, in the kit's words. */
  says: string;
  /** The spec's own words: the sentence, bullet or table row it rests on, quoted exactly. */
  quote: string;
  gap?: number;
}

const ID = /^§(\d+)(?: [^.]+)?\.(\d+)$/;

function clauseOf(entry: Entry<ClauseId>): Clause {
  const m = ID.exec(entry.id);
  const part = CLAUSE_PARTS.find((p) => p === entry.id.slice(0, entry.id.lastIndexOf(".")));
  if (m === null || part === undefined) throw new Error(`clause id ${entry.id} is not §N.k or §N Name.k`);
  return { ...entry, section: Number(m[1]), part, number: Number(m[2]) };
}

/** Every part, in the spec's order: a section's own text, then its sub-sections. */
export const CLAUSE_PARTS: readonly ClausePart[] = [
  "§1",
  "§2",
  "§2 Contact",
  "§2 Product",
  "§2 Invoice",
  "§2 Expense",
  "§2 API token",
  "§3 Invoice status",
  "§3 Expense status",
  "§3 Token status",
  "§4",
  "§4 Contacts body",
  "§4 Products body",
  "§4 Pagination",
  "§4 Not available",
  "§5",
  "§5 Scopes",
  "§6",
  "§7",
  "§8",
  "§9",
];

/** Every clause of the spec, in its order. */
export const CLAUSES: readonly Clause[] = ENTRIES.map(clauseOf);

const BY_ID = new Map<string, Clause>(CLAUSES.map((c) => [c.id, c]));

/** The clause with this id, if there is one (ids read from a report are plain strings). */
export const clauseById = (id: string): Clause | undefined => BY_ID.get(id);

/** Whether a check can hold a target to the clause from outside: a normative rule seen through the API. */
export const isTestable = (c: Clause): boolean => c.kind === "rule";

/** Whether a section has any clause a check can hold a target to (§6 has none). */
export const sectionHasRules = (section: number): boolean =>
  CLAUSES.some((c) => c.section === section && isTestable(c));

/** Clauses `from` to `to` of a part, as the table has them: `clauseRange("§2 Contact", 1, 10)`. */
export function clauseRange(part: ClausePart, from: number, to: number): ClauseId[] {
  return CLAUSES.filter((c) => c.part === part && c.number >= from && c.number <= to).map((c) => c.id);
}

/** What a check cites: one clause or several. */
export type ClauseRef = ClauseId | readonly ClauseId[];

export const clauseList = (ref: ClauseRef): readonly ClauseId[] => (typeof ref === "string" ? [ref] : ref);

/** Clause ids as a reader scans them, consecutive ones of a part joined: "§4 Products body.1–6, §7.4". */
export function formatClauses(ids: readonly string[]): string {
  const out: string[] = [];
  let run: { part: string; from: number; to: number } | undefined;
  const flush = (): void => {
    if (run === undefined) return;
    out.push(`${run.part}.${run.from}${run.to === run.from ? "" : `–${run.to}`}`);
    run = undefined;
  };
  for (const id of ids) {
    const c = clauseById(id);
    if (c === undefined) {
      flush();
      out.push(id);
    } else if (run !== undefined && run.part === c.part && c.number === run.to + 1) {
      run.to = c.number;
    } else {
      flush();
      run = { part: c.part, from: c.number, to: c.number };
    }
  }
  flush();
  return out.join(", ");
}
