package sources_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/cmd/internal/sources"
	"github.com/zoneprice/zoneprice/ingest/fetch"
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
