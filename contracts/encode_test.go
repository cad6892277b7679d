package contracts_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
)

// TestEncode pins what a publisher puts on the streams: the body, the
// subject, the stream and the message id by which the stream drops a
// retry (the values ingest.Encode gave before Encode moved here).
func TestEncode(t *testing.T) {
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	ps := eventtest.RegisterOnly("porkbun", ".com", at, "USD", 1099)
	change := &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: contracts.ChangeAdded,
		Registrar: "porkbun", Zone: ".com", After: ps.Offer(), ObservedAt: at, Source: eventtest.Source,
	}
	tests := []struct {
		name string
		ev   contracts.Event
		want contracts.Message
	}{
		{"a price set on the state stream", ps, contracts.Message{
			Subject: "prices.v1.porkbun.com",
			Body:    []byte(`{"v":1,"kind":"price_set","registrar":"porkbun","zone":".com","register":{"regular":{"amount":1099,"currency":"USD"}},"observed_at":"2026-11-20T00:00:00Z","source":"test"}`),
			ID:      "51ff27472433d1f188875d02bdda563f",
			Stream:  contracts.StateStream,
		}},
		{"a change on the history stream", change, contracts.Message{
			Subject: "changes.v1.porkbun.com",
			Body:    []byte(`{"v":1,"kind":"price_change","change":"added","registrar":"porkbun","zone":".com","before":null,"after":{"register":{"regular":{"amount":1099,"currency":"USD"}}},"observed_at":"2026-11-20T00:00:00Z","source":"test"}`),
			ID:      "19a8cd4602291c9f39904b805f9600c7",
			Stream:  contracts.HistoryStream,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := contracts.Encode(tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if got.Subject != tt.want.Subject || string(got.Body) != string(tt.want.Body) || got.ID != tt.want.ID || got.Stream != tt.want.Stream {
				t.Errorf("Encode = %+v\nwant %+v", got, tt.want)
			}
			back, err := contracts.Decode(got.Body)
			if err != nil || !contracts.OnSubject(back, got.Subject) {
				t.Errorf("Decode(Encode) = %v, %v; want the event back on its subject", back, err)
			}
		})
	}
}

// TestEncodeRefuses refuses an invalid event and one too large for the
// stream, before anything is published.
func TestEncodeRefuses(t *testing.T) {
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	invalid := eventtest.RegisterOnly("porkbun", "com", at, "USD", 1099)
	if _, err := contracts.Encode(invalid); !errors.As(err, new(*contracts.ValidationError)) {
		t.Errorf("Encode of a zone without its dot: %v, want a validation error", err)
	}
	huge := eventtest.RegisterOnly("porkbun", ".com", at, "USD", 1099)
	huge.Source = strings.Repeat("x", contracts.MaxEventSize)
	if _, err := contracts.EncodeValid(huge); !errors.Is(err, contracts.ErrTooLarge) {
		t.Errorf("EncodeValid of a %d-byte source: %v, want ErrTooLarge", len(huge.Source), err)
	}
}
