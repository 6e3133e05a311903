/**
 * The kit's stance on each point the spec leaves open, numbered as spec-gaps numbers them (the
 * guide the project was given; it is not shipped). Checks and clauses cite a row by its number (`gap`);
 * `docs/kit-stance.md` is this table as a document (`npm run clauses` writes it, a test keeps it
 * current), shipped in the package next to the clause document that links to its rows.
 *
 * In the project's words: what an implementation may do on the point and still pass, and what fails
 * it. DECISIONS.md gives the reference server's own answers, which only `--profile reference` checks.
 */

export interface Stance {
  /** The spec-gaps row number. */
  gap: number;
  /** The open point, in a few words. */
  point: string;
  /** Where the spec leaves it open, or says two things: clause ids or sections. */
  where: string;
  /** What the kit holds an implementation to in the default `spec` profile, and what it only shows. */
  stance: string;
}

const row = (gap: number, point: string, where: string, stance: string): Stance => ({
  gap,
  point,
  where,
  stance,
});

export const STANCES: readonly Stance[] = [
  row(
    1,
    "The token prefix",
    "§5.1",
    "Any prefix passes: the kit never builds a token, it uses those the manifest lists, and judges a token it was not given (a near miss, an unknown one) only by the 401 it must get.",
  ),
  row(
    2,
    "Token length and characters",
    "§5.1",
    "Nothing is checked: how long a token is and what it is made of cannot be told apart from outside, and storage at rest is invisible.",
  ),
  row(
    3,
    "What an identifier looks like",
    "§2.5",
    "An id must be a non-empty string, and two items of one list never share one (MUST). Its form, its length and whether ids of two collections can coincide are the implementation's business.",
  ),
  row(
    4,
    "Whether optional fields are present, and null",
    "§2.4",
    "An optional field may be left out, be null, or carry a value; only a value that is there must have the type §2 gives it (MUST). A field the client did not send never reads back as another record's value.",
  ),
  row(
    5,
    "Which fields a contact's creation answers",
    "§2 Contact.11",
    "The answer must carry id, type, name and createdAt, and the email and phone sent, unchanged (MUST; an e-mail's capitals aside, row 18). More fields are allowed; email and phone may be absent when they were not sent.",
  ),
  row(
    6,
    "A product creation's status and body",
    "§4.8, §4.11",
    "Any 2xx passes as a creation (MUST), 201 is what §4's common rule asks (SHOULD). The body must be the success envelope; what it holds is not judged: the product's values are read back through the list instead.",
  ),
  row(
    7,
    "The order of a list",
    "§4 Pagination.2",
    "Newest first, by date for invoices and expenses and by createdAt for contacts and products, records just created included, is expected (SHOULD): §4's way to page with before only works in that order; and limit=n is expected to answer the first n items of that order (SHOULD). Where a list takes before, a page must hold its newest items (MUST): no item it leaves out may be newer than its last, or paging as §4 says would never reach it; the order within the page stays a SHOULD. Ties may be in any order.",
  ),
  row(
    8,
    "The before parameter: which lists take it, in what format",
    "§4 Pagination.3",
    "The kit finds out per list, with a before at its oldest item in the exact form the target serves that date (§4 sets before from a served date): only items strictly older come back where the list takes it, the whole list where it ignores it; either passes. Where taken, every item of every before read must be strictly older than it, in the exact form the target serves its own dates (MUST). Every other ISO 8601 form (a bare date, an offset, no milliseconds) and whatever a before the target cannot read gets (refused, ignored, an empty page) is shown, never failed.",
  ),
  row(
    9,
    "Items sharing the last item's date when paging",
    "§4 Pagination.2",
    "Shown only: where more items share a date than a page holds, the kit pages as §4 says and reports how many items that way of paging loses.",
  ),
  row(
    10,
    "A limit outside 1 to 200, or not an integer",
    "§4 Pagination.4",
    "Refusing it with 400 and serving a page within bounds both pass; a server error, more than 200 items, or more items than the limit asked fail (MUST). Limits in notations only some parsers read (a sign, a fraction, full-width digits) are shown.",
  ),
  row(
    11,
    "Query parameters the spec does not name",
    "§4",
    "Shown only: ignoring and refusing them are both reasonable.",
  ),
  row(
    12,
    "Fields the spec does not name in a POST body",
    "§4 Contacts body, §4 Products body",
    "Shown only: taking them (and dropping them) and refusing them with 400 are both reasonable.",
  ),
  row(
    13,
    "A POST without Content-Type: application/json",
    "§4.2",
    "400 or 415 pass; a body taken all the same is shown, not failed. The legal spellings of application/json (a charset parameter, capitals) must be taken (MUST).",
  ),
  row(
    14,
    "A body that is not JSON",
    "§7.4",
    "Not open in fact: §7 says a malformed payload gets 400 invalid_request, and the kit holds an implementation to it (MUST), JSON that is not an object included.",
  ),
  row(
    15,
    "How large a body may be",
    "§7.4",
    "A body past the implementation's own cap gets 400 or 413, never a server error, and the server answers the next request (MUST). The cap itself is not judged.",
  ),
  row(
    16,
    "What a character is in “max N characters”",
    "§2, §4, §8",
    "For ASCII text the boundary is exact: N characters are taken and N + 1 refused (MUST). Characters beyond the Basic Multilingual Plane at the boundary are counted differently by reasonable implementations and are shown only.",
  ),
  row(
    17,
    "Blank or white-space-only required strings",
    "§4 Contacts body, §4 Products body",
    "Shown only: taking and refusing both pass. Outer spaces may be kept or trimmed, never replaced by anything else; a value at its maximum length and a space is refused or trimmed, never kept one past the maximum (MUST).",
  ),
  row(
    18,
    "What a valid e-mail address is",
    "§2 Contact.4, §4 Contacts body.3",
    "Clear cases are held (MUST): a plain address is taken; text without an @, with nothing before or after it, or with a space is refused. Borderline forms (a quoted local part, an IP literal, an internationalized domain) are shown. An address with capitals reads back as the same letters, in any case (MUST): the spec says nothing of normalising; its local part as sent, capitals included, is expected (SHOULD: RFC 5321 §2.4 makes the local part case-sensitive), while the domain may come back in lower case.",
  ),
  row(
    19,
    "unitPrice: type, precision and range",
    "§2 Product.6, §4 Products body.5, §8.9",
    "A negative price is refused (MUST), a price sent as a string should be (SHOULD). A price of up to 15 significant digits must read back as the same amount with four decimals (MUST); longer ones are shown.",
  ),
  row(
    20,
    "Where a sku must be unique, and whether case counts",
    "§4 Products body.1, §4 Products body.7",
    "A sku used twice in one organization gets 400 invalid_request (MUST). The same sku in another organization, or in other capitals, is shown only.",
  ),
  row(
    21,
    "What the rate limit counts, its headers, when it resets",
    "§8.1, §8.10",
    "A fresh token's burst, sent too fast for any legal limiter (a fixed window, a sliding window or log, a token bucket) to refill or reset during it, gets exactly the limit's number of answers that are not 429 and 429 rate_limited for the rest (MUST); a burst that may have crossed a fixed window's edge is tried once more on another token before judging. No 429 may come before the limit is used. What the limit counts (a token, an organization, an address) and its headers are shown; the kit paces by what it reads. Waiting as told restores service (MUST, opt-in with --slow).",
  ),
  row(
    22,
    "CORS on error answers",
    "§4.4",
    "A pre-flight is answered with any origin, the listed methods and the two headers (MUST), and every answer to a request from another origin, errors included (401, 403, 404, 429, 500), allows that origin (MUST): §4's CORS sentence has no exception, and a page cannot read an error without it.",
  ),
  row(
    23,
    "PUT, PATCH, DELETE and paths that are no endpoint",
    "§4.4",
    "404 or 405 pass, in §7's error envelope (MUST); never a success.",
  ),
  row(
    24,
    "POST /api/v1/invoices, announced",
    "§1.4, §4 Not available.1",
    "Any 4xx, or 501, passes; a success fails (MUST).",
  ),
  row(
    25,
    "An organization whose plan is insufficient",
    "§7.6",
    "Held when the token manifest gives a token of such an organization: every endpoint answers it 403 forbidden (MUST). Without one, the check is skipped and the report says so.",
  ),
  row(
    26,
    "Which failure wins when a request has several",
    "§5.6, §7",
    "Shown only: the order of the 401, 403, 400 and 404 judgments is the implementation's.",
  ),
  row(
    27,
    "The instant a token expires",
    "§3 Token status.2, §5.6",
    "A token past its expiry date gets 401 unauthorized (MUST); the instant itself is not probed.",
  ),
  row(
    28,
    "What counts as a request, and the last use",
    "§2 API token.4, §2 API token.5, §5.7",
    "Nothing is checked: neither is seen through the API.",
  ),
  row(
    29,
    "updatedAt at creation",
    "§2 Contact.10, §2 Product.9",
    "Equal to createdAt is expected (SHOULD); a timestamp is required either way (MUST).",
  ),
  row(
    30,
    "How invoices and expenses change state",
    "§3 Invoice status.2, §3 Expense status.2",
    "Nothing is checked: the API has no operation that changes a state; only the listed states are accepted in answers (MUST).",
  ),
  row(
    31,
    "Tax arithmetic",
    "§2 Invoice.9, §2 Expense.7",
    "The total must be the sum of its parts (SHOULD); tax rates are not checked.",
  ),
  row(
    32,
    "The Content-Type of answers",
    "§1.5",
    "The media type application/json (MUST); a charset parameter may be left out, and when given must be UTF-8.",
  ),
  row(
    33,
    "Server errors",
    "§7.9",
    "Any 5xx during a run fails it (MUST), but a 501 to the announced invoice creation (row 24).",
  ),
  row(34, "A trailing slash, other capitals in a path", "§4, §9.1", "Shown only."),
  row(
    35,
    "The case of Bearer, a token in the query string",
    "§4.1, §5.1",
    "Shown only, but for Authorization headers that are no `Bearer <token>` at all (junk after the token, two schemes, the token twice), which get 401 (MUST), and for a revoked or expired token under another spelling of the scheme (bearer, BEARER): read as Bearer or not, it gets 401 (MUST).",
  ),
  row(
    36,
    "The shape of an error's details",
    "§7.3",
    "When present, details is an object (MUST); what it holds is shown.",
  ),
];

const BY_GAP = new Map(STANCES.map((s) => [s.gap, s]));

/** The stance on spec-gaps row `gap`, if the kit has one. */
export const stanceOf = (gap: number): Stance | undefined => BY_GAP.get(gap);

/** The anchor of a row in docs/kit-stance.md: `gap-8`. */
export const stanceAnchor = (gap: number): string => `gap-${gap}`;
