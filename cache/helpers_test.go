package cache

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// t0 is the reference instant of every fixture: events are observed around
// it and snapshots are built at it unless a test says otherwise.
var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// feed applies events to an Index with increasing stream sequences, as the
// consumer does, and insists every fixture is a valid event.
type feed struct {
	t   testing.TB
	x   *Index
	seq uint64
}

func newFeed(t testing.TB, currency string) *feed {
	t.Helper()
	return &feed{t: t, x: NewIndex(currency)}
}

func (f *feed) apply(evs ...contracts.Event) Outcome {
	f.t.Helper()
	var out Outcome
	for _, ev := range evs {
		f.seq++
		out = applyAt(f.t, f.x, f.seq, ev)
	}
	return out
}

func applyAt(t testing.TB, x *Index, seq uint64, ev contracts.Event) Outcome {
	t.Helper()
	if err := ev.Validate(); err != nil {
		t.Fatalf("fixture %T is not a valid event: %v", ev, err)
	}
	return x.Apply(seq, storedAt(ev), ev)
}

// storedAt is when a stream that stores events as they are observed would
// have stored ev.
func storedAt(ev contracts.Event) time.Time {
	switch e := ev.(type) {
	case *contracts.PriceSet:
		return e.ObservedAt
	case *contracts.Withdrawal:
		return e.ObservedAt
	case *contracts.ZoneMeta:
		return e.ObservedAt
	case *contracts.Rates:
		return e.ObservedAt
	case *contracts.RegistrarStatus:
		return e.ObservedAt
	}
	return time.Time{}
}

// decode parses a rendered body with numbers kept as their literal text, so
// money is compared as the exact decimal the API sends.
func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("body is not valid JSON: %s", b)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v T
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %T: %v\nbody: %s", v, err, b)
	}
	return v
}

type ratesJSON struct {
	Base   string `json:"base"`
	Date   string `json:"date"`
	Source string `json:"source"`
}

type domainsJSON struct {
	Currency string         `json:"currency"`
	AsOf     *string        `json:"as_of"`
	Rates    *ratesJSON     `json:"rates"`
	Count    int            `json:"count"`
	Next     *string        `json:"next_cursor"`
	Zones    []fragmentJSON `json:"zones"`
}

type fragmentJSON struct {
	Zone       string              `json:"zone"`
	Unicode    string              `json:"unicode"`
	Type       *string             `json:"type"`
	Categories []string            `json:"categories"`
	Registrars int                 `json:"registrars"`
	Min        map[string]*minJSON `json:"min"`
	Cost       *costJSON           `json:"cost"`
}

type costJSON struct {
	Years     int          `json:"years"`
	Price     *json.Number `json:"price"`
	Registrar *string      `json:"registrar"`
	Total     *json.Number `json:"total"`
}

type minJSON struct {
	Price     json.Number `json:"price"`
	Registrar string      `json:"registrar"`
}

type comparisonZonesJSON struct {
	Count int `json:"count"`
	Zones []struct {
		Zone       string `json:"zone"`
		Unicode    string `json:"unicode"`
		Registrars int    `json:"registrars"`
	} `json:"zones"`
}

type categoriesJSON struct {
	Count      int `json:"count"`
	Categories []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Zones int    `json:"zones"`
	} `json:"categories"`
}

type comparisonJSON struct {
	Zone       string             `json:"zone"`
	Unicode    string             `json:"unicode"`
	Currency   string             `json:"currency"`
	AsOf       *string            `json:"as_of"`
	Type       *string            `json:"type"`
	Categories []string           `json:"categories"`
	Rates      *ratesJSON         `json:"rates"`
	Cheapest   map[string]*string `json:"cheapest"`
	Prices     []rowJSON          `json:"prices"`
}

type rowJSON struct {
	Registrar  string               `json:"registrar"`
	Source     string               `json:"source"`
	Register   *json.Number         `json:"register"`
	Renew      *json.Number         `json:"renew"`
	Transfer   *json.Number         `json:"transfer"`
	Converted  bool                 `json:"converted"`
	Native     *nativeJSON          `json:"native"`
	Promo      map[string]promoJSON `json:"promo"`
	Cheapest   []string             `json:"cheapest"`
	ObservedAt string               `json:"observed_at"`
	Trap       *bool                `json:"renewal_trap"`
	Cost       *costJSON            `json:"cost"`
}

type nativeJSON struct {
	Currency string       `json:"currency"`
	Register *json.Number `json:"register"`
	Renew    *json.Number `json:"renew"`
	Transfer *json.Number `json:"transfer"`
}

type promoJSON struct {
	Regular json.Number `json:"regular"`
	EndsAt  *string     `json:"ends_at"`
}

// amounts are register, renew and transfer as their JSON text, "null" when
// absent.
type amounts [3]string

func amountsOf(register, renew, transfer *json.Number) amounts {
	var a amounts
	for i, n := range []*json.Number{register, renew, transfer} {
		a[i] = "null"
		if n != nil {
			a[i] = n.String()
		}
	}
	return a
}

func (r rowJSON) amounts() amounts { return amountsOf(r.Register, r.Renew, r.Transfer) }

func (n nativeJSON) amounts() amounts { return amountsOf(n.Register, n.Renew, n.Transfer) }

func comparison(t testing.TB, s *Snapshot, zone string) comparisonJSON {
	t.Helper()
	b, ok := s.Comparison(zone)
	if !ok {
		t.Fatalf("Comparison(%q) missing from snapshot version %d", zone, s.Version)
	}
	return decode[comparisonJSON](t, b.JSON)
}

func (c comparisonJSON) row(t testing.TB, registrar string) rowJSON {
	t.Helper()
	for _, r := range c.Prices {
		if r.Registrar == registrar {
			return r
		}
	}
	t.Fatalf("comparison of %s has no row for %s", c.Zone, registrar)
	return rowJSON{}
}

func (c comparisonJSON) registrars() []string {
	ids := make([]string, len(c.Prices))
	for i, r := range c.Prices {
		ids[i] = r.Registrar
	}
	return ids
}

// bodies lists every body of a snapshot, named by its route.
func bodies(s *Snapshot) map[string]*Body {
	m := map[string]*Body{
		"/api/domains":            s.Domains,
		"/api/domains/categories": s.Categories,
		"/api/comparison/zones":   s.ComparisonZones,
		"/api/registrars":         s.Directory,
	}
	for zone, v := range s.byZone {
		m["/api/comparison/"+zone] = v.comparison()
	}
	return m
}
