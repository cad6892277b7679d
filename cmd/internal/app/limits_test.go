package app_test

import (
	"flag"
	"io"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
	"github.com/zoneprice/zoneprice/query/replay"
)

func TestLimitFlags(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		check   func(*testing.T, access.Config)
		wantErr string
	}{
		{"defaults", nil, nil, func(t *testing.T, c access.Config) {
			if c.Anonymous != (access.Rate{Limit: 60, Window: time.Minute, Burst: 60}) || c.Tiers["pro"].Limit != 6000 || c.Tiers["standard"].Limit != 600 || len(c.TrustedProxies) != 0 {
				t.Errorf("defaults: %+v", c)
			}
		}, ""},
		{"environment", map[string]string{
			"ZONEPRICE_RATE_LIMIT": "30/m;burst=10", "ZONEPRICE_TIERS": "gold=100/s",
			"ZONEPRICE_TRUSTED_PROXIES": "10.0.0.0/8", "ZONEPRICE_RATE_LIMIT_CLIENTS": "1024",
		}, nil, func(t *testing.T, c access.Config) {
			if c.Anonymous.Limit != 30 || c.Anonymous.Burst != 10 || len(c.Tiers) != 1 || c.Tiers["gold"].Window != time.Second ||
				c.TrustedProxies[0] != netip.MustParsePrefix("10.0.0.0/8") || c.Clients != 1024 {
				t.Errorf("from the environment: %+v", c)
			}
		}, ""},
		{"flags over the environment", map[string]string{"ZONEPRICE_RATE_LIMIT": "30/m"},
			[]string{"--rate-limit", "off", "--tiers", "", "--trusted-proxies", "192.0.2.1,2001:db8::/32"}, func(t *testing.T, c access.Config) {
				if !c.Anonymous.Off() || len(c.Tiers) != 0 || len(c.TrustedProxies) != 2 {
					t.Errorf("from flags: %+v", c)
				}
			}, ""},
		{"bad environment", map[string]string{"ZONEPRICE_RATE_LIMIT": "lots"}, nil, nil, "ZONEPRICE_RATE_LIMIT"},
		{"bad tiers", map[string]string{"ZONEPRICE_TIERS": "free=1/s"}, nil, nil, "ZONEPRICE_TIERS"},
		{"bad proxies", map[string]string{"ZONEPRICE_TRUSTED_PROXIES": "lb.example"}, nil, nil, "ZONEPRICE_TRUSTED_PROXIES"},
		{"bad flag", nil, []string{"--rate-limit", "60/d"}, nil, "rate-limit"},
		{"off in capitals, a spaced burst", map[string]string{"ZONEPRICE_RATE_LIMIT": "OFF", "ZONEPRICE_TIERS": "pro=600/m; burst=100"}, nil,
			func(t *testing.T, c access.Config) {
				if !c.Anonymous.Off() || c.Tiers["pro"].Burst != 100 {
					t.Errorf("from the environment: %+v", c)
				}
			}, ""},
		{"too many clients", nil, []string{"--rate-limit-clients", "8388608"}, nil, "--rate-limit-clients"},
		{"every address a trusted proxy", map[string]string{"ZONEPRICE_TRUSTED_PROXIES": "0.0.0.0/0"}, nil, nil, "ZONEPRICE_TRUSTED_PROXIES"},
		{"the reserved tier unknown", nil, []string{"--tiers", "unknown=1/s"}, nil, "unknown"},
		{"webhook endpoints by default", nil, nil, func(t *testing.T, c access.Config) {
			if c.WebhookEndpoints.Of("standard") != 5 || c.WebhookEndpoints.Of("pro") != 50 || c.WebhookEndpoints.Of("free") != 0 {
				t.Errorf("webhook endpoints: %v", c.WebhookEndpoints)
			}
		}, ""},
		{"webhook endpoints set", map[string]string{"ZONEPRICE_WEBHOOK_ENDPOINTS": "pro=7"}, nil, func(t *testing.T, c access.Config) {
			if c.WebhookEndpoints.Of("pro") != 7 || c.WebhookEndpoints.Of("standard") != 0 {
				t.Errorf("webhook endpoints: %v", c.WebhookEndpoints)
			}
		}, ""},
		{"webhooks for the free tier", nil, []string{"--webhook-endpoints", "free=1"}, nil, "webhook-endpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			q, err := app.RegisterQueryFlags(fs, func(k string) string { return tt.env[k] })
			if err == nil {
				err = fs.Parse(tt.args)
			}
			if err == nil {
				err = q.Validate()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, q.Server.Limits)
		})
	}
}

// TestQueryFlagNames checks the table that turns a Config field named by
// a Validate error into its flag: every entry names a registered flag and
// a real field of the server's or the consumer's Config, so a renamed flag
// or field cannot leave a stale message behind.
func TestQueryFlagNames(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	q, err := app.RegisterQueryFlags(fs, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Names) == 0 {
		t.Fatal("no flag names recorded")
	}
	for field, name := range q.Names {
		flagName, _, _ := strings.Cut(strings.TrimPrefix(name, "--"), " ")
		if fs.Lookup(flagName) == nil {
			t.Errorf("%s is set by %q, which is not a registered flag", field, name)
		}
		if !hasField(reflect.TypeFor[api.Config](), field) && !hasField(reflect.TypeFor[replay.Config](), field) {
			t.Errorf("%q names no field of api.Config or consumer.Config", field)
		}
	}
	q.Server.Limits.TrustedProxies = access.Prefixes{netip.MustParsePrefix("0.0.0.0/0")}
	if err := q.Validate(); err == nil || !strings.HasPrefix(err.Error(), "--trusted-proxies (ZONEPRICE_TRUSTED_PROXIES): ") {
		t.Errorf("Validate = %v, want the problem under the flag's name", err)
	}
}

// hasField reports whether a dotted path of field names exists in t.
func hasField(t reflect.Type, path string) bool {
	for name := range strings.SplitSeq(path, ".") {
		f, ok := t.FieldByName(name)
		if !ok {
			return false
		}
		t = f.Type
	}
	return true
}
