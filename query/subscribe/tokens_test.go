package subscribe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestTokens(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	tok := tokens{secret: []byte(strings.Repeat("k", 32)), now: func() time.Time { return now }}
	key := contracts.SubscriberKey("ann@example.org")
	confirm := tok.make(purposeConfirm, key, time.Hour)
	if len(confirm) != 76 || strings.Contains(confirm, "ann") {
		t.Errorf("token %q: want 76 characters that name no one", confirm)
	}
	if got, err := tok.check(purposeConfirm, confirm); err != nil || got != key {
		t.Errorf("check: %q, %v; want the key", got, err)
	}
	other := tokens{secret: []byte(strings.Repeat("x", 32)), now: tok.now}
	b := []byte(confirm)
	b[40] ^= 1
	for name, c := range map[string]struct {
		t     tokens
		p     purpose
		token string
	}{
		"another purpose": {tok, purposeManage, confirm},
		"another secret":  {other, purposeConfirm, confirm},
		"altered":         {tok, purposeConfirm, string(b)},
		"cut short":       {tok, purposeConfirm, confirm[:70]},
		"empty":           {tok, purposeConfirm, ""},
		"not base64":      {tok, purposeConfirm, strings.Repeat("!", 76)},
	} {
		if _, err := c.t.check(c.p, c.token); !errors.Is(err, errBadToken) {
			t.Errorf("%s: %v, want errBadToken", name, err)
		}
	}
	later := tokens{secret: tok.secret, now: func() time.Time { return now.Add(time.Hour + time.Second) }}
	if _, err := later.check(purposeConfirm, confirm); !errors.Is(err, errExpiredToken) {
		t.Errorf("after its time: %v, want errExpiredToken", err)
	}
	// The same cookie gives the same token, made again (not a value
	// compared with itself); another cookie another.
	forA, againA, forB := tok.csrf("a"), tok.csrf("a"), tok.csrf("b")
	if forA == forB || forA != againA {
		t.Error("CSRF tokens do not follow their cookie")
	}
}

func TestConfigValidate(t *testing.T) {
	valid := func() Config {
		c := DefaultConfig()
		c.PublicURL, c.Secret = "https://zoneprice.example", []byte(strings.Repeat("k", 32))
		return c
	}
	if err := valid().Validate(); err != nil {
		t.Fatalf("valid: %v", err)
	}
	for _, tc := range []struct {
		name, field string
		edit        func(*Config)
	}{
		{"no public URL", "PublicURL", func(c *Config) { c.PublicURL = "" }},
		{"http elsewhere", "PublicURL", func(c *Config) { c.PublicURL = "http://zoneprice.example" }},
		{"a path", "PublicURL", func(c *Config) { c.PublicURL = "https://zoneprice.example/x" }},
		{"short secret", "Secret", func(c *Config) { c.Secret = []byte("short") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.edit(&c)
			var ve *contracts.ValidationError
			if err := c.Validate(); !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("got %v; want an error of %s", err, tc.field)
			}
		})
	}
	c := valid()
	c.PublicURL = "http://localhost:8080"
	if err := c.Validate(); err != nil {
		t.Errorf("http on localhost: %v", err)
	}
}

// FuzzTokenCheck: a link comes from the outside world; checking it never
// panics, and only a token made with the secret passes.
func FuzzTokenCheck(f *testing.F) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	tok := tokens{secret: []byte(strings.Repeat("k", 32)), now: func() time.Time { return now }}
	f.Add(tok.make(purposeManage, contracts.SubscriberKey("ann@example.org"), time.Hour))
	f.Add("")
	f.Add(strings.Repeat("A", 76))
	f.Fuzz(func(t *testing.T, token string) {
		key, err := tok.check(purposeManage, token)
		if err == nil && (!contracts.ValidSubscriberKey(key) || tok.make(purposeManage, key, time.Hour) == "") {
			t.Errorf("token %q passed with key %q", token, key)
		}
	})
}

func TestMetricsLint(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.submissions.WithLabelValues("accepted").Inc()
	m.changes.WithLabelValues("created").Inc()
	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", problems, err)
	}
}
