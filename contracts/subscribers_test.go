package contracts_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestNormalizeEmail(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "ann@example.org", "ann@example.org"},
		{"domain lower-cased, local part kept", " Ann.B+zp@Example.ORG ", "Ann.B+zp@example.org"},
		{"subdomain", "x@mail.example.co.uk", "x@mail.example.co.uk"},
		{"local part of 64", strings.Repeat("a", 64) + "@example.org", strings.Repeat("a", 64) + "@example.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := contracts.NormalizeEmail(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, in string }{
		{"empty", "  "},
		{"no at", "example.org"},
		{"display name", "Ann <ann@example.org>"},
		{"two addresses", "a@example.org, b@example.org"},
		{"no dot in domain", "ann@localhost"},
		{"address literal", "ann@[192.0.2.1]"},
		{"not ASCII", "änn@example.org"},
		{"control character", "ann\n@example.org"},
		{"header injection", "ann@example.org\r\nBcc: x@example.org"},
		{"too long", strings.Repeat("a", 250) + "@example.org"},
		{"comment", "ann@example.org (me)"},
		{"local part of 65", strings.Repeat("a", 65) + "@example.org"},
		{"domain label of 64", "ann@" + strings.Repeat("b", 64) + ".org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := contracts.NormalizeEmail(tc.in)
			var ve *contracts.ValidationError
			if !errors.As(err, &ve) || ve.Field != "email" {
				t.Errorf("NormalizeEmail(%q): got %v; want an error of the field email", tc.in, err)
			}
		})
	}
}

func TestSubscriberKey(t *testing.T) {
	k := contracts.SubscriberKey("Ann@example.org")
	if k != contracts.SubscriberKey("ann@EXAMPLE.org") {
		t.Error("the key depends on letter case")
	}
	if !contracts.ValidSubscriberKey(k) || strings.Contains(k, "ann") || strings.Contains(k, "example") {
		t.Errorf("key %q: want a hex hash that names no one", k)
	}
}

func TestSubscriberValidate(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	valid := func() contracts.Subscriber {
		return contracts.Subscriber{Email: "ann@example.org", Interests: []contracts.Interest{contracts.InterestPriceDrops, contracts.InterestArticles},
			Zones: []string{".com", ".xn--p1ai"}, MinDropPercent: 10, CreatedAt: now}
	}
	s := valid()
	if err := s.Validate(); err != nil {
		t.Fatalf("a valid record: %v", err)
	}
	for _, tc := range []struct {
		name, field string
		edit        func(*contracts.Subscriber)
	}{
		{"bad address", "email", func(s *contracts.Subscriber) { s.Email = "ann" }},
		{"no interest", "interests", func(s *contracts.Subscriber) { s.Interests = nil }},
		{"unknown interest", "interests", func(s *contracts.Subscriber) { s.Interests = []contracts.Interest{"spam"} }},
		{"interest twice", "interests", func(s *contracts.Subscriber) {
			s.Interests = []contracts.Interest{contracts.InterestArticles, contracts.InterestArticles}
		}},
		{"drops without zones", "zones", func(s *contracts.Subscriber) { s.Zones = nil }},
		{"renewal increases without zones", "zones", func(s *contracts.Subscriber) {
			s.Interests, s.Zones = []contracts.Interest{contracts.InterestRenewalIncreases}, nil
		}},
		{"too many renewal increases", "increases", func(s *contracts.Subscriber) {
			s.Increases = make([]contracts.PendingChange, contracts.MaxPendingIncreases+1)
		}},
		{"negative more", "pending_more", func(s *contracts.Subscriber) { s.IncreasesMore = -1 }},
		{"zone not canonical", "zones", func(s *contracts.Subscriber) { s.Zones = []string{"COM"} }},
		{"zone twice", "zones", func(s *contracts.Subscriber) { s.Zones = []string{".com", ".com"} }},
		{"threshold above 100", "min_drop_percent", func(s *contracts.Subscriber) { s.MinDropPercent = 101 }},
		{"negative threshold", "min_drop_percent", func(s *contracts.Subscriber) { s.MinDropPercent = -1 }},
		{"no creation time", "created_at", func(s *contracts.Subscriber) { s.CreatedAt = time.Time{} }},
		{"confirmed without time", "confirmed_at", func(s *contracts.Subscriber) { s.Confirmed = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := valid()
			tc.edit(&s)
			var ve *contracts.ValidationError
			if err := s.Validate(); !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("got %v; want an error of the field %s", err, tc.field)
			}
		})
	}
}

// TestSubscriberBefore: a record written before renewal increases existed
// reads as it did (no increases), and stays valid; one that chose them
// reads back with them.
func TestSubscriberBefore(t *testing.T) {
	old := `{"email":"ann@example.org","interests":["price-drops"],"zones":[".com"],"min_drop_percent":5,"confirmed":true,` +
		`"created_at":"2026-11-20T08:00:00Z","confirmed_at":"2026-11-20T08:05:00Z","digested_through":41,` +
		`"pending":[{"seq":42,"zone":".com","registrar":"porkbun","op":0,"before":{"amount":1000,"currency":"USD"},` +
		`"after":{"amount":900,"currency":"USD"},"percent":10,"observed_at":"2026-11-26T08:00:00Z"}],"pending_more":3,"more_through":45}`
	var sub contracts.Subscriber
	if err := json.Unmarshal([]byte(old), &sub); err != nil {
		t.Fatal(err)
	}
	if err := sub.Validate(); err != nil || sub.Wants(contracts.InterestRenewalIncreases) || sub.Increases != nil || len(sub.Pending) != 1 || sub.PendingMore != 3 {
		t.Errorf("an old record: %+v, %v", sub, err)
	}
	b, err := json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "increases") {
		t.Errorf("an old record written back grew fields: %s", b)
	}
	sub.Interests = append(sub.Interests, contracts.InterestRenewalIncreases)
	sub.Increases, sub.IncreasesMore = []contracts.PendingChange{{Seq: 46, Zone: ".com", Registrar: "porkbun", Op: contracts.OpRenew, Percent: 950}}, 2
	b, err = json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	var back contracts.Subscriber
	if err := json.Unmarshal(b, &back); err != nil || back.Validate() != nil || len(back.Increases) != 1 || back.IncreasesMore != 2 || !back.Wants(contracts.InterestRenewalIncreases) {
		t.Errorf("a record with renewal increases read back: %+v, %v", back, err)
	}
}

// FuzzNormalizeEmail: an address comes from the outside world; what is
// accepted is a plain address that normalises to itself and can be sent
// to.
func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{"ann@example.org", " Ann@Example.ORG ", "a@b", "\"a b\"@example.org", "a@example.org\r\nBcc: x@y.z", "ä@example.org"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := contracts.NormalizeEmail(s)
		if err != nil {
			return
		}
		if again, err := contracts.NormalizeEmail(got); err != nil || again != got {
			t.Errorf("%q normalises to %q, which normalises to %q, %v", s, got, again, err)
		}
		if strings.ContainsAny(got, " \r\n<>,;\"") || len(got) > contracts.MaxEmailLen || !contracts.ValidSubscriberKey(contracts.SubscriberKey(got)) {
			t.Errorf("%q accepted as %q", s, got)
		}
	})
}
