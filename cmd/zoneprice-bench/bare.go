package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/zoneprice/zoneprice/query/api"
)

// bareCommand is the hidden subcommand that runs the baseline server:
//
//	zoneprice-bench bare -from http://127.0.0.1:8080 -listen 127.0.0.1:8081 [-mcp REQUEST] [-gc-headroom BYTES] /api/domains ...
const bareCommand = "bare"

// served are the response headers the baseline copies from the real service.
var served = []string{
	"Content-Type", "Etag", "Cache-Control", "Vary", "Last-Modified",
	"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "X-Content-Type-Options",
	"Referrer-Policy", "Content-Security-Policy", "Cross-Origin-Resource-Policy",
	"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset", "Ratelimit-Policy",
	"Link",                // the feed of changes' next page
	"Content-Disposition", // a CSV's file name
}

// canned is one response captured from the real service and replayed as is.
type canned struct {
	header map[string][]string // the headers in served, plus Content-Length
	body   []byte
}

// ServeHTTP writes the captured headers and bytes, and nothing else: the
// least a Go server can do to answer with the same response.
func (c *canned) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(c.body)
}

// runBare captures each path's response from the real service once, then
// serves those bytes from a plain net/http ServeMux (no echo, no metrics,
// the service's own server timeouts) until ctx ends. With -mcp it also
// serves /mcp with the MCP SDK's own handler, whose one tool answers
// the request as the real service did (mcp.go).
func runBare(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-bench bare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "base URL of the real query service to copy responses from")
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on")
	mcpCall := fs.String("mcp", "", "an MCP tools/call request whose answer /mcp gives")
	headroom := fs.Int64("gc-headroom", 0, "bytes the heap may grow by between collections (the real service's); 0 leaves GOGC alone")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || fs.NArg() == 0 {
		return errors.New("bare: -from and at least one path are required")
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	mux, err := bareMux(ctx, client, *from, fs.Args())
	if err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	if *mcpCall != "" {
		h, err := bareMCP(ctx, client, *from, *mcpCall)
		if err != nil {
			return fmt.Errorf("bare: %w", err)
		}
		mux.Handle("POST /mcp", h)
	}
	gcLikeService(*headroom, 100)

	cfg := api.DefaultConfig()
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(slog.NewTextHandler(stderr, nil), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("bare: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	<-errc
	return err
}

// gcLikeService lets the heap grow by headroom bytes between collections,
// as much as the real service's does: a pod holds tens of MiB live, so
// with GOGC=100 it collects after as many bytes of garbage, while this
// process, with a few MiB live, would collect every few MiB. A handler
// that allocates (the MCP SDK's, about a third of a MiB per call) would
// then measure this process's small heap, not the service's work. The
// bench gives it to the MCP call's bare server (the HTTP rows keep the
// baseline their targets were set with) and to the bare webhook client,
// with notify's headroom. GOGC goes no lower than floor: 100 for the bare
// server, whose heap may grow by its own live bytes at the least, as a Go
// server's does by default; 1 for the client, whose live heap is mostly
// the bodies it sends, which notify does not hold.
func gcLikeService(headroom int64, floor int) {
	if headroom <= 0 {
		return
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	debug.SetGCPercent(max(floor, int(100*headroom/int64(max(m.HeapAlloc, 1)))))
}

// bareMux captures each target's response from the real service at from
// and serves it at that path alone: "/" (the catalog page) is that path,
// not the whole tree a ServeMux pattern ending in a slash would be. A
// target with a query ("/api/domains?format=csv") is served for that
// query; a path captured with one query only is served whatever the
// request's.
func bareMux(ctx context.Context, client *http.Client, from string, targets []string) (*http.ServeMux, error) {
	byPath := map[string]byQuery{}
	var paths []string
	for _, target := range targets {
		c, err := capture(ctx, client, from+target)
		if err != nil {
			return nil, err
		}
		path, query, _ := strings.Cut(target, "?")
		if byPath[path] == nil {
			byPath[path] = byQuery{}
			paths = append(paths, path)
		}
		byPath[path][query] = c
	}
	mux := http.NewServeMux()
	for _, path := range paths {
		pattern := "GET " + path
		if strings.HasSuffix(path, "/") {
			pattern += "{$}"
		}
		if q := byPath[path]; len(q) > 1 {
			mux.Handle(pattern, q)
		} else {
			for _, c := range q {
				mux.Handle(pattern, c)
			}
		}
	}
	return mux, nil
}

// byQuery are the responses captured for one path, by query.
type byQuery map[string]*canned

// ServeHTTP answers with the response of the request's query, a 404
// without one.
func (q byQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, ok := q[r.URL.RawQuery]
	if !ok {
		http.NotFound(w, r)
		return
	}
	c.ServeHTTP(w, r)
}

// capture GETs url once and keeps its body and the headers in served.
func capture(ctx context.Context, client *http.Client, url string) (*canned, error) {
	resp, err := get(ctx, client, url)
	if err != nil {
		return nil, err
	}
	c := &canned{header: map[string][]string{}, body: resp.body}
	for _, k := range served {
		if v := resp.header.Values(k); len(v) > 0 {
			c.header[k] = v
		}
	}
	c.header["Content-Length"] = []string{strconv.Itoa(len(c.body))}
	return c, nil
}

// response is a whole response read into memory.
type response struct {
	status int
	header http.Header
	body   []byte
}

// get GETs url, and fails on anything but 200.
func get(ctx context.Context, client *http.Client, url string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return fetch(client, req)
}

// fetch sends req and reads the whole response; it fails on anything but
// 200.
func fetch(client *http.Client, req *http.Request) (*response, error) {
	url := req.URL.String()
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %.200s", req.Method, url, resp.Status, body)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// sameResponses checks that the real and the bare server answer path with
// byte-identical bodies and the same copied headers, so that the throughput
// comparison is of the servers alone. It returns the body size.
func sameResponses(ctx context.Context, client *http.Client, realURL, bareURL, path string) (int, error) {
	r, err := get(ctx, client, realURL+path)
	if err != nil {
		return 0, err
	}
	b, err := get(ctx, client, bareURL+path)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(r.body, b.body) {
		return 0, fmt.Errorf("%s: bodies differ (real %d bytes, bare %d bytes)", path, len(r.body), len(b.body))
	}
	for _, k := range [...]string{"Content-Type", "Etag", "Cache-Control", "Content-Length", "Content-Disposition", "Vary"} {
		if rv, bv := r.header.Values(k), b.header.Values(k); fmt.Sprint(rv) != fmt.Sprint(bv) {
			return 0, fmt.Errorf("%s: header %s differs: real %q, bare %q", path, k, rv, bv)
		}
	}
	return len(r.body), nil
}
