package iana_test

import (
	"context"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/ingest/iana"
)

// TestRoot checks the guard's root on a real stream: with no zone
// metadata there the builtin catalog decides; a TLD whose metadata
// arrives later is a zone from the next check on, and so is a
// second-level zone the metadata names; garbage on a zone subject
// delegates nothing.
func TestRoot(t *testing.T) {
	_, js := bustest.Provisioned(t)
	root := iana.NewRoot(bus.NewStreams(js))
	check := func(t *testing.T) func(string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		test, err := root.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return test
	}
	tests := []struct {
		zone        string
		before, got string // before the new metadata, and after
	}{
		{".com", "", ""},
		{".xn--p1ai", "", ""},
		{".co.uk", "", ""},
		{".me.uk", "", ""},  // the Public Suffix List's ICANN section
		{".uk.com", "", ""}, // its private section: CentralNic's
		{".co.za", "", ""},
		{".za", "", ""}, // delegated, though the list has only rules under it
		{".0db", contracts.SkipNotInRoot, contracts.SkipNotInRoot}, // Handshake names
		{".4k", contracts.SkipNotInRoot, contracts.SkipNotInRoot},
		{".abo", contracts.SkipNotInRoot, contracts.SkipNotInRoot},
		{".co.0db", contracts.SkipNotInRoot, contracts.SkipNotInRoot},
		{".comm", contracts.SkipNotInRoot, contracts.SkipNotInRoot}, // a typo
		{".example.com", contracts.SkipUnknownSecondLevel, contracts.SkipUnknownSecondLevel},
		{".a.b.uk", contracts.SkipUnknownSecondLevel, contracts.SkipUnknownSecondLevel},
		{".zonepricetest", contracts.SkipNotInRoot, ""}, // delegated later
		{".shop.zonepricetest", contracts.SkipNotInRoot, ""},
		{".other.zonepricetest", contracts.SkipNotInRoot, contracts.SkipUnknownSecondLevel},
		{".garbage", contracts.SkipNotInRoot, contracts.SkipNotInRoot},
	}
	before := check(t)
	for _, tt := range tests {
		if got := before(tt.zone); got != tt.before {
			t.Errorf("before: %s: got %q, want %q", tt.zone, got, tt.before)
		}
	}

	observed := time.Now().UTC()
	var msgs []contracts.Message
	for _, m := range []*contracts.ZoneMeta{
		eventtest.ZoneMeta(".zonepricetest", contracts.TypeGeneric, observed),
		eventtest.ZoneMeta(".shop.zonepricetest", contracts.TypeGeneric, observed),
	} {
		msg, err := contracts.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
	msgs = append(msgs, contracts.Message{Subject: contracts.ZoneSubject(".garbage"), Body: []byte("{not json"), Stream: contracts.StateStream})
	if _, _, err := bus.NewPublisher(js).Send(context.Background(), msgs, 8); err != nil {
		t.Fatal(err)
	}
	after := check(t)
	for _, tt := range tests {
		if got := after(tt.zone); got != tt.got {
			t.Errorf("after: %s: got %q, want %q", tt.zone, got, tt.got)
		}
	}
	if t.Failed() {
		t.Log("before is the builtin catalog alone; after, the stream also names .zonepricetest and .shop.zonepricetest")
	}
}
