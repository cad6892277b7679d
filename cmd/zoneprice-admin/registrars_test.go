package main

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/fetch"
	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/kit"
	"github.com/zoneprice/zoneprice/ingest/namecheaplist"
)

// TestRegistrars lists the statuses a real runner published for
// Namecheap's list in its real shape, Handshake names among its rows, and
// one that does not decode; --skipped lists the names the guard skipped.
func TestRegistrars(t *testing.T) {
	srv, js := bustest.Provisioned(t)
	out, _, err := admin(t, srv, "registrars")
	if err != nil || !strings.Contains(out, "no registrar status yet") {
		t.Fatalf("registrars of an empty stream: %v\n%s", err, out)
	}

	live, err := kit.New(namecheaplist.Declaration(), kit.Config{}, fetch.New(fetch.Config{}, nil, slog.New(slog.DiscardHandler)), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	src := ingest.NewFileSource(namecheaplist.Name, "../../ingest/namecheaplist/testdata/tlds.json", namecheaplist.Declaration().Read, time.Now)
	src.About = live
	streams := bus.NewStreams(js)
	r, err := ingest.NewRunner(src, streams, bus.NewPublisher(js), ingest.RunnerConfig{Timeout: 10 * time.Second, MinKeepRatio: 0.5, StatedInterval: 24 * time.Hour},
		slog.New(slog.DiscardHandler), prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	r.Guard(iana.NewRoot(streams))
	if err := r.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	garbage := contracts.Message{Subject: contracts.StatusSubject("broken"), Body: []byte(`{"v":1,"kind":"registrar_status"`), Stream: contracts.StateStream}
	if _, _, err := bus.NewPublisher(js).Send(context.Background(), []contracts.Message{garbage}, 1); err != nil {
		t.Fatal(err)
	}

	out, _, err = admin(t, srv, "registrars")
	if err != nil {
		t.Fatalf("registrars: %v\n%s", err, out)
	}
	row := regexp.MustCompile(`(?m)^namecheap +Namecheap +namecheap-list +site +USD +unknown +24h0m0s +\S+Z +\S+Z +- +19 +not-in-root=4$`)
	if !strings.HasPrefix(out, "REGISTRAR ") || !row.MatchString(out) || !strings.Contains(out, "1 status records could not be read") {
		t.Errorf("registrars printed:\n%s\nwant the header, namecheap's row and one unreadable record", out)
	}

	out, _, err = admin(t, srv, "registrars", "--skipped")
	if err != nil {
		t.Fatalf("registrars --skipped: %v\n%s", err, out)
	}
	for _, name := range []string{".8888", ".0db", ".4k", ".abo"} {
		if !regexp.MustCompile(`(?m)^namecheap +namecheap-list +` + regexp.QuoteMeta(name) + `$`).MatchString(out) {
			t.Errorf("registrars --skipped does not list %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, ".com") {
		t.Errorf("registrars --skipped lists a zone of the root:\n%s", out)
	}

	for _, args := range [][]string{{"registrars", "namecheap"}, {"keys", "list", "--skipped"}} {
		if _, _, err := admin(t, srv, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
