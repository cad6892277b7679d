package mail

import (
	"errors"
	"strings"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("no mail at all: %v, want valid (subscriptions are then unavailable)", err)
	}
	for _, tc := range []struct {
		name, field string
		edit        func(*Config)
	}{
		{"no sender", "From", func(c *Config) { c.Outbox = "/tmp/x" }},
		{"clear text to a remote relay", "TLS", func(c *Config) {
			c.From, c.Host, c.TLS = "a@zoneprice.example", "smtp.example", TLSNone
		}},
		{"password without user", "Username", func(c *Config) {
			c.From, c.Host, c.Password = "a@zoneprice.example", "smtp.example", "p"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			var ve *contracts.ValidationError
			if err := c.Validate(); !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("got %v; want an error of %s", err, tc.field)
			}
		})
	}
	local := DefaultConfig()
	local.From, local.Host, local.TLS = "a@zoneprice.example", "127.0.0.1", TLSNone
	if err := local.Validate(); err != nil {
		t.Errorf("clear text to a relay on this machine: %v", err)
	}
}

func TestRedact(t *testing.T) {
	err := redact(errors.New("550 5.1.1 <Ann@Example.org>: no such user; Ann@example.org"), "ann@example.org")
	if strings.Contains(strings.ToLower(err.Error()), "ann") || !strings.Contains(err.Error(), "550 5.1.1 <<recipient>>") {
		t.Errorf("redacted: %v", err)
	}
}
