package access_test

import (
	"errors"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/access"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    access.Rate
		wantErr bool
	}{
		{"per minute", "60/m", access.Rate{Limit: 60, Window: time.Minute, Burst: 60}, false},
		{"per second", "10/s", access.Rate{Limit: 10, Window: time.Second, Burst: 10}, false},
		{"per hour", "1000/h", access.Rate{Limit: 1000, Window: time.Hour, Burst: 1000}, false},
		{"burst", "600/m;burst=100", access.Rate{Limit: 600, Window: time.Minute, Burst: 100}, false},
		{"spaces around", " 60/m ", access.Rate{Limit: 60, Window: time.Minute, Burst: 60}, false},
		{"off", "off", access.Rate{}, false},
		{"off in capitals", "OFF", access.Rate{}, false},
		{"off, any case", " Off ", access.Rate{}, false},
		{"space after the semicolon", "60/m; burst=10", access.Rate{Limit: 60, Window: time.Minute, Burst: 10}, false},
		{"spaces around every part", " 60 / m ; burst = 10 ", access.Rate{Limit: 60, Window: time.Minute, Burst: 10}, false},
		{"zero", "0", access.Rate{}, false},
		{"bench: huge rate, small burst", "1000000000/s;burst=1000", access.Rate{Limit: 1e9, Window: time.Second, Burst: 1000}, false},
		{"no unit", "60", access.Rate{}, true},
		{"unknown unit", "60/d", access.Rate{}, true},
		{"zero count", "0/m", access.Rate{}, true},
		{"negative", "-1/m", access.Rate{}, true},
		{"burst over limit", "60/m;burst=61", access.Rate{}, true},
		{"zero burst", "60/m;burst=0", access.Rate{}, true},
		{"unknown parameter", "60/m;w=60", access.Rate{}, true},
		{"beyond a request a nanosecond", "2000000000/s", access.Rate{}, true},
		{"empty", "", access.Rate{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := access.ParseRate(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRate(%q): err = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseRate(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if err != nil {
				return
			}
			again, err := access.ParseRate(got.String())
			if err != nil || again != got {
				t.Errorf("round trip of %q through %q: got %+v, %v", tt.in, got.String(), again, err)
			}
		})
	}
}

func TestParseTiers(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    access.Tiers
		wantErr bool
	}{
		{"two", "standard=600/m,pro=6000/m;burst=1000", access.Tiers{
			"standard": {Limit: 600, Window: time.Minute, Burst: 600},
			"pro":      {Limit: 6000, Window: time.Minute, Burst: 1000},
		}, false},
		{"empty", "", access.Tiers{}, false},
		{"unlimited tier", "internal=off", access.Tiers{"internal": {}}, false},
		{"free is the anonymous rate", "free=100/m", nil, true},
		{"unknown labels keys of undefined tiers", "unknown=100/m", nil, true},
		{"spaces around the name", " gold = 100/m ; burst=5 ", access.Tiers{"gold": {Limit: 100, Window: time.Minute, Burst: 5}}, false},
		{"twice", "pro=1/s,pro=2/s", nil, true},
		{"no rate", "pro", nil, true},
		{"bad name", "Pro=1/s", nil, true},
		{"bad rate", "pro=fast", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := access.ParseTiers(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseTiers(%q): err = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTiers(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if err == nil {
				if again, err := access.ParseTiers(got.String()); err != nil || !reflect.DeepEqual(again, got) {
					t.Errorf("round trip through %q: got %v, %v", got.String(), again, err)
				}
			}
		})
	}
}

func TestParseEndpoints(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    access.Endpoints
		wantErr bool
	}{
		{"two", "standard=5,pro=50", access.Endpoints{"standard": 5, "pro": 50}, false},
		{"empty: no webhooks", "", access.Endpoints{}, false},
		{"a tier without", " standard = 0 ", access.Endpoints{"standard": 0}, false},
		{"free never", "free=1", nil, true},
		{"negative", "pro=-1", nil, true},
		{"too many", "pro=10001", nil, true},
		{"twice", "pro=1,pro=2", nil, true},
		{"no count", "pro", nil, true},
		{"not a count", "pro=many", nil, true},
		{"bad name", "Pro=1", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := access.ParseEndpoints(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseEndpoints(%q): err = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseEndpoints(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if err == nil {
				if again, err := access.ParseEndpoints(got.String()); err != nil || !reflect.DeepEqual(again, got) {
					t.Errorf("round trip through %q: got %v, %v", got.String(), again, err)
				}
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    access.Prefixes
		wantErr bool
	}{
		{"none", "", nil, false},
		{"cidrs", "10.0.0.0/8, 2001:db8::/32", access.Prefixes{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}, false},
		{"bare address", "192.0.2.7", access.Prefixes{netip.MustParsePrefix("192.0.2.7/32")}, false},
		{"host bits masked", "10.1.2.3/8", access.Prefixes{netip.MustParsePrefix("10.0.0.0/8")}, false},
		{"garbage", "proxy.example", nil, true},
		{"bad length", "10.0.0.0/33", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := access.ParsePrefixes(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParsePrefixes(%q): err = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePrefixes(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*access.Config)
		ok     bool
	}{
		{"default", func(*access.Config) {}, true},
		{"everything off", func(c *access.Config) { c.Anonymous = access.Rate{}; c.Tiers = nil }, true},
		{"free as a tier", func(c *access.Config) { c.Tiers["free"] = c.Anonymous }, false},
		{"unknown as a tier", func(c *access.Config) { c.Tiers["unknown"] = c.Anonymous }, false},
		{"burst over limit", func(c *access.Config) { c.Anonymous.Burst = 61 }, false},
		{"too few clients", func(c *access.Config) { c.Clients = 1 }, false},
		{"the most clients", func(c *access.Config) { c.Clients = access.MaxClients }, true},
		{"too many clients", func(c *access.Config) { c.Clients = access.MaxClients + 1 }, false},
		{"trusted proxies", func(c *access.Config) { c.TrustedProxies = prefixes(t, "10.0.0.0/8,2001:db8::/32") }, true},
		{"every IPv4 address trusted", func(c *access.Config) { c.TrustedProxies = prefixes(t, "10.0.0.0/8,0.0.0.0/0") }, false},
		{"every IPv6 address trusted", func(c *access.Config) { c.TrustedProxies = prefixes(t, "::/0") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := access.DefaultConfig()
			tt.change(&c)
			if err := c.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate: got %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestConfigValidateNamesField checks that a refused setting names the
// field, which the command that registered its flag turns into the flag's
// name.
func TestConfigValidateNamesField(t *testing.T) {
	tests := []struct {
		name   string
		change func(*access.Config)
		want   string
	}{
		{"anonymous", func(c *access.Config) { c.Anonymous = access.Rate{Limit: 1, Window: 0, Burst: 1} }, "Anonymous"},
		{"proxies", func(c *access.Config) { c.TrustedProxies = prefixes(t, "0.0.0.0/0") }, "TrustedProxies"},
		{"clients", func(c *access.Config) { c.Clients = 1 << 30 }, "Clients"},
		{"tier", func(c *access.Config) { c.Tiers["unknown"] = c.Anonymous }, "Tiers"},
		{"webhooks for the free tier", func(c *access.Config) { c.WebhookEndpoints["free"] = 1 }, "WebhookEndpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := access.DefaultConfig()
			tt.change(&c)
			var ve *contracts.ValidationError
			if err := c.Validate(); !errors.As(err, &ve) || ve.Field != tt.want {
				t.Errorf("Validate: got %v, want a problem of the field %s", err, tt.want)
			}
		})
	}
}

func prefixes(t *testing.T, s string) access.Prefixes {
	t.Helper()
	ps, err := access.ParsePrefixes(s)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}
