package main

import (
	"fmt"
	"sort"
	"strings"
)

// A bug is a deliberate defect that a flag switches on, one at a time, to measure
// whether a conformance kit notices it. Each has a self-test in bugs_test.go.
type bug struct {
	name  string
	kind  string
	level string // the level the spec gives it, in the implementer's reading
	what  string
}

var bugCatalogue = []bug{
	// validation of bodies
	{"name-bytes", "validation", "MUST", "contact name length counted in UTF-8 bytes, so 200 accented characters are refused"},
	{"phone-off-by-one", "validation", "MUST", "contact phone limit checked with >= 50, so a phone of exactly 50 characters is refused"},
	{"tvq-unchecked", "validation", "MUST", "taxNumberTVQ length never checked (copy-paste validated taxNumberTPS twice)"},
	{"sku-trim-check", "validation", "MUST", "sku length checked after trimming outer spaces, but stored untrimmed: 101 characters stored"},
	{"price-float-trunc", "money", "MUST", "unitPrice parsed as float64 and scaled with int64(f*10000): 19.99 is stored as 19.9899"},
	{"price-string", "validation", "SHOULD", "unitPrice sent as a JSON string (\"12.50\") is accepted (json.Number quirk)"},
	{"price-neg-fraction", "validation", "MUST", "unitPrice split on '.', the integer part parsed alone: -0.5 loses its sign and is stored as 0.5000"},
	{"json-trailing-garbage", "validation", "MUST", "body decoded with json.Decoder without checking for trailing data: {\"a\":1}xyz is accepted"},
	{"email-parseaddress", "validation", "MUST", "e-mail checked with net/mail.ParseAddress: \"Bob <bob@example.com>\" and a@b are stored"},
	{"taxable-default-false", "defaults", "MUST", "taxable omitted is stored as false (Go's zero value) instead of the default true"},
	{"type-default-empty", "defaults", "MUST", "product type omitted is stored as \"\" instead of the default PRODUCT"},
	{"description-bytes", "validation", "MUST", "product description length counted in UTF-8 bytes, so 2000 accented characters are refused"},
	{"null-as-text", "validation", "MUST", "an optional contact field sent as null is stored as the text \"<nil>\" (fmt.Sprint of a nil interface)"},
	{"email-lowercased", "validation", "arguable (MUST if read back as sent)", "e-mail addresses are lower-cased before storage: an address with capitals does not read back as sent"},
	{"sku-index-stale", "validation", "MUST", "sku uniqueness checked against an index built at start-up and never updated: a duplicate of a created sku is accepted"},
	{"sku-dup-409", "status", "MUST", "a duplicate sku answers 409 conflict instead of 400 invalid_request"},
	{"sku-global", "isolation", "PROBE (spec-gaps #20); §1 leak", "sku uniqueness checked across all organizations, and the refusal names the other organization's product id"},
	// lists
	{"limit-default-100", "pagination", "MUST", "the default page size is 100 instead of 50"},
	{"limit-max-100", "pagination", "MUST", "limit is clamped to 100 instead of 200"},
	{"limit-zero-unbounded", "pagination", "MUST", "limit=0 (or negative) means no limit: the whole list comes back, more than 200 items"},
	{"before-inclusive", "pagination", "MUST", "before compares with <=, so the page repeats the items of the boundary date"},
	{"before-on-createdat", "pagination", "MUST", "expenses filter before on createdAt instead of date"},
	{"filter-after-limit", "pagination", "MUST", "invoices and expenses cut the page to limit before applying the status filter"},
	{"limit-before-sort", "pagination", "MUST (§4 Pagination procedure)", "the page is cut in storage order, then sorted: limit=n gives the n oldest items, newest first"},
	{"expenses-status-enum", "filter", "MUST", "the expenses status filter is validated against the invoice statuses (copy-paste): APPROVED and REJECTED are refused"},
	{"expenses-order-asc", "ordering", "SHOULD", "expenses listed oldest first"},
	{"new-records-last", "ordering", "SHOULD", "created contacts are appended after the seeded ones instead of coming first"},
	{"type-filter-ignored", "filter", "MUST", "the contacts type filter is validated but not applied"},
	{"nil-slice", "envelope", "MUST", "an empty list is served as {\"data\":null} (nil Go slice)"},
	{"status-filter-leak", "isolation", "MUST", "a status filter on invoices drops the organization condition: other organizations' invoices leak"},
	{"list-cache-org", "isolation", "MUST", "invoice and expense lists cached by URL for 30 s, without the organization in the key"},
	{"list-cache-stale", "consistency", "MUST", "product lists cached 10 s per organization and URL; a creation does not invalidate: the new product is missing"},
	// serialization
	{"contact-time-seconds", "format", "MUST", "contact timestamps formatted with time.RFC3339: no milliseconds"},
	{"updatedat-zero", "format", "MUST", "a created product's updatedAt is never set: 0001-01-01T00:00:00.000Z"},
	{"expense-2dp", "money", "MUST", "expense tps and tvq formatted with two decimals instead of four"},
	{"duedate-not-midnight", "format", "MUST", "invoice dueDate computed as createdAt + 30 days, not midnight"},
	{"total-combined-rate", "money", "SHOULD", "invoice total recomputed as subtotal x 1.14975 in float64, rounded: off by a cent from subtotal + tps + tvq"},
	{"create-no-email", "shape", "MUST", "the contact creation response leaves out email"},
	{"contact-create-200", "status", "MUST", "contact creation answers 200 instead of 201"},
	// errors
	{"details-string", "errors", "MUST", "error.details is a string instead of an object"},
	{"notfound-text", "errors", "MUST", "unknown paths answer Go's text/plain \"404 page not found\""},
	{"error-text-content-type", "errors", "MUST", "401 answers are JSON served as text/plain (http.Error)"},
	{"truncated-json-500", "errors", "MUST", "a truncated JSON body (unexpected EOF) answers 500 internal_error"},
	{"body-limit-500", "errors", "MUST", "a body over the size cap answers 500 internal_error instead of 413"},
	// authentication and scopes
	{"scope-401", "auth", "MUST", "a valid token without the scope gets 401 unauthorized instead of 403 forbidden"},
	{"scope-products-write", "auth", "MUST", "POST /api/v1/products checks products:read instead of products:write"},
	{"expenses-scope", "auth", "MUST", "GET /api/v1/expenses checks invoices:read instead of expenses:read"},
	{"write-implies-read", "auth", "MUST", "a write scope also grants the read scope of the same resource"},
	{"expired-post", "auth", "MUST", "POST handlers authenticate without the expiry check: an expired token creates records"},
	{"revoked-lowercase-scheme", "auth", "MUST", "the case-insensitive scheme path (\"bearer\") looks the token up without the revocation check"},
	{"token-truncated", "auth", "MUST", "token compared as a prefix: a token missing its last characters is accepted"},
	{"token-case-insensitive", "auth", "MUST", "tokens are lower-cased before lookup: an upper-cased token is accepted"},
	{"org-global-var", "isolation", "MUST", "the organization is kept in a shared variable set on GET routes only: a POST lands in the organization of the previous GET"},
	{"plan-check-get-only", "auth", "MUST", "the organization plan is checked on GET only: a free-plan organization can POST"},
	{"cors-preflight-methods", "cors", "MUST", "preflight lists only the implemented methods GET, POST, OPTIONS"},
	// rate limit
	{"ratelimit-429-text", "ratelimit", "MUST", "429 answered with text/plain \"Too Many Requests\" instead of the error envelope"},
	{"ratelimit-double-post", "ratelimit", "MUST", "the limiter is mounted twice on POST routes: each POST counts twice, so the 51st POST of a minute gets 429"},
	{"ratelimit-after-validation", "ratelimit", "MUST", "the limiter runs only after auth and validation passed: refused requests never count"},
}

type bugSet map[string]bool

func (b bugSet) on(name string) bool {
	if _, ok := bugIndex[name]; !ok {
		panic("unknown bug name in code: " + name)
	}
	return b[name]
}

var bugIndex = func() map[string]bug {
	m := map[string]bug{}
	for _, b := range bugCatalogue {
		m[b.name] = b
	}
	return m
}()

func parseBugs(names []string) (bugSet, error) {
	s := bugSet{}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if _, ok := bugIndex[part]; !ok {
				known := make([]string, 0, len(bugIndex))
				for k := range bugIndex {
					known = append(known, k)
				}
				sort.Strings(known)
				return nil, fmt.Errorf("unknown bug %q; known: %s", part, strings.Join(known, ", "))
			}
			s[part] = true
		}
	}
	return s, nil
}
