package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"
)

type listQuery struct {
	limit  int // -1: no limit (only under the limit-zero-unbounded bug)
	filter *string
	before *time.Time
}

const maxLimit = 200

// parseBefore: an ISO 8601 date-time with any offset and any fraction, or a bare date (midnight UTC).
func parseBefore(v string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func (s *server) parseListQuery(r *http.Request, filterName string, allowed []string, withBefore bool) (listQuery, fieldErrors) {
	q := r.URL.Query()
	errs := fieldErrors{}
	known := []string{"limit"}
	if filterName != "" {
		known = append(known, filterName)
	}
	if withBefore {
		known = append(known, "before")
	}
	for _, k := range known {
		if len(q[k]) > 1 {
			errs.add(k, "must be given once")
		}
	}
	lq := listQuery{limit: 50}
	if s.bugs.on("limit-default-100") {
		lq.limit = 100
	}
	if vs, ok := q["limit"]; ok {
		n, err := strconv.Atoi(vs[0])
		switch {
		case err != nil:
			errs.add("limit", fmt.Sprintf("must be an integer between 1 and %d", maxLimit))
		case n > maxLimit:
			lq.limit = maxLimit // out-of-range limits are clamped (README)
		case n < 1 && s.bugs.on("limit-zero-unbounded"):
			lq.limit = -1
		case n < 1:
			lq.limit = 1
		default:
			lq.limit = n
		}
		if s.bugs.on("limit-max-100") && lq.limit > 100 {
			lq.limit = 100
		}
	}
	if filterName != "" {
		if vs, ok := q[filterName]; ok {
			v := vs[0]
			oneOf(&v, filterName, allowed, errs)
			lq.filter = &v
		}
	}
	if withBefore {
		if v := q.Get("before"); v != "" {
			t, ok := parseBefore(v)
			if !ok {
				errs.add("before", "must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T00:00:00.000Z)")
			}
			lq.before = &t
		}
	}
	return lq, errs
}

func cut[T any](items []T, limit int) []T {
	if limit >= 0 && len(items) > limit {
		return items[:limit]
	}
	return items
}

// newestFirst orders by the given instant, newest first, ties by id descending.
func newestFirst[T any](items []T, at func(T) time.Time, id func(T) string) {
	sort.SliceStable(items, func(a, b int) bool {
		ta, tb := at(items[a]), at(items[b])
		if !ta.Equal(tb) {
			return ta.After(tb)
		}
		return id(items[a]) > id(items[b])
	})
}

func (s *server) list(c *reqCtx, resource string) *apiError {
	var (
		lq   listQuery
		errs fieldErrors
	)
	switch resource {
	case "contacts":
		lq, errs = s.parseListQuery(c.r, "type", contactTypes, false)
	case "products":
		lq, errs = s.parseListQuery(c.r, "", nil, false)
	case "invoices":
		lq, errs = s.parseListQuery(c.r, "status", invoiceStatuses, true)
	case "expenses":
		allowed := expenseStatuses
		if s.bugs.on("expenses-status-enum") {
			allowed = invoiceStatuses
		}
		lq, errs = s.parseListQuery(c.r, "status", allowed, true)
	}
	if len(errs) > 0 {
		return invalid(errs)
	}
	if !s.admitLate(c) {
		return nil
	}
	cacheKey := ""
	ttl := time.Duration(0)
	switch {
	case s.bugs.on("list-cache-org") && (resource == "invoices" || resource == "expenses"):
		cacheKey, ttl = c.r.URL.RequestURI(), 30*time.Second
	case s.bugs.on("list-cache-stale") && resource == "products":
		cacheKey, ttl = c.org.ID+" "+c.r.URL.RequestURI(), 10*time.Second
	}
	if cacheKey != "" {
		if e, ok := s.cache[cacheKey]; ok && c.now.Sub(e.at) < ttl {
			c.w.Header().Set("Content-Type", "application/json")
			c.w.WriteHeader(http.StatusOK)
			_, _ = c.w.Write(e.body)
			return nil
		}
	}
	data := s.listData(c, resource, lq)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"data": data}); err != nil {
		panic(err)
	}
	if cacheKey != "" {
		s.cache[cacheKey] = cacheEntry{at: c.now, body: buf.Bytes()}
	}
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(buf.Bytes())
	return nil
}

// out starts as an empty slice, so that an empty list is [] (the nil-slice bug leaves it nil: null).
func outSlice[T any](bugs bugSet, n int) []T {
	if bugs.on("nil-slice") {
		return nil
	}
	return make([]T, 0, n)
}

func (s *server) listData(c *reqCtx, resource string, lq listQuery) any {
	org := c.org
	switch resource {
	case "contacts":
		var items []*contact
		for _, ct := range org.contacts {
			if lq.filter == nil || s.bugs.on("type-filter-ignored") || ct.Type == *lq.filter {
				items = append(items, ct)
			}
		}
		if s.bugs.on("new-records-last") {
			var seeded, created []*contact
			for _, ct := range items {
				if ct.seeded {
					seeded = append(seeded, ct)
				} else {
					created = append(created, ct)
				}
			}
			newestFirst(seeded, func(x *contact) time.Time { return x.CreatedAt }, func(x *contact) string { return x.ID })
			items = append(seeded, created...)
		} else {
			items = cutEarly(s, items, lq)
			newestFirst(items, func(x *contact) time.Time { return x.CreatedAt }, func(x *contact) string { return x.ID })
		}
		out := outSlice[contactOut](s.bugs, len(items))
		for _, ct := range cut(items, lq.limit) {
			out = append(out, s.contactJSON(ct))
		}
		return out
	case "products":
		items := cutEarly(s, append([]*product(nil), org.products...), lq)
		newestFirst(items, func(x *product) time.Time { return x.CreatedAt }, func(x *product) string { return x.ID })
		out := outSlice[productOut](s.bugs, len(items))
		for _, p := range cut(items, lq.limit) {
			out = append(out, productJSON(p))
		}
		return out
	case "invoices":
		source := org.invoices
		if lq.filter != nil && s.bugs.on("status-filter-leak") {
			source = nil
			for _, id := range s.st.orgOrder {
				source = append(source, s.st.orgs[id].invoices...)
			}
		}
		items := filterDated(s, source, lq, func(x *invoice) time.Time { return x.Date }, func(x *invoice) string { return x.Status })
		items = cutEarly(s, items, lq)
		newestFirst(items, func(x *invoice) time.Time { return x.Date }, func(x *invoice) string { return x.ID })
		items = statusThenLimit(s, items, lq, func(x *invoice) string { return x.Status })
		out := outSlice[invoiceOut](s.bugs, len(items))
		for _, inv := range items {
			out = append(out, s.invoiceJSON(inv))
		}
		return out
	default:
		beforeOn := func(x *expense) time.Time { return x.Date }
		if s.bugs.on("before-on-createdat") {
			beforeOn = func(x *expense) time.Time { return x.CreatedAt }
		}
		items := filterDated(s, org.expenses, lq, beforeOn, func(x *expense) string { return x.Status })
		items = cutEarly(s, items, lq)
		newestFirst(items, func(x *expense) time.Time { return x.Date }, func(x *expense) string { return x.ID })
		if s.bugs.on("expenses-order-asc") {
			for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
				items[i], items[j] = items[j], items[i]
			}
		}
		items = statusThenLimit(s, items, lq, func(x *expense) string { return x.Status })
		out := outSlice[expenseOut](s.bugs, len(items))
		for _, e := range items {
			out = append(out, s.expenseJSON(e))
		}
		return out
	}
}

// cutEarly is the limit-before-sort bug: the page is cut in storage order (oldest first) before sorting.
func cutEarly[T any](s *server, items []T, lq listQuery) []T {
	if s.bugs.on("limit-before-sort") {
		return cut(items, lq.limit)
	}
	return items
}

// filterDated keeps the items strictly before `before` and, unless the filter-after-limit bug is on, of the status asked.
func filterDated[T any](s *server, source []T, lq listQuery, at func(T) time.Time, status func(T) string) []T {
	var items []T
	for _, x := range source {
		if lq.before != nil {
			if s.bugs.on("before-inclusive") {
				if at(x).After(*lq.before) {
					continue
				}
			} else if !at(x).Before(*lq.before) {
				continue
			}
		}
		if lq.filter != nil && !s.bugs.on("filter-after-limit") && status(x) != *lq.filter {
			continue
		}
		items = append(items, x)
	}
	return items
}

func statusThenLimit[T any](s *server, items []T, lq listQuery, status func(T) string) []T {
	items = cut(items, lq.limit)
	if lq.filter != nil && s.bugs.on("filter-after-limit") {
		var kept []T
		for _, x := range items {
			if status(x) == *lq.filter {
				kept = append(kept, x)
			}
		}
		items = kept
	}
	return items
}

// ---- invoices and expenses

type contactRef struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

type invoiceOut struct {
	ID            string     `json:"id"`
	InvoiceNumber string     `json:"invoiceNumber"`
	Date          string     `json:"date"`
	DueDate       string     `json:"dueDate"`
	Status        string     `json:"status"`
	Subtotal      string     `json:"subtotal"`
	TPS           string     `json:"tps"`
	TVQ           string     `json:"tvq"`
	Total         string     `json:"total"`
	Description   string     `json:"description"`
	Contact       contactRef `json:"contact"`
	CreatedAt     string     `json:"createdAt"`
}

func (s *server) invoiceJSON(i *invoice) invoiceOut {
	due := i.DueDate
	if s.bugs.on("duedate-not-midnight") {
		due = i.CreatedAt.AddDate(0, 0, 30)
	}
	total := i.Total.String()
	if s.bugs.on("total-combined-rate") {
		f := float64(i.Subtotal) / 10000 * 1.14975
		total = fmt.Sprintf("%.4f", math.Round(f*100)/100)
	}
	return invoiceOut{i.ID, i.Number, fmtTime(i.Date), fmtTime(due), i.Status, i.Subtotal.String(), i.TPS.String(), i.TVQ.String(), total,
		i.Description, contactRef{i.ContactID, i.ContactName, i.ContactEmail}, fmtTime(i.CreatedAt)}
}

type expenseContact struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type accountOut struct {
	ID   string `json:"id"`
	Code string `json:"code"`
	Name string `json:"name"`
}

type expenseOut struct {
	ID          string         `json:"id"`
	Date        string         `json:"date"`
	Status      string         `json:"status"`
	Amount      string         `json:"amount"`
	TPS         string         `json:"tps"`
	TVQ         string         `json:"tvq"`
	Total       string         `json:"total"`
	Description string         `json:"description"`
	Contact     expenseContact `json:"contact"`
	Account     accountOut     `json:"account"`
	CreatedAt   string         `json:"createdAt"`
}

func (s *server) expenseJSON(e *expense) expenseOut {
	tps, tvq := e.TPS.String(), e.TVQ.String()
	if s.bugs.on("expense-2dp") {
		tps, tvq = fmt.Sprintf("%.2f", float64(e.TPS)/10000), fmt.Sprintf("%.2f", float64(e.TVQ)/10000)
	}
	return expenseOut{e.ID, fmtTime(e.Date), e.Status, e.Amount.String(), tps, tvq, e.Total.String(), e.Description,
		expenseContact{e.ContactID, e.ContactName}, accountOut{e.Account.ID, e.Account.Code, e.Account.Name}, fmtTime(e.CreatedAt)}
}
