package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A Capture keeps every document fetched under a context that carries it
// (WithCapture), byte for byte as the server sent it, with what was asked
// and answered beside it: so that an operator whose machine reaches the
// registrars can hand the project real responses, which its tests then
// read (ingesttest.Captures), and which zoneprice-ingest --file imports to
// the same prices.
//
// For source s, the n-th document of a run is s/<time>-<n>.body in the
// capture's directory, and its Meta is s/<time>-<n>.json beside it. A
// credentialed source's URL is written with its secrets redacted, as the
// client logs it; its answer is written as it came, so look at a capture
// before sharing it.
type Capture struct {
	dir string
	now func() time.Time

	mu sync.Mutex
	n  map[string]int
}

// Meta is what a Capture writes beside a document.
type Meta struct {
	Source    string    `json:"source"`
	Method    string    `json:"method"`
	URL       string    `json:"url"`
	FetchedAt time.Time `json:"fetched_at"`
	// Status is the HTTP status: 200, or 304 for a document the client
	// remembered from an earlier 200 (then its body is that 200's).
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	// Body is the document's file name, in the same directory.
	Body string `json:"body"`
}

// NewCapture writes into dir, made (owner only) when missing.
func NewCapture(dir string, now func() time.Time) (*Capture, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	return &Capture{dir: dir, now: now, n: map[string]int{}}, nil
}

type captureKey struct{}

type captureFor struct {
	c      *Capture
	source string
}

// WithCapture returns ctx under which every document the client fetches
// is saved by c as source's.
func WithCapture(ctx context.Context, c *Capture, source string) context.Context {
	return context.WithValue(ctx, captureKey{}, captureFor{c: c, source: source})
}

// captured saves resp when ctx carries a capture.
func captured(ctx context.Context, req Request, resp *Response) error {
	cf, ok := ctx.Value(captureKey{}).(captureFor)
	if !ok {
		return nil
	}
	return cf.c.save(cf.source, req, resp)
}

func (c *Capture) save(source string, req Request, resp *Response) error {
	at := c.now().UTC()
	c.mu.Lock()
	c.n[source]++
	n := c.n[source]
	c.mu.Unlock()
	dir := filepath.Join(c.dir, source)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	base := fmt.Sprintf("%s-%d", at.Format("20060102T150405Z"), n)
	meta := Meta{Source: source, Method: req.Method, URL: redact(req.URL, req.Secrets), FetchedAt: at,
		Status: resp.Status, ContentType: resp.Header.Get("Content-Type"), Body: base + ".body"}
	doc, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, meta.Body), resp.Body, 0o600); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, base+".json"), append(doc, '\n'), 0o600); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return nil
}
