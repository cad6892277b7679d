package api

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"deflate, br", false},
		{"gzip;q=0", false},
		{"gzip ; q=0.000", false},
		{"gzip;q=0.001", true},
		{"gzip;q=1", true},
		{"*", true},
		{"*;q=0", false},
		{"gzip;q=0, *", false},
		{"br, *;q=0.1", true},
		{"identity", false},
		{"*\ngzip;q=0", false},
		{"br\ngzip", true},
	}
	for _, tt := range tests {
		if got := acceptsGzip(strings.Split(tt.header, "\n")); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestOptionKeys checks the response-cache keys: equivalent option sets
// share one, different ones never do.
func TestOptionKeys(t *testing.T) {
	snap := testSnapshot(t)
	keyOf := func(query string, catalog bool) string {
		t.Helper()
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		if catalog {
			_, p, err := catalogOptions(q, snap)
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return p.key()
		}
		_, key, err := comparisonOptions(q, snap)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return key
	}
	catalogs := [][]string{
		{"", "sort=zone", "currency=USD", "currency=usd", "other=1"},
		{"category=idn,finance", "category=finance&category=idn", "category=FINANCE,idn,idn"},
		{"sort=cost", "sort=cost&years=1"},
		{"sort=cost&years=2"},
		{"sort=-zone"},
		{"q=shop", "q=.SHOP"},
		{"q=sho"},
		{"limit=10"},
		{"limit=10&sort=register"},
		{"currency=EUR"},
		{"years=3"},
	}
	comparisons := [][]string{
		{"", "sort=register", "currency=USD"},
		{"exclude=a,b", "exclude=b&exclude=a"},
		{"registrars=a,b"},
		{"sort=-register"},
		{"sort=cost", "sort=cost&years=1"},
		{"years=1"},
		{"currency=EUR"},
	}
	for _, tc := range []struct {
		name    string
		groups  [][]string
		catalog bool
	}{{"catalog", catalogs, true}, {"comparison", comparisons, false}} {
		seen := map[string]string{}
		for _, group := range tc.groups {
			want := keyOf(group[0], tc.catalog)
			if other, ok := seen[want]; ok {
				t.Errorf("%s: %q and %q share the key %q", tc.name, group[0], other, want)
			}
			seen[want] = group[0]
			for _, q := range group[1:] {
				if got := keyOf(q, tc.catalog); got != want {
					t.Errorf("%s: %q has key %q, %q has %q; want the same", tc.name, q, got, group[0], want)
				}
			}
		}
	}
}

// testSnapshot is a snapshot in USD with EUR rates.
func testSnapshot(t *testing.T) *cache.Snapshot {
	t.Helper()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	return SnapshotOf(t, at,
		eventtest.Rates(at, "EUR", map[string]string{"USD": "1.08"}),
		eventtest.RegisterOnly("a", ".shop", at, "USD", 100))
}
