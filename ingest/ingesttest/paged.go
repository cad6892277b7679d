package ingesttest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A PageCase is one fetch by a paged source from a fake serving Pages.
type PageCase struct {
	Name string
	// Pages are the bodies served by the key a request asks for (Paging);
	// past them the Suite's Empty body, or a 404. Steps, when set, answer
	// the first requests instead, one each.
	Pages map[int][]byte
	Steps []http.HandlerFunc
	// WantErr, when set, is what the fetch's error must mention; without
	// it the fetch gives Zones zones, skipping Skipped rows and keeping
	// Keep (CheckOutcome).
	WantErr        string
	Zones, Skipped int
	Keep           []string
	// Asked are the keys the requests asked for, in order, retries
	// included.
	Asked []int
}

// Paging runs each case through the source at Path on a fresh fake that
// checks requests (Check), records the key each asks for (key, or Page
// when nil: a page number, an offset) and answers with the case's pages.
func (s Suite) Paging(t *testing.T, key func(*http.Request) int, cases []PageCase) {
	t.Helper()
	if key == nil {
		key = s.Page
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []int
			api, srv := NewAPI(t, nil, func(r *http.Request) error {
				var err error
				if s.Check != nil {
					err = s.Check(r)
				}
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, key(r))
				return err
			})
			api.SetHandler(func(w http.ResponseWriter, r *http.Request) {
				body, ok := c.Pages[key(r)]
				switch {
				case ok:
					Body(body)(w, r)
				case s.Empty != nil:
					Body(s.Empty)(w, r)
				default:
					http.NotFound(w, r)
				}
			})
			api.Serve(c.Steps...)
			list, err := s.Source(t, srv.URL+s.Path, nil).Fetch(context.Background())
			if CheckOutcome(t, list, err, c.WantErr, c.Skipped, c.Keep) && len(list.Prices) != c.Zones {
				t.Errorf("got %d zones, want %d", len(list.Prices), c.Zones)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(asked, c.Asked) {
				t.Errorf("asked for %v, want %v", asked, c.Asked)
			}
		})
	}
}

// Endless checks that the source gives up on a list whose pages never
// end after max requests, naming the limit: the nth request gets page(n).
func (s Suite) Endless(t *testing.T, max int, page func(n int) []byte) {
	t.Helper()
	var n atomic.Int64
	api, srv := NewAPI(t, nil, nil)
	api.SetHandler(func(w http.ResponseWriter, r *http.Request) { Body(page(int(n.Add(1))))(w, r) })
	_, err := s.Source(t, srv.URL+s.Path, nil).Fetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d pages", max)) {
		t.Fatalf("Fetch error = %v, want the page limit %d", err, max)
	}
	if got := n.Load(); got != int64(max) {
		t.Errorf("server saw %d requests, want %d", got, max)
	}
}
