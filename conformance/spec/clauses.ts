/**
 * The spec's sections and clauses (accounting-api.md), each clause with a stable id, a short
 * paraphrase in the kit's words and what kind of clause it is. Checks cite clauses by id; reports,
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
  /** The spec-gaps row that takes the kit's stance on this clause's open point. */
  gap?: number;
}

const rule = <const I extends string>(id: I, says: string): Entry<I> => ({ id, kind: "rule", says });
const unseen = <const I extends string>(id: I, says: string): Entry<I> => ({ id, kind: "unseen", says });
const informative = <const I extends string>(id: I, says: string): Entry<I> => ({
  id,
  kind: "informative",
  says,
});
const open = <const I extends string>(id: I, says: string, gap?: number): Entry<I> => ({
  id,
  kind: "open",
  says,
  ...(gap === undefined ? {} : { gap }),
});

const ENTRIES = [
  // §1 What the service does
  informative("§1.1", "The API gives programs one organization's contacts, products, invoices and expenses."),
  rule(
    "§1.2",
    "A token belongs to one organization and reaches only its data; what that organization lacks is 404.",
  ),
  rule("§1.3", "Contacts and products can be listed and created; invoices and expenses listed."),
  rule(
    "§1.4",
    "Invoice creation is announced, not there yet; expenses cannot be written; the two write scopes are coming soon.",
  ),
  rule("§1.5", "Every answer is JSON in UTF-8."),
  rule(
    "§1.6",
    "A success is an object with the one key data: an object (one element, a creation) or an array.",
  ),
  rule("§1.7", "An error uses the envelope of §7."),

  // §2 Resources and their fields: the general conventions, then one sub-section per table
  rule("§2.1", "Amounts in answers are decimal strings with four decimals."),
  rule(
    "§2.2",
    "Timestamps are ISO 8601 in UTC with milliseconds and Z; invoice and expense dates (and dueDate) are midnights.",
  ),
  rule("§2.3", "Identifiers are strings."),
  open(
    "§2.4",
    "Which optional fields may be absent or null is not said, beyond a contact's tax numbers, which may be null.",
    4,
  ),
  open("§2.5", "Identifiers' format and length are not said beyond their being strings.", 3),
  rule("§2 Contact.1", "A contact's id is a string identifier."),
  rule("§2 Contact.2", "A contact's type is CLIENT, SUPPLIER or BOTH."),
  rule("§2 Contact.3", "A contact's name is a string of at most 200 characters when created."),
  rule("§2 Contact.4", "A contact's email is a valid e-mail address."),
  rule("§2 Contact.5", "A contact's phone is a string of at most 50 characters when created."),
  rule("§2 Contact.6", "A contact's address is a postal address of at most 500 characters when created."),
  rule("§2 Contact.7", "taxNumberTPS, the federal tax number, is a string or null, at most 50 when created."),
  rule(
    "§2 Contact.8",
    "taxNumberTVQ, the provincial tax number, is a string or null, at most 50 when created.",
  ),
  rule("§2 Contact.9", "A contact's createdAt is a timestamp."),
  rule("§2 Contact.10", "A contact's updatedAt is a timestamp."),
  rule(
    "§2 Contact.11",
    "A creation answers a subset of the contact (id, type, name, email, phone, createdAt); fields not sent are left out.",
  ),
  rule("§2 Product.1", "A product's id is a string identifier."),
  rule("§2 Product.2", "A product's sku is a unique item code of at most 100 characters."),
  rule("§2 Product.3", "A product's name has at most 200 characters."),
  rule("§2 Product.4", "A product's description has at most 2000 characters."),
  rule("§2 Product.5", "A product's type is PRODUCT or SERVICE."),
  rule("§2 Product.6", "unitPrice is a four-decimal string in answers and a number >= 0 when created."),
  rule("§2 Product.7", "taxable is a boolean; true means both sales taxes (TPS and TVQ) apply."),
  rule("§2 Product.8", "A product's createdAt is a timestamp."),
  rule("§2 Product.9", "A product's updatedAt is a timestamp."),
  rule("§2 Invoice.1", "An invoice's id is a string identifier."),
  rule("§2 Invoice.2", "invoiceNumber is the number people see, a string."),
  rule("§2 Invoice.3", "An invoice's date is a midnight timestamp."),
  rule("§2 Invoice.4", "dueDate is a midnight timestamp."),
  rule("§2 Invoice.5", "An invoice's status is DRAFT, SENT, PAID, OVERDUE or VOIDED."),
  rule("§2 Invoice.6", "subtotal is the amount before taxes, a decimal string."),
  rule("§2 Invoice.7", "An invoice's tps is the federal tax, a decimal string."),
  rule("§2 Invoice.8", "An invoice's tvq is the provincial tax, a decimal string."),
  rule("§2 Invoice.9", "An invoice's total includes the taxes, a decimal string."),
  rule("§2 Invoice.10", "An invoice's description is free text."),
  rule("§2 Invoice.11", "An invoice's contact is an object: id, name and email, strings."),
  rule("§2 Invoice.12", "An invoice's createdAt is a timestamp."),
  rule("§2 Expense.1", "An expense's id is a string identifier."),
  rule("§2 Expense.2", "An expense's date is a midnight timestamp."),
  rule("§2 Expense.3", "An expense's status is DRAFT, APPROVED, PAID or REJECTED."),
  rule("§2 Expense.4", "amount is the amount before taxes, a decimal string."),
  rule("§2 Expense.5", "An expense's tps is the federal tax, a decimal string."),
  rule("§2 Expense.6", "An expense's tvq is the provincial tax, a decimal string."),
  rule("§2 Expense.7", "An expense's total includes the taxes, a decimal string."),
  rule("§2 Expense.8", "An expense's description is free text."),
  rule("§2 Expense.9", "An expense's contact is an object: id and name, strings."),
  rule("§2 Expense.10", "An expense's account is a ledger account object: id, code and name, strings."),
  rule("§2 Expense.11", "An expense's createdAt is a timestamp."),
  unseen("§2 API token.1", "A token has a name, chosen when it is made."),
  unseen("§2 API token.2", "A token has the scopes chosen when it is made (§5)."),
  unseen("§2 API token.3", "A token may have an expiry date, set when it is made."),
  unseen("§2 API token.4", "A token records when it was last used."),
  unseen("§2 API token.5", "A token counts the requests made with it."),
  unseen("§2 API token.6", "A token is Active, Expired or Revoked."),

  // §3 States and transitions
  rule("§3 Invoice status.1", "An invoice is DRAFT, SENT, PAID, OVERDUE or VOIDED."),
  open("§3 Invoice status.2", "How an invoice moves between states is not said.", 30),
  rule("§3 Expense status.1", "An expense is DRAFT, APPROVED, PAID or REJECTED."),
  open("§3 Expense status.2", "How an expense moves between states is not said.", 30),
  rule(
    "§3 Token status.1",
    "Revoking an Active token (confirmed, in the web interface) makes it Revoked at once and for good: every later request with it gets 401 unauthorized.",
  ),
  rule(
    "§3 Token status.2",
    "An Active token whose expiry date comes is Expired: its requests get 401 unauthorized.",
  ),
  rule("§3 Token status.3", "Contacts and products carry no status."),

  // §4 Endpoints: the common rules, then the endpoint table, then the sub-sections
  rule("§4.1", "Every endpoint wants Authorization: Bearer <token> and the scope its row names."),
  rule("§4.2", "POST bodies are JSON, sent with Content-Type: application/json."),
  rule("§4.3", "A list succeeds with 200, a creation with 201; errors are §7's."),
  rule(
    "§4.4",
    "CORS: any origin; methods GET, POST, PUT, PATCH, DELETE, OPTIONS; headers Authorization and Content-Type; pre-flights are answered. What PUT, PATCH and DELETE get is not said.",
  ),
  rule(
    "§4.5",
    "GET /api/v1/contacts, contacts:read: filter type (CLIENT, SUPPLIER, BOTH), limit (default 50, max 200); 200 with an array of contacts.",
  ),
  rule("§4.6", "POST /api/v1/contacts, contacts:write, the body below: 201 with the contact (a subset)."),
  rule(
    "§4.7",
    "GET /api/v1/products, products:read: limit 1 to 200 (default 50); 200 with an array of products.",
  ),
  rule("§4.8", "POST /api/v1/products, products:write, the body below, creates a product."),
  rule(
    "§4.9",
    "GET /api/v1/invoices, invoices:read: filter status (the five invoice statuses), limit 1 to 200 (default 50); 200 with an array of invoices.",
  ),
  rule(
    "§4.10",
    "GET /api/v1/expenses, expenses:read: filter status (the four expense statuses), limit 1 to 200 (default 50); 200 with an array of expenses.",
  ),
  open("§4.11", "The status and body a product creation answers are not said.", 6),
  rule("§4 Contacts body.1", "type is required: CLIENT, SUPPLIER or BOTH."),
  rule("§4 Contacts body.2", "name is required, a string of at most 200 characters."),
  rule("§4 Contacts body.3", "email is optional, in valid e-mail format."),
  rule("§4 Contacts body.4", "phone is optional, at most 50 characters."),
  rule("§4 Contacts body.5", "address is optional, at most 500 characters."),
  rule("§4 Contacts body.6", "taxNumberTPS is optional, at most 50 characters."),
  rule("§4 Contacts body.7", "taxNumberTVQ is optional, at most 50 characters."),
  rule("§4 Products body.1", "sku is required, at most 100 characters, unique among the products."),
  rule("§4 Products body.2", "name is required, at most 200 characters."),
  rule("§4 Products body.3", "description is optional, at most 2000 characters."),
  rule("§4 Products body.4", "type is optional: PRODUCT, the default, or SERVICE."),
  rule("§4 Products body.5", "unitPrice is a required number >= 0."),
  rule("§4 Products body.6", "taxable is an optional boolean, true by default."),
  rule("§4 Products body.7", "A sku already used gets 400 invalid_request."),
  rule("§4 Pagination.1", "A list holds at most limit items (50 by default, 200 at most)."),
  rule(
    "§4 Pagination.2",
    "Past 200 items, a client asks again with limit and before set from the last item's date.",
  ),
  open(
    "§4 Pagination.3",
    "before comes to the endpoints one by one: which take it, and in what format, is not said.",
    8,
  ),
  open("§4 Pagination.4", "What a limit outside 1 to 200, or not an integer, gets is not said.", 10),
  rule("§4 Not available.1", "POST /api/v1/invoices is announced and not available yet."),

  // §5 Authentication: the numbered items, then the scopes table
  rule(
    "§5.1",
    "A request carries Authorization: Bearer <token>; tokens start with a fixed prefix and an underscore. What follows the prefix is not said.",
  ),
  unseen("§5.2", "Tokens are made in the web interface: a name, scopes, an optional expiry date."),
  unseen("§5.3", "A token is shown in clear once, when made; a lost one is revoked and replaced."),
  rule("§5.4", "A token reaches all its organization's data that its scopes allow."),
  rule(
    "§5.5",
    "Revoking, in the web interface, is immediate and final: later requests get 401 unauthorized.",
  ),
  rule(
    "§5.6",
    "A missing, invalid, expired or revoked token gets 401 unauthorized; a valid token without the endpoint's scope gets 403 forbidden.",
  ),
  unseen("§5.7", "A usage view shows each token's last use, request count and status."),
  informative(
    "§5.8",
    "Advice on keeping tokens: a secret store, one per integration, the fewest scopes, rotation, never in source control or a client app.",
  ),
  rule("§5 Scopes.1", "contacts:read reads contacts."),
  rule("§5 Scopes.2", "contacts:write creates and changes contacts."),
  rule("§5 Scopes.3", "products:read reads products."),
  rule("§5 Scopes.4", "products:write creates and changes products."),
  rule("§5 Scopes.5", "invoices:read reads invoices."),
  rule("§5 Scopes.6", "invoices:write, for creating and changing invoices, is coming soon."),
  rule("§5 Scopes.7", "expenses:read reads expenses."),
  rule("§5 Scopes.8", "expenses:write, for creating and changing expenses, is coming soon."),

  // §6 Events
  open("§6.1", "No events, webhooks or notifications are described."),

  // §7 Errors: the error body, then the codes
  rule("§7.1", "error.code is a string for machines."),
  rule("§7.2", "error.message is a string for people."),
  rule("§7.3", "error.details is optional, an object of details per field; its structure is not said."),
  rule("§7.4", "400 invalid_request: a malformed body or invalid data (a duplicate sku among them)."),
  rule("§7.5", "401 unauthorized: a token missing, invalid, expired or revoked."),
  rule("§7.6", "403 forbidden: a valid token without the scope, or an organization whose plan falls short."),
  rule("§7.7", "404 not_found: nothing of that kind in the caller's organization."),
  rule("§7.8", "429 rate_limited: more than 100 requests a minute."),
  rule("§7.9", "500 internal_error: the server failed; the client tries again a few seconds later."),

  // §8 Limits: the table, then what it leaves open
  rule("§8.1", "100 requests a minute; past that, 429 rate_limited."),
  rule("§8.2", "A page holds 50 items by default, 1 at least, 200 at most."),
  rule("§8.3", "A contact's name has at most 200 characters."),
  rule("§8.4", "A contact's phone and tax numbers have at most 50 characters each."),
  rule("§8.5", "A contact's address has at most 500 characters."),
  rule("§8.6", "A product's sku has at most 100 characters."),
  rule("§8.7", "A product's name has at most 200 characters."),
  rule("§8.8", "A product's description has at most 2000 characters."),
  rule("§8.9", "A product's unitPrice is >= 0."),
  open("§8.10", "What the rate limit counts, its headers and when it resets are not said.", 21),

  // §9 Versioning
  rule("§9.1", "The version is in the path: every endpoint starts with /api/v1."),
  informative(
    "§9.2",
    "Endpoints and parameters (before) come progressively; invoice creation and invoice and expense writes are planned.",
  ),
  open("§9.3", "How versions are deprecated and what may change between them is not said."),
] as const;

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
