// Command foreign-go-server is an implementation of the accounting API (§1–§9 of accounting-api.md),
// written from the spec alone, with defects that --bug switches on one at a time.
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

//go:embed tokens.json
var defaultManifest []byte

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var bugNames multiFlag
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0: an ephemeral port)")
	tokensPath := flag.String("tokens", "", "token manifest (default: the embedded tokens.json)")
	opts := defaultOptions()
	flag.IntVar(&opts.rateLimit, "rate-limit", opts.rateLimit, "requests per minute")
	flag.StringVar(&opts.rateScope, "rate-scope", opts.rateScope, "what the rate limit counts: token, organization or address")
	flag.StringVar(&opts.rateAlgo, "rate-algo", opts.rateAlgo, "fixed (a window on the wall-clock minute) or bucket (a token bucket)")
	noRateHeaders := flag.Bool("no-rate-headers", false, "send no X-RateLimit-* or Retry-After header")
	flag.BoolVar(&opts.productMinimal, "product-minimal", false, "product creation answers 201 with only the new id")
	verbose := flag.Bool("log", false, "log every request to stderr")
	listBugs := flag.Bool("list-bugs", false, "print the switchable bugs and exit")
	flag.Var(&bugNames, "bug", "switch a bug on (repeatable, or comma-separated)")
	flag.Parse()

	if *listBugs {
		for _, b := range bugCatalogue {
			fmt.Printf("%-28s %-12s %-8s %s\n", b.name, b.kind, b.level, b.what)
		}
		return
	}
	opts.rateHeaders = !*noRateHeaders
	if (opts.rateScope != "token" && opts.rateScope != "organization" && opts.rateScope != "address") || (opts.rateAlgo != "fixed" && opts.rateAlgo != "bucket") {
		fmt.Fprintln(os.Stderr, "foreign-go-server: --rate-scope is token, organization or address; --rate-algo is fixed or bucket")
		os.Exit(2)
	}
	bugs, err := parseBugs(bugNames)
	if err != nil {
		fmt.Fprintln(os.Stderr, "foreign-go-server:", err)
		os.Exit(2)
	}
	manifestJSON := defaultManifest
	if *tokensPath != "" {
		if manifestJSON, err = os.ReadFile(*tokensPath); err != nil {
			fmt.Fprintln(os.Stderr, "foreign-go-server:", err)
			os.Exit(2)
		}
	}
	srv, err := newServer(manifestJSON, bugs, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "foreign-go-server:", err)
		os.Exit(2)
	}
	if *verbose {
		srv.logf = log.Printf
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "foreign-go-server:", err)
		os.Exit(2)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		_ = hs.Close()
	}()
	fmt.Printf("listening on http://%s\n", ln.Addr())
	if len(bugs) > 0 {
		fmt.Printf("bugs on: %s\n", bugNames.String())
	}
	if err := hs.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "foreign-go-server:", err)
		os.Exit(1)
	}
}
