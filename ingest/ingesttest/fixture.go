package ingesttest

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/fetch"
)

// Fixture returns the contents of testdata/name in the package under test.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Seed adds every fixture in testdata matching pattern to a fuzz corpus;
// a pattern that matches nothing fails the test, so that a renamed
// fixture cannot silently empty the corpus.
func Seed(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures match %s: %v", pattern, err)
	}
	for _, name := range files {
		f.Add(Fixture(f, filepath.Base(name)))
	}
}

// Client returns a fetch client over hc (nil for the default) that
// retries at once, whatever the backoff or Retry-After, so that retry tests
// cost no time, and logs nothing.
func Client(hc *http.Client) *fetch.Client {
	return fetch.New(fetch.Config{BaseDelay: time.Millisecond, Sleep: noWait}, hc, slog.New(slog.DiscardHandler))
}

func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }
