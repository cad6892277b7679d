package iana_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest/iana"
	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// TestLiveDataOnStreamBeatsBuiltin is a restarted ingester with IANA down:
// when the stream already holds live IANA metadata the round fails and
// keeps it; only a stream without it gets the builtin catalog.
func TestLiveDataOnStreamBeatsBuiltin(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(down.Close)
	for _, held := range []bool{true, false} {
		src, err := iana.New(iana.Config{
			TLDsURL: down.URL, RootDBURL: down.URL,
			LiveHeld: func(context.Context) (bool, error) { return held, nil },
		}, ingesttest.Client(nil), slog.New(slog.DiscardHandler), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		list, err := src.Fetch(context.Background())
		switch {
		case held && (err == nil || !strings.Contains(err.Error(), "keeps its IANA zone data")):
			t.Errorf("live data held: err = %v, want the round refused", err)
		case !held && (err != nil || len(list.Zones) < 1900 || list.Zones[0].Source != iana.BuiltinSource):
			t.Errorf("no live data held: err = %v, want the builtin catalog", err)
		}
	}
}

// TestLiveHeldAskedAfterDeadline is IANA black-holed: the fetch uses up
// the round's deadline, and the stream is still asked on a live context,
// so the builtin catalog is served rather than nothing.
func TestLiveHeldAskedAfterDeadline(t *testing.T) {
	hung := httptest.NewServer(ingesttest.Hang(t))
	t.Cleanup(hung.Close)
	var askedDead bool
	src, err := iana.New(iana.Config{
		TLDsURL: hung.URL, RootDBURL: hung.URL,
		LiveHeld: func(ctx context.Context) (bool, error) { askedDead = ctx.Err() != nil; return false, ctx.Err() },
	}, ingesttest.Client(nil), slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	list, err := src.Fetch(ctx)
	if askedDead || err != nil || len(list.Zones) < 1900 {
		t.Fatalf("asked on a dead context %v, err %v: want the builtin catalog", askedDead, err)
	}
}
