package main

import (
	"net/http/httptest"
	"testing"
	"time"
)

// The legal alternatives of options serve exactly the limit, then 429, each counted where it says.

func clientWith(t *testing.T, opts options, clock *time.Time) (*client, func()) {
	s, err := newServer(defaultManifest, bugSet{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return *clock }
	ts := httptest.NewServer(s)
	c, stop := newClient(t, bugSet{})
	stop()
	c.base = ts.URL
	return c, ts.Close
}

func burst(c *client, label string, n int) (served int, last answer) {
	for i := 0; i < n; i++ {
		last = c.get(label, "/api/v1/products?limit=1")
		if last.status != 429 {
			served++
		}
	}
	return served, last
}

func TestEachLimiterServesExactlyTheLimit(t *testing.T) {
	for _, algo := range []string{"fixed", "bucket"} {
		clock := testNow
		opts := defaultOptions()
		opts.rateAlgo = algo
		c, stop := clientWith(t, opts, &clock)
		served, last := burst(c, full, 130)
		if served != 100 || last.errCode() != "rate_limited" || last.header.Get("Retry-After") == "" {
			t.Errorf("%s: served %d of 130, last %s (Retry-After %q)", algo, served, last, last.header.Get("Retry-After"))
		}
		if a := c.get("aurora-full-2", "/api/v1/products?limit=1"); a.status != 200 {
			t.Errorf("%s: another token is limited too: %s", algo, a)
		}
		clock = clock.Add(time.Minute)
		if a := c.get(full, "/api/v1/products?limit=1"); a.status != 200 {
			t.Errorf("%s: a minute later still %d", algo, a.status)
		}
		stop()
	}
}

func TestOrganizationScopeSharesOneBudget(t *testing.T) {
	clock := testNow
	opts := defaultOptions()
	opts.rateScope = "organization"
	c, stop := clientWith(t, opts, &clock)
	defer stop()
	a, _ := burst(c, full, 60)
	b, last := burst(c, "aurora-full-2", 50)
	if a+b != 100 || last.status != 429 {
		t.Errorf("served %d + %d in one organization, last %d", a, b, last.status)
	}
	if x := c.get(other, "/api/v1/products?limit=1"); x.status != 200 {
		t.Errorf("the other organization is limited too: %d", x.status)
	}
}

func TestProductMinimalAnswersTheIDOnly(t *testing.T) {
	clock := testNow
	opts := defaultOptions()
	opts.productMinimal = true
	c, stop := clientWith(t, opts, &clock)
	defer stop()
	a := c.post(full, "/api/v1/products", productBody("MIN-1", nil))
	if a.status != 201 || len(a.obj()) != 1 || a.obj()["id"] == nil {
		t.Errorf("%s", a)
	}
}
