package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"mime"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type apiToken struct {
	Label        string
	clear        string
	Organization string
	Scopes       map[string]bool
	Revoked      bool
	ExpiresAt    *time.Time
}

type manifest struct {
	Version       int    `json:"version"`
	TokenPrefix   string `json:"tokenPrefix"`
	Organizations []struct {
		ID        string `json:"id"`
		APIAccess bool   `json:"apiAccess"`
	} `json:"organizations"`
	Tokens []struct {
		Label        string   `json:"label"`
		Token        string   `json:"token"`
		Organization string   `json:"organization"`
		Scopes       []string `json:"scopes"`
		State        string   `json:"state"`
		ExpiresAt    *string  `json:"expiresAt"`
	} `json:"tokens"`
}

type cacheEntry struct {
	at   time.Time
	body []byte
}

type window struct {
	start int64
	n     int
	// the token-bucket variant: tokens left at `last`
	tokens float64
	last   time.Time
}

// options are the server's answers to open points that have more than one legal reading; the
// defaults are this implementation's own choices (README), the others let a kit be tried on them.
type options struct {
	rateLimit      int
	rateScope      string // token (default), organization, address
	rateAlgo       string // fixed (default: a window on the wall-clock minute), bucket
	rateHeaders    bool   // X-RateLimit-* and Retry-After
	productMinimal bool   // product creation answers 201 with {"data":{"id":…}} only
}

func defaultOptions() options {
	return options{rateLimit: 100, rateScope: "token", rateAlgo: "fixed", rateHeaders: true}
}

type server struct {
	mu        sync.Mutex
	st        *store
	tokens    map[[32]byte]*apiToken
	tokenList []*apiToken
	prefix    string
	bugs      bugSet
	now       func() time.Time
	rateLimit int
	opts      options
	windows   map[string]*window
	cache     map[string]cacheEntry
	maxBody   int64
	logf      func(format string, args ...any)
	skuIndex  map[string]map[string]bool // the sku-index-stale bug's start-up index
	tenant    *organization              // the org-global-var bug's shared variable
}

func newServer(manifestJSON []byte, bugs bugSet, opts options) (*server, error) {
	var m manifest
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return nil, fmt.Errorf("token manifest: %w", err)
	}
	s := &server{
		st: newStore(), tokens: map[[32]byte]*apiToken{}, prefix: m.TokenPrefix + "_", bugs: bugs,
		now: time.Now, rateLimit: opts.rateLimit, opts: opts, windows: map[string]*window{}, cache: map[string]cacheEntry{},
		maxBody: 64 << 10, logf: func(string, ...any) {},
	}
	for _, o := range m.Organizations {
		if org, ok := s.st.orgs[o.ID]; ok {
			org.APIAccess = o.APIAccess
		}
	}
	for _, t := range m.Tokens {
		if _, ok := s.st.orgs[t.Organization]; !ok {
			return nil, fmt.Errorf("token %s: unknown organization %s", t.Label, t.Organization)
		}
		tok := &apiToken{Label: t.Label, clear: t.Token, Organization: t.Organization, Scopes: map[string]bool{}, Revoked: t.State == "revoked"}
		for _, sc := range t.Scopes {
			tok.Scopes[sc] = true
		}
		if t.ExpiresAt != nil {
			at, err := time.Parse(time.RFC3339Nano, *t.ExpiresAt)
			if err != nil {
				return nil, fmt.Errorf("token %s: expiresAt: %w", t.Label, err)
			}
			tok.ExpiresAt = &at
		}
		s.tokens[sha256.Sum256([]byte(t.Token))] = tok
		if bugs.on("token-case-insensitive") {
			s.tokens[sha256.Sum256([]byte(strings.ToLower(t.Token)))] = tok
		}
		s.tokenList = append(s.tokenList, tok)
	}
	s.skuIndex = map[string]map[string]bool{}
	for id, o := range s.st.orgs {
		s.skuIndex[id] = map[string]bool{}
		for _, p := range o.products {
			s.skuIndex[id][strings.ToLower(p.SKU)] = true
		}
	}
	return s, nil
}

// ---- answers

type apiError struct {
	status        int
	code, message string
	details       fieldErrors
}

func (s *server) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *server) writeError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"code": e.code, "message": e.message}
	if len(e.details) > 0 {
		if s.bugs.on("details-string") {
			parts := make([]string, 0, len(e.details))
			for k, v := range e.details {
				parts = append(parts, k+": "+v)
			}
			sort.Strings(parts)
			body["details"] = strings.Join(parts, "; ")
		} else {
			body["details"] = e.details
		}
	}
	if e.status == http.StatusUnauthorized && s.bugs.on("error-text-content-type") {
		b, _ := json.Marshal(map[string]any{"error": body})
		http.Error(w, string(b), e.status)
		return
	}
	s.writeJSON(w, e.status, map[string]any{"error": body})
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (m money) String() string {
	return fmt.Sprintf("%d.%04d", int64(m)/10000, int64(m)%10000)
}

// ---- the request's path

type route struct {
	resource string // contacts, products, invoices, expenses
	methods  []string
}

var routes = map[string]route{
	"/api/v1/contacts": {"contacts", []string{"GET", "POST"}},
	"/api/v1/products": {"products", []string{"GET", "POST"}},
	"/api/v1/invoices": {"invoices", []string{"GET", "POST"}}, // POST is announced: 501
	"/api/v1/expenses": {"expenses", []string{"GET"}},
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After")
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			log.Printf("panic on %s %s: %v", r.Method, r.URL.RequestURI(), v)
			s.writeError(w, &apiError{status: 500, code: "internal_error", message: "internal error; retry in a few seconds"})
		}
		s.logf("%s %s %s", r.Method, r.URL.RequestURI(), time.Since(start))
	}()
	if r.Method == http.MethodOptions {
		s.preflight(w)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c := &reqCtx{w: w, r: r, now: now}
	c.scheme, c.credential = parseAuthorization(r.Header.Get("Authorization"))
	c.limitKey = s.limitKey(r, c.credential)
	if !s.bugs.on("ratelimit-after-validation") && !s.admit(c) {
		return
	}
	rt, ok := routes[r.URL.Path]
	if !ok {
		if s.bugs.on("notfound-text") {
			http.NotFound(w, r)
			return
		}
		s.writeError(w, &apiError{status: 404, code: "not_found", message: "no such resource: " + r.URL.Path})
		return
	}
	allowed := false
	for _, m := range rt.methods {
		allowed = allowed || m == r.Method
	}
	if !allowed {
		h.Set("Allow", strings.Join(rt.methods, ", ")+", OPTIONS")
		s.writeError(w, &apiError{status: 405, code: "method_not_allowed", message: r.Method + " is not allowed on " + r.URL.Path})
		return
	}
	tok, e := s.authenticate(c)
	if e != nil {
		s.writeError(w, e)
		return
	}
	c.tok, c.org = tok, s.st.orgs[tok.Organization]
	if s.bugs.on("org-global-var") {
		if r.Method == http.MethodGet {
			s.tenant = c.org
		} else if s.tenant != nil {
			c.org = s.tenant
		}
	}
	if rt.resource == "invoices" && r.Method == http.MethodPost {
		s.writeError(w, &apiError{status: 501, code: "not_implemented", message: "invoice creation is announced and not yet available"})
		return
	}
	if e := s.authorize(tok, s.requiredScope(rt.resource, r.Method)); e != nil {
		s.writeError(w, e)
		return
	}
	var err *apiError
	switch {
	case r.Method == http.MethodPost && rt.resource == "contacts":
		err = s.createContact(c)
	case r.Method == http.MethodPost && rt.resource == "products":
		err = s.createProduct(c)
	default:
		err = s.list(c, rt.resource)
	}
	if err != nil {
		s.writeError(w, err)
	}
}

type reqCtx struct {
	w                  http.ResponseWriter
	r                  *http.Request
	now                time.Time
	scheme, credential string
	limitKey           string
	tok                *apiToken
	org                *organization
}

func (s *server) preflight(w http.ResponseWriter) {
	h := w.Header()
	if s.bugs.on("cors-preflight-methods") {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	} else {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
	}
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// ---- rate limit: a fixed window on the wall-clock minute, per token (per client address without a known token)

func (s *server) limitKey(r *http.Request, credential string) string {
	if tok, ok := s.tokens[sha256.Sum256([]byte(credential))]; ok && credential != "" && s.opts.rateScope != "address" {
		if s.opts.rateScope == "organization" {
			return "organization:" + tok.Organization
		}
		return "token:" + tok.Label
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "address:" + host
}

func (s *server) admit(c *reqCtx) bool {
	if s.opts.rateAlgo == "bucket" {
		return s.admitBucket(c)
	}
	start := c.now.Truncate(time.Minute)
	win := s.windows[c.limitKey]
	if win == nil || win.start != start.Unix() {
		win = &window{start: start.Unix()}
		s.windows[c.limitKey] = win
	}
	reset := start.Add(time.Minute)
	if win.n >= s.rateLimit {
		s.rateHeaders(c, 0, reset, true)
		return s.refuse(c)
	}
	win.n++
	if s.bugs.on("ratelimit-double-post") && c.r.Method == http.MethodPost {
		win.n++
	}
	s.rateHeaders(c, s.rateLimit-win.n, reset, false)
	return true
}

func (s *server) rateHeaders(c *reqCtx, remaining int, reset time.Time, refused bool) {
	if !s.opts.rateHeaders {
		return
	}
	h := c.w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(remaining, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	if refused {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(reset.Sub(c.now).Seconds()))))
	}
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func (s *server) refuse(c *reqCtx) bool {
	if s.bugs.on("ratelimit-429-text") {
		http.Error(c.w, "Too Many Requests", http.StatusTooManyRequests)
		return false
	}
	s.writeError(c.w, &apiError{status: 429, code: "rate_limited", message: fmt.Sprintf("more than %d requests per minute", s.rateLimit)})
	return false
}

// admitBucket: a token bucket of capacity rateLimit, refilled at rateLimit a minute.
func (s *server) admitBucket(c *reqCtx) bool {
	b := s.windows[c.limitKey]
	rate := float64(s.rateLimit) / 60 // per second
	if b == nil {
		b = &window{tokens: float64(s.rateLimit), last: c.now}
		s.windows[c.limitKey] = b
	}
	b.tokens = math.Min(float64(s.rateLimit), b.tokens+c.now.Sub(b.last).Seconds()*rate)
	b.last = c.now
	cost := 1.0
	if s.bugs.on("ratelimit-double-post") && c.r.Method == http.MethodPost {
		cost = 2
	}
	if b.tokens < 1 {
		s.rateHeaders(c, 0, c.now.Add(time.Duration((1-b.tokens)/rate*float64(time.Second))), true)
		return s.refuse(c)
	}
	b.tokens -= cost
	full := c.now.Add(time.Duration((float64(s.rateLimit) - b.tokens) / rate * float64(time.Second)))
	s.rateHeaders(c, int(b.tokens), full, false)
	return true
}

// admitLate is the limiter's place under the ratelimit-after-validation bug.
func (s *server) admitLate(c *reqCtx) bool {
	if s.bugs.on("ratelimit-after-validation") {
		return s.admit(c)
	}
	return true
}

// ---- authentication and scopes

func parseAuthorization(h string) (scheme, credential string) {
	h = strings.TrimSpace(h)
	i := strings.IndexAny(h, " \t")
	if i < 0 {
		return h, ""
	}
	return h[:i], strings.TrimLeft(h[i:], " \t")
}

func (s *server) authenticate(c *reqCtx) (*apiToken, *apiError) {
	unauthorized := func(msg string) *apiError { return &apiError{status: 401, code: "unauthorized", message: msg} }
	if c.r.Header.Get("Authorization") == "" {
		return nil, unauthorized("missing Authorization header")
	}
	if !strings.EqualFold(c.scheme, "Bearer") || c.credential == "" || strings.ContainsAny(c.credential, " \t") {
		return nil, unauthorized("expected Authorization: Bearer <token>")
	}
	credential := c.credential
	if s.bugs.on("token-case-insensitive") {
		credential = strings.ToLower(credential)
	}
	tok := s.tokens[sha256.Sum256([]byte(credential))]
	if tok == nil && s.bugs.on("token-truncated") && len(c.credential) >= len(s.prefix)+16 {
		for _, t := range s.tokenList {
			if strings.HasPrefix(t.clear, c.credential) {
				tok = t
				break
			}
		}
	}
	if tok == nil {
		return nil, unauthorized("unknown API token")
	}
	lenientScheme := s.bugs.on("revoked-lowercase-scheme") && c.scheme != "Bearer"
	if tok.Revoked && !lenientScheme {
		return nil, unauthorized("this API token was revoked")
	}
	skipExpiry := s.bugs.on("expired-post") && c.r.Method == http.MethodPost
	if tok.ExpiresAt != nil && !c.now.Before(*tok.ExpiresAt) && !skipExpiry {
		return nil, unauthorized("this API token expired")
	}
	org := s.st.orgs[tok.Organization]
	skipPlan := s.bugs.on("plan-check-get-only") && c.r.Method != http.MethodGet
	if !org.APIAccess && !skipPlan {
		return nil, &apiError{status: 403, code: "forbidden", message: "the organization's plan does not include API access"}
	}
	return tok, nil
}

func (s *server) requiredScope(resource, method string) string {
	if method == http.MethodPost {
		if resource == "products" && s.bugs.on("scope-products-write") {
			return "products:read"
		}
		return resource + ":write"
	}
	if resource == "expenses" && s.bugs.on("expenses-scope") {
		return "invoices:read"
	}
	return resource + ":read"
}

func (s *server) authorize(tok *apiToken, scope string) *apiError {
	ok := tok.Scopes[scope]
	if !ok && s.bugs.on("write-implies-read") && strings.HasSuffix(scope, ":read") {
		ok = tok.Scopes[strings.TrimSuffix(scope, "read")+"write"]
	}
	if ok {
		return nil
	}
	if s.bugs.on("scope-401") {
		return &apiError{status: 401, code: "unauthorized", message: "this token lacks the scope " + scope}
	}
	return &apiError{status: 403, code: "forbidden", message: "this token lacks the scope " + scope}
}

// ---- bodies

func (s *server) readBody(c *reqCtx) (map[string]json.RawMessage, *apiError) {
	mt, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" || (params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8")) {
		return nil, &apiError{status: 415, code: "invalid_request", message: "the body must be sent with Content-Type: application/json"}
	}
	body, err := io.ReadAll(io.LimitReader(c.r.Body, s.maxBody+1))
	if err != nil {
		return nil, &apiError{status: 400, code: "invalid_request", message: "could not read the body"}
	}
	if int64(len(body)) > s.maxBody {
		_, _ = io.Copy(io.Discard, io.LimitReader(c.r.Body, 64<<20))
		if s.bugs.on("body-limit-500") {
			return nil, &apiError{status: 500, code: "internal_error", message: "http: request body too large"}
		}
		return nil, &apiError{status: 413, code: "invalid_request", message: fmt.Sprintf("the body is larger than %d bytes", s.maxBody)}
	}
	m, err := decodeObject(body, s.bugs)
	if err == errInternal {
		return nil, &apiError{status: 500, code: "internal_error", message: "unexpected EOF"}
	}
	if err != nil {
		return nil, &apiError{status: 400, code: "invalid_request", message: err.Error()}
	}
	return m, nil
}

func invalid(errs fieldErrors) *apiError {
	return &apiError{status: 400, code: "invalid_request", message: "the request has invalid fields", details: errs}
}

// ---- contacts and products

type contactOut struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Name         string  `json:"name"`
	Email        *string `json:"email,omitempty"`
	Phone        *string `json:"phone,omitempty"`
	Address      *string `json:"address,omitempty"`
	TaxNumberTPS *string `json:"taxNumberTPS"`
	TaxNumberTVQ *string `json:"taxNumberTVQ"`
	CreatedAt    string  `json:"createdAt"`
	UpdatedAt    string  `json:"updatedAt"`
}

func (s *server) contactJSON(c *contact) contactOut {
	f := fmtTime
	if s.bugs.on("contact-time-seconds") {
		f = func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	}
	return contactOut{c.ID, c.Type, c.Name, c.Email, c.Phone, c.Address, c.TPS, c.TVQ, f(c.CreatedAt), f(c.UpdatedAt)}
}

type productOut struct {
	ID          string  `json:"id"`
	SKU         string  `json:"sku"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Type        string  `json:"type"`
	UnitPrice   string  `json:"unitPrice"`
	Taxable     bool    `json:"taxable"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

func productJSON(p *product) productOut {
	return productOut{p.ID, p.SKU, p.Name, p.Description, p.Type, p.UnitPrice.String(), p.Taxable, fmtTime(p.CreatedAt), fmtTime(p.UpdatedAt)}
}

func (s *server) createContact(c *reqCtx) *apiError {
	m, e := s.readBody(c)
	if e != nil {
		return e
	}
	in, errs := parseContact(m, s.bugs)
	if len(errs) > 0 {
		return invalid(errs)
	}
	if !s.admitLate(c) {
		return nil
	}
	now := c.now.UTC().Truncate(time.Millisecond)
	ct := &contact{ID: s.st.nextID("c"), Type: in.Type, Name: in.Name, Email: in.Email, Phone: in.Phone, Address: in.Address, TPS: in.TPS, TVQ: in.TVQ, CreatedAt: now, UpdatedAt: now}
	c.org.contacts = append(c.org.contacts, ct)
	out := s.contactJSON(ct)
	if s.bugs.on("create-no-email") {
		out.Email = nil
	}
	status := http.StatusCreated
	if s.bugs.on("contact-create-200") {
		status = http.StatusOK
	}
	s.writeJSON(c.w, status, map[string]any{"data": out})
	return nil
}

func (s *server) createProduct(c *reqCtx) *apiError {
	m, e := s.readBody(c)
	if e != nil {
		return e
	}
	in, errs := parseProduct(m, s.bugs)
	if len(errs) > 0 {
		return invalid(errs)
	}
	// sku: unique within the organization, compared without regard to case
	orgs := []*organization{c.org}
	if s.bugs.on("sku-global") {
		orgs = orgs[:0]
		for _, id := range s.st.orgOrder {
			orgs = append(orgs, s.st.orgs[id])
		}
	}
	for _, o := range orgs {
		for _, p := range o.products {
			if !strings.EqualFold(p.SKU, in.SKU) {
				continue
			}
			if s.bugs.on("sku-index-stale") && !s.skuIndex[o.ID][strings.ToLower(in.SKU)] {
				continue
			}
			if s.bugs.on("sku-dup-409") {
				return &apiError{status: 409, code: "conflict", message: "a product with this sku already exists"}
			}
			if s.bugs.on("sku-global") {
				return &apiError{status: 400, code: "invalid_request", message: "sku already used by product " + p.ID,
					details: fieldErrors{"sku": fmt.Sprintf("already used by product %s (%s)", p.ID, p.Name)}}
			}
			return invalid(fieldErrors{"sku": "a product with this sku already exists"})
		}
	}
	if !s.admitLate(c) {
		return nil
	}
	now := c.now.UTC().Truncate(time.Millisecond)
	p := &product{ID: s.st.nextID("p"), SKU: in.SKU, Name: in.Name, Description: in.Description, Type: in.Type, UnitPrice: in.UnitPrice, Taxable: in.Taxable, CreatedAt: now, UpdatedAt: now}
	if s.bugs.on("updatedat-zero") {
		p.UpdatedAt = time.Time{}
	}
	c.org.products = append(c.org.products, p)
	if s.opts.productMinimal {
		s.writeJSON(c.w, http.StatusCreated, map[string]any{"data": map[string]string{"id": p.ID}})
		return nil
	}
	s.writeJSON(c.w, http.StatusCreated, map[string]any{"data": productJSON(p)})
	return nil
}
