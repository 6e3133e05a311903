package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Every bug has a probe: a short exchange that the correct server passes and the buggy one fails.
// The probes are spec assertions (§ cited); they run against a fresh server on a fixed clock.

var testNow = time.Date(2026, 11, 27, 12, 0, 30, 0, time.UTC)

type client struct {
	t    *testing.T
	base string
	tok  map[string]string
}

type answer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (a answer) String() string { return fmt.Sprintf("%d %s", a.status, a.raw) }

func (a answer) data() []any {
	d, _ := a.body["data"].([]any)
	return d
}

func (a answer) obj() map[string]any {
	d, _ := a.body["data"].(map[string]any)
	return d
}

func (a answer) errCode() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func newClient(t *testing.T, bugs bugSet) (*client, func()) {
	s, err := newServer(defaultManifest, bugs, defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return testNow }
	ts := httptest.NewServer(s)
	var m struct {
		Tokens []struct{ Label, Token string }
	}
	_ = json.Unmarshal(defaultManifest, &m)
	c := &client{t: t, base: ts.URL, tok: map[string]string{}}
	for _, tk := range m.Tokens {
		c.tok[tk.Label] = tk.Token
	}
	return c, ts.Close
}

func (c *client) send(method, path, auth string, body string, hdr map[string]string) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

func (c *client) get(label, path string) answer {
	return c.send("GET", path, "Bearer "+c.tok[label], "", nil)
}

func (c *client) post(label, path string, v any) answer {
	b, _ := json.Marshal(v)
	return c.send("POST", path, "Bearer "+c.tok[label], string(b), nil)
}

const full, other = "aurora-full-1", "brume-full-1"

func want(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func str(v any) string { s, _ := v.(string); return s }

func dec(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat).SetInt64(-999999)
	}
	return r
}

var msZ = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
var fourDp = regexp.MustCompile(`^\d+\.\d{4}$`)

func contactBody(extra map[string]any) map[string]any {
	b := map[string]any{"type": "CLIENT", "name": "Probe"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func productBody(sku string, extra map[string]any) map[string]any {
	b := map[string]any{"sku": sku, "name": "Probe", "unitPrice": 10}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func status(a answer, code int) error {
	return want(a.status == code, "want %d, got %s", code, a)
}

var probes = map[string]func(c *client) error{
	// §4 contacts body: name max 200 characters
	"name-bytes": func(c *client) error {
		return status(c.post(full, "/api/v1/contacts", contactBody(map[string]any{"name": strings.Repeat("é", 200)})), 201)
	},
	// §4: phone max 50 characters
	"phone-off-by-one": func(c *client) error {
		return status(c.post(full, "/api/v1/contacts", contactBody(map[string]any{"phone": strings.Repeat("5", 50)})), 201)
	},
	// §4: taxNumberTVQ max 50 characters
	"tvq-unchecked": func(c *client) error {
		return status(c.post(full, "/api/v1/contacts", contactBody(map[string]any{"taxNumberTVQ": strings.Repeat("Q", 51)})), 400)
	},
	// §4 / §8: sku max 100 characters
	"sku-trim-check": func(c *client) error {
		a := c.post(full, "/api/v1/products", productBody(strings.Repeat("S", 100)+" ", nil))
		return want(a.status == 400 || len([]rune(str(a.obj()["sku"]))) <= 100, "a 101-character sku was stored: %s", a)
	},
	// §2: decimal strings, no floating-point loss
	"price-float-trunc": func(c *client) error {
		a := c.post(full, "/api/v1/products", productBody("P-1999", map[string]any{"unitPrice": json.Number("19.99")}))
		return want(str(a.obj()["unitPrice"]) == "19.9900", "19.99 came back as %s", a)
	},
	// §4: unitPrice is a number (spec-gaps #19: a string is refused)
	"price-string": func(c *client) error {
		return status(c.post(full, "/api/v1/products", productBody("P-STR", map[string]any{"unitPrice": "12.50"})), 400)
	},
	// §4 / §8: unitPrice >= 0
	"price-neg-fraction": func(c *client) error {
		return status(c.post(full, "/api/v1/products", productBody("P-NEG", map[string]any{"unitPrice": json.Number("-0.5")})), 400)
	},
	// §7: a malformed payload is 400
	"json-trailing-garbage": func(c *client) error {
		return status(c.send("POST", "/api/v1/contacts", "Bearer "+c.tok[full], `{"type":"CLIENT","name":"x"}xyz`, nil), 400)
	},
	// §2 / §4: valid e-mail address format
	"email-parseaddress": func(c *client) error {
		return status(c.post(full, "/api/v1/contacts", contactBody(map[string]any{"email": "Bob <bob@example.com>"})), 400)
	},
	// §4: description max 2000 characters
	"description-bytes": func(c *client) error {
		return status(c.post(full, "/api/v1/products", productBody("D-1", map[string]any{"description": strings.Repeat("é", 2000)})), 201)
	},
	// §4: optional fields; a null is no value (spec-gaps #4)
	"null-as-text": func(c *client) error {
		o := c.post(full, "/api/v1/contacts", contactBody(map[string]any{"phone": nil})).obj()
		return want(o["phone"] == nil, "phone sent as null came back as %q", o["phone"])
	},
	// §2: the e-mail is the address sent
	"email-lowercased": func(c *client) error {
		o := c.post(full, "/api/v1/contacts", contactBody(map[string]any{"email": "Jean.Tremblay@Example.com"})).obj()
		return want(o["email"] == "Jean.Tremblay@Example.com", "email came back as %v", o["email"])
	},
	"sku-index-stale": func(c *client) error {
		c.post(full, "/api/v1/products", productBody("IDX-1", nil))
		a := c.post(full, "/api/v1/products", productBody("IDX-1", nil))
		return want(a.status == 400 && a.errCode() == "invalid_request", "duplicate of a created sku: %s", a)
	},
	// §4 Pagination: the page is the newest items (spec-gaps #7), and before pages on from it
	"limit-before-sort": func(c *client) error {
		one := c.get(full, "/api/v1/invoices?limit=1").data()
		all := c.get(full, "/api/v1/invoices?limit=200").data()
		return want(len(one) == 1 && one[0].(map[string]any)["id"] == all[0].(map[string]any)["id"], "limit=1 is not the first item of limit=200")
	},
	// §4: expenses status DRAFT, APPROVED, PAID or REJECTED
	"expenses-status-enum": func(c *client) error {
		return status(c.get(full, "/api/v1/expenses?status=APPROVED&limit=1"), 200)
	},
	// §5.6: an invalid token gives 401
	"token-case-insensitive": func(c *client) error {
		return status(c.send("GET", "/api/v1/contacts", "Bearer "+strings.ToUpper(c.tok[full]), "", nil), 401)
	},
	// §1: a token only reaches data of its own organization
	"org-global-var": func(c *client) error {
		c.get(other, "/api/v1/contacts?limit=1")
		id := str(c.post(full, "/api/v1/contacts", contactBody(nil)).obj()["id"])
		for _, it := range c.get(full, "/api/v1/contacts?limit=200").data() {
			if it.(map[string]any)["id"] == id {
				return nil
			}
		}
		return fmt.Errorf("contact %s created by organization 0 is not in its list", id)
	},
	// §8: 100 requests per minute
	"ratelimit-double-post": func(c *client) error {
		for i := 0; i < 60; i++ {
			if a := c.post(full, "/api/v1/contacts", map[string]any{"type": "NOPE"}); a.status == 429 {
				return fmt.Errorf("POST number %d of the minute got 429", i+1)
			}
		}
		return nil
	},
	// §4: taxable default true
	"taxable-default-false": func(c *client) error {
		a := c.post(full, "/api/v1/products", productBody("P-TAX", nil))
		return want(a.obj()["taxable"] == true, "taxable omitted came back as %v", a.obj()["taxable"])
	},
	// §4: type PRODUCT (default)
	"type-default-empty": func(c *client) error {
		a := c.post(full, "/api/v1/products", productBody("P-TYPE", nil))
		return want(a.obj()["type"] == "PRODUCT", "type omitted came back as %q", a.obj()["type"])
	},
	// §4: a duplicate sku yields 400 with code invalid_request
	"sku-dup-409": func(c *client) error {
		c.post(full, "/api/v1/products", productBody("DUP-1", nil))
		a := c.post(full, "/api/v1/products", productBody("DUP-1", nil))
		return want(a.status == 400 && a.errCode() == "invalid_request", "duplicate sku: %s", a)
	},
	// §1: a token only reaches data of its own organization (the sku of another one is no concern of it)
	"sku-global": func(c *client) error {
		return status(c.post(other, "/api/v1/products", productBody("CONS-H", nil)), 201)
	},
	// §4: limit default 50
	"limit-default-100": func(c *client) error {
		return want(len(c.get(full, "/api/v1/invoices").data()) == 50, "default page is not 50 items")
	},
	// §4: limit up to 200
	"limit-max-100": func(c *client) error {
		n := len(c.get(full, "/api/v1/invoices?limit=200").data())
		return want(n == 200, "limit=200 gave %d of 260 invoices", n)
	},
	// §4 / §8: a list returns at most 200 items
	"limit-zero-unbounded": func(c *client) error {
		a := c.get(full, "/api/v1/invoices?limit=0")
		return want(a.status == 400 || len(a.data()) <= 200, "limit=0 gave %d items", len(a.data()))
	},
	// §4 Pagination: before set from the last date gives the items before it
	"before-inclusive": func(c *client) error {
		page := c.get(full, "/api/v1/invoices?limit=5").data()
		last := str(page[4].(map[string]any)["date"])
		for _, it := range c.get(full, "/api/v1/invoices?limit=200&before="+last).data() {
			if d := str(it.(map[string]any)["date"]); d >= last {
				return fmt.Errorf("before=%s returned an item dated %s", last, d)
			}
		}
		return nil
	},
	"before-on-createdat": func(c *client) error {
		seen := map[string]bool{}
		for _, it := range c.get(full, "/api/v1/expenses?limit=60").data() {
			d := str(it.(map[string]any)["date"])
			if seen[d] {
				continue
			}
			seen[d] = true
			for _, x := range c.get(full, "/api/v1/expenses?limit=200&before="+d).data() {
				if xd := str(x.(map[string]any)["date"]); xd >= d {
					return fmt.Errorf("expenses before=%s returned one dated %s", d, xd)
				}
			}
		}
		return nil
	},
	// §4: limit counts the filtered items
	"filter-after-limit": func(c *client) error {
		d := c.get(full, "/api/v1/invoices?status=PAID&limit=10").data()
		return want(len(d) == 10, "status=PAID&limit=10 gave %d items (100+ PAID exist)", len(d))
	},
	// spec-gaps #7 (SHOULD): newest first
	"expenses-order-asc": func(c *client) error {
		d := c.get(full, "/api/v1/expenses?limit=20").data()
		for i := 1; i < len(d); i++ {
			if str(d[i].(map[string]any)["date"]) > str(d[i-1].(map[string]any)["date"]) {
				return fmt.Errorf("expenses not newest first at %d", i)
			}
		}
		return nil
	},
	"new-records-last": func(c *client) error {
		c.post(full, "/api/v1/contacts", contactBody(map[string]any{"name": "First"}))
		id := str(c.post(full, "/api/v1/contacts", contactBody(map[string]any{"name": "Second"})).obj()["id"])
		d := c.get(full, "/api/v1/contacts?limit=1").data()
		return want(len(d) == 1 && d[0].(map[string]any)["id"] == id, "the newest contact is not first")
	},
	// §4: type filter
	"type-filter-ignored": func(c *client) error {
		for _, it := range c.get(full, "/api/v1/contacts?type=SUPPLIER&limit=200").data() {
			if t := it.(map[string]any)["type"]; t != "SUPPLIER" {
				return fmt.Errorf("type=SUPPLIER listed a %v", t)
			}
		}
		return nil
	},
	// §1: data is an array for a list
	"nil-slice": func(c *client) error {
		a := c.get(full, "/api/v1/invoices?before=2000-01-01")
		_, isArray := a.body["data"].([]any)
		return want(isArray, "an empty list came back as %s", a.raw)
	},
	// §1: a token only reaches data of its own organization
	"status-filter-leak": func(c *client) error {
		own := map[string]bool{}
		for _, it := range c.get(other, "/api/v1/invoices?limit=200").data() {
			own[str(it.(map[string]any)["id"])] = true
		}
		for _, it := range c.get(other, "/api/v1/invoices?status=PAID&limit=200").data() {
			if id := str(it.(map[string]any)["id"]); !own[id] {
				return fmt.Errorf("invoice %s of another organization leaked", id)
			}
		}
		return nil
	},
	"list-cache-org": func(c *client) error {
		own := map[string]bool{}
		for _, it := range c.get(other, "/api/v1/invoices?limit=200").data() {
			own[str(it.(map[string]any)["id"])] = true
		}
		c.get(full, "/api/v1/invoices?limit=3")
		for _, it := range c.get(other, "/api/v1/invoices?limit=3").data() {
			if id := str(it.(map[string]any)["id"]); !own[id] {
				return fmt.Errorf("invoice %s of another organization leaked", id)
			}
		}
		return nil
	},
	// §4: list and create products; what is created is listed
	"list-cache-stale": func(c *client) error {
		c.get(full, "/api/v1/products")
		id := str(c.post(full, "/api/v1/products", productBody("NEW-1", nil)).obj()["id"])
		for _, it := range c.get(full, "/api/v1/products").data() {
			if it.(map[string]any)["id"] == id {
				return nil
			}
		}
		return fmt.Errorf("created product %s missing from the list", id)
	},
	// §2: timestamps with millisecond precision and a trailing Z
	"contact-time-seconds": func(c *client) error {
		for _, it := range c.get(full, "/api/v1/contacts").data() {
			if ts := str(it.(map[string]any)["createdAt"]); !msZ.MatchString(ts) {
				return fmt.Errorf("createdAt %q", ts)
			}
		}
		return nil
	},
	"updatedat-zero": func(c *client) error {
		o := c.post(full, "/api/v1/products", productBody("UPD-1", nil)).obj()
		return want(o["updatedAt"] == o["createdAt"], "createdAt %v, updatedAt %v", o["createdAt"], o["updatedAt"])
	},
	// §2: amounts with four decimal places
	"expense-2dp": func(c *client) error {
		for _, it := range c.get(full, "/api/v1/expenses").data() {
			if v := str(it.(map[string]any)["tps"]); !fourDp.MatchString(v) {
				return fmt.Errorf("tps %q", v)
			}
		}
		return nil
	},
	// §2: dueDate carries a midnight time
	"duedate-not-midnight": func(c *client) error {
		for _, it := range c.get(full, "/api/v1/invoices").data() {
			if v := str(it.(map[string]any)["dueDate"]); !strings.HasSuffix(v, "T00:00:00.000Z") {
				return fmt.Errorf("dueDate %q", v)
			}
		}
		return nil
	},
	// §2 (SHOULD): total including taxes = subtotal + tps + tvq
	"total-combined-rate": func(c *client) error {
		for _, it := range c.get(full, "/api/v1/invoices?limit=200").data() {
			m := it.(map[string]any)
			sum := new(big.Rat).Add(dec(str(m["subtotal"])), dec(str(m["tps"])))
			sum.Add(sum, dec(str(m["tvq"])))
			if sum.Cmp(dec(str(m["total"]))) != 0 {
				return fmt.Errorf("invoice %v: %v + %v + %v != %v", m["id"], m["subtotal"], m["tps"], m["tvq"], m["total"])
			}
		}
		return nil
	},
	// §4: the creation response carries email
	"create-no-email": func(c *client) error {
		o := c.post(full, "/api/v1/contacts", contactBody(map[string]any{"email": "a@example.com"})).obj()
		return want(o["email"] == "a@example.com", "creation answered email %v", o["email"])
	},
	// §4: 201 for creation
	"contact-create-200": func(c *client) error {
		return status(c.post(full, "/api/v1/contacts", contactBody(nil)), 201)
	},
	// §7: error.details is an object
	"details-string": func(c *client) error {
		a := c.post(full, "/api/v1/contacts", map[string]any{})
		e, _ := a.body["error"].(map[string]any)
		_, isObj := e["details"].(map[string]any)
		return want(a.status == 400 && isObj, "details: %s", a.raw)
	},
	// §1 / §7: all responses JSON, errors in the envelope
	"notfound-text": func(c *client) error {
		a := c.get(full, "/api/v1/nothing-here")
		return want(a.status == 404 && a.errCode() == "not_found" && strings.HasPrefix(a.header.Get("Content-Type"), "application/json"), "%s %s", a.header.Get("Content-Type"), a)
	},
	"error-text-content-type": func(c *client) error {
		a := c.send("GET", "/api/v1/contacts", "", "", nil)
		return want(a.status == 401 && strings.HasPrefix(a.header.Get("Content-Type"), "application/json"), "401 served as %q", a.header.Get("Content-Type"))
	},
	// §7: malformed payload 400; 500 only for server-side errors
	"truncated-json-500": func(c *client) error {
		return status(c.send("POST", "/api/v1/contacts", "Bearer "+c.tok[full], `{"type":"CLIENT","name":`, nil), 400)
	},
	"body-limit-500": func(c *client) error {
		a := c.send("POST", "/api/v1/contacts", "Bearer "+c.tok[full], `{"type":"CLIENT","name":"x","address":"`+strings.Repeat("a", 200<<10)+`"}`, nil)
		return want(a.status == 400 || a.status == 413, "a 200 kB body: %d", a.status)
	},
	// §5.6: a valid token without the scope gives 403 forbidden
	"scope-401": func(c *client) error {
		a := c.post("aurora-contacts-read", "/api/v1/contacts", contactBody(nil))
		return want(a.status == 403 && a.errCode() == "forbidden", "%s", a)
	},
	"scope-products-write": func(c *client) error {
		return status(c.post("aurora-products-read", "/api/v1/products", productBody("SC-1", nil)), 403)
	},
	"expenses-scope": func(c *client) error {
		if err := status(c.get("aurora-expenses-read", "/api/v1/expenses?limit=1"), 200); err != nil {
			return err
		}
		return status(c.get("aurora-invoices-read", "/api/v1/expenses?limit=1"), 403)
	},
	"write-implies-read": func(c *client) error {
		return status(c.get("aurora-contacts-write", "/api/v1/contacts?limit=1"), 403)
	},
	// §5.6: expired or revoked gives 401
	"expired-post": func(c *client) error {
		return status(c.post("aurora-expired", "/api/v1/contacts", contactBody(nil)), 401)
	},
	"revoked-lowercase-scheme": func(c *client) error {
		return status(c.send("GET", "/api/v1/contacts", "bearer "+c.tok["aurora-revoked"], "", nil), 401)
	},
	// §5.6: an invalid token gives 401
	"token-truncated": func(c *client) error {
		t := c.tok[full]
		return status(c.send("GET", "/api/v1/contacts", "Bearer "+t[:len(t)-1], "", nil), 401)
	},
	// §7: 403 when the organization's plan is insufficient
	"plan-check-get-only": func(c *client) error {
		return status(c.post("gratis-full", "/api/v1/contacts", contactBody(nil)), 403)
	},
	// §4: CORS allowed methods GET, POST, PUT, PATCH, DELETE, OPTIONS
	"cors-preflight-methods": func(c *client) error {
		a := c.send("OPTIONS", "/api/v1/contacts", "", "", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "DELETE"})
		m := a.header.Get("Access-Control-Allow-Methods")
		return want(strings.Contains(m, "DELETE") && strings.Contains(m, "PUT") && strings.Contains(m, "PATCH"), "allowed methods %q", m)
	},
	// §7 / §8: beyond 100 a minute, 429 rate_limited in the envelope
	"ratelimit-429-text": func(c *client) error {
		var a answer
		for i := 0; i < 101; i++ {
			a = c.get(full, "/api/v1/products?limit=1")
		}
		return want(a.status == 429 && a.errCode() == "rate_limited", "101st: %d %q", a.status, a.raw)
	},
	"ratelimit-after-validation": func(c *client) error {
		var a answer
		for i := 0; i < 101; i++ {
			a = c.post(full, "/api/v1/contacts", map[string]any{"type": "NOPE"})
		}
		return want(a.status == 429, "101st refused request: %d", a.status)
	},
}

func TestEveryBugHasAProbe(t *testing.T) {
	for _, b := range bugCatalogue {
		if probes[b.name] == nil {
			t.Errorf("bug %s has no probe", b.name)
		}
	}
	if len(probes) != len(bugCatalogue) {
		t.Errorf("%d probes for %d bugs", len(probes), len(bugCatalogue))
	}
}

func TestCorrectServerPassesEveryProbe(t *testing.T) {
	for name, probe := range probes {
		t.Run(name, func(t *testing.T) {
			c, stop := newClient(t, bugSet{})
			defer stop()
			if err := probe(c); err != nil {
				t.Fatalf("the correct server fails the probe of %s: %v", name, err)
			}
		})
	}
}

func TestEachBugFailsItsProbe(t *testing.T) {
	for _, b := range bugCatalogue {
		b := b
		t.Run(b.name, func(t *testing.T) {
			c, stop := newClient(t, bugSet{b.name: true})
			defer stop()
			err := probes[b.name](c)
			if err == nil {
				t.Fatalf("bug %s is not shown by its probe", b.name)
			}
			t.Logf("%s: %v", b.name, err)
		})
	}
}

func TestParsePriceIsExact(t *testing.T) {
	cases := map[string]string{"0": "0.0000", "-0": "0.0000", "0.29": "0.2900", "1e2": "100.0000", "2.5e-3": "0.0025",
		"9999999999.9999": "9999999999.9999", "2.50000": "2.5000", "1.15": "1.1500"}
	for in, out := range cases {
		m, msg := parsePrice(in)
		if msg != "" || m.String() != out {
			t.Errorf("parsePrice(%s) = %s %q, want %s", in, m, msg, out)
		}
	}
	for _, in := range []string{"-1", "-0.0001", "1.00001", "1e10", "1e-5", "1e99999", "10000000000"} {
		if _, msg := parsePrice(in); msg == "" {
			t.Errorf("parsePrice(%s) accepted", in)
		}
	}
}

var _ = bytes.NewReader
