package sources_test

import (
	"cmp"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/sources"
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/ecb"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/sheet"
)

// TestRegistry builds every source from the environment: keyless ones
// from nothing, the others only with their credentials, whose absence is an
// error naming the variable to set.
func TestRegistry(t *testing.T) {
	creds := map[string]string{
		"ZONEPRICE_NAMECHEAP_API_USER":  "user",
		"ZONEPRICE_NAMECHEAP_API_KEY":   "key",
		"ZONEPRICE_NAMECHEAP_CLIENT_IP": "192.0.2.1",
		"ZONEPRICE_NAMECOM_USERNAME":    "user",
		"ZONEPRICE_NAMECOM_TOKEN":       "token",
		"ZONEPRICE_SHEET_FILE":          "prices.csv",
	}
	for name, spec := range sources.Registry() {
		t.Run(name, func(t *testing.T) {
			deps := func(env map[string]string) app.Deps {
				return app.Deps{
					Getenv: func(k string) string { return env[k] },
					Client: fetch.New(fetch.Config{}, nil, slog.New(slog.DiscardHandler)),
					Log:    slog.New(slog.DiscardHandler), Now: time.Now,
				}
			}
			bare, err := spec.New(deps(nil))
			if len(spec.Switch) == 0 {
				if err != nil {
					t.Fatalf("keyless source: %v", err)
				}
				if bare.Name() != name {
					t.Errorf("registered as %q, names itself %q", name, bare.Name())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "ZONEPRICE_") {
				t.Errorf("without credentials: err = %v, want one naming the variable to set", err)
			}
			src, err := spec.New(deps(creds))
			if err != nil {
				t.Fatalf("with credentials: %v", err)
			}
			if src.Name() != name {
				t.Errorf("registered as %q, names itself %q", name, src.Name())
			}
		})
	}
}

// TestSheetSchemaNamesReservedRegistrars keeps ingest/sheet/SCHEMA.md's
// list of the registrar ids a sheet may not use whole: every registrar with
// an adapter (it named four when there were fourteen).
func TestSheetSchemaNamesReservedRegistrars(t *testing.T) {
	schema, err := os.ReadFile("../../../ingest/sheet/SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range sources.AdapterRegistrars() {
		if !strings.Contains(string(schema), "`"+id+"`") {
			t.Errorf("SCHEMA.md does not name %s among the registrars a sheet may not use", id)
		}
	}
}

// TestEverySourceDescribesItself builds every source that prices
// registrars, as TestRegistry does, and checks that it states its facts
// for the registrar directory (ingest.Describer) and that a status made of
// them is valid; every adapter's registrar is described by some source.
// Only the zone metadata and the rates speak for no registrar.
func TestEverySourceDescribesItself(t *testing.T) {
	env := map[string]string{
		"ZONEPRICE_NAMECHEAP_API_USER": "user", "ZONEPRICE_NAMECHEAP_API_KEY": "key", "ZONEPRICE_NAMECHEAP_CLIENT_IP": "192.0.2.1",
		"ZONEPRICE_NAMECOM_USERNAME": "user", "ZONEPRICE_NAMECOM_TOKEN": "token",
		"ZONEPRICE_SHEET_URL": "https://sheets.example/prices.csv?key=secret",
	}
	deps := app.Deps{
		Getenv: func(k string) string { return env[k] },
		Client: fetch.New(fetch.Config{}, nil, slog.New(slog.DiscardHandler)),
		Log:    slog.New(slog.DiscardHandler), Now: time.Now,
	}
	described := map[string]bool{}
	at := time.Now().UTC()
	for name, spec := range sources.Registry() {
		src, err := spec.New(deps)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d, ok := src.(ingest.Describer)
		if name == iana.Name || name == ecb.Name {
			if ok {
				t.Errorf("%s describes itself, but speaks for no registrar", name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s states nothing for the registrar directory: implement ingest.Describer", name)
			continue
		}
		desc := d.Describe()
		if name == sheet.Name {
			if desc.Document != "https://sheets.example/prices.csv" || desc.Registrars != nil {
				t.Errorf("sheet: document %q, registrars %v; want the URL without its key, and the registrars its rows name", desc.Document, desc.Registrars)
			}
			continue
		}
		if len(desc.Registrars) == 0 {
			t.Errorf("%s declares no registrar", name)
		}
		for _, reg := range desc.Registrars {
			described[reg.ID] = true
			st := &contracts.RegistrarStatus{
				V: contracts.SchemaVersion, Kind: contracts.KindRegistrarStatus, Registrar: reg.ID, Name: reg.Name, Website: reg.Website,
				Source: name, SourceKind: desc.Kind, Document: desc.Document, Currency: cmp.Or(reg.Currency, desc.Currency), Tax: desc.Tax,
				IntervalSeconds: 3600, LastAttempt: at, ObservedAt: at,
			}
			if err := st.Validate(); err != nil {
				t.Errorf("%s: registrar %s: %v", name, reg.ID, err)
			}
			if (reg.Website == "") != contracts.IsSampleRegistrar(reg.ID) || (desc.Document == "") != (desc.Kind == contracts.SourceSample) {
				t.Errorf("%s: registrar %s: website %q, document %q: only the invented sample has neither", name, reg.ID, reg.Website, desc.Document)
			}
		}
	}
	for _, id := range sources.AdapterRegistrars() {
		if !described[id] {
			t.Errorf("no source describes registrar %s", id)
		}
	}
}
