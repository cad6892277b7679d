package sources

import (
	"slices"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
	"github.com/zoneprice/zoneprice/ingest"
)

func TestRunnerConfig(t *testing.T) {
	base := ingest.DefaultRunnerConfig()
	tests := []struct {
		name         string
		env          map[string]string
		own          time.Duration
		in           ingest.RunnerConfig
		wantInterval time.Duration
		wantJitter   time.Duration
		wantErr      bool
	}{
		{"unset keeps the common interval", nil, 0, base, time.Hour, 5 * time.Minute, false},
		{"own interval", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "24h"}, 0, base, 24 * time.Hour, 5 * time.Minute, false},
		{"short interval, short jitter", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "10s"}, 0, base, 10 * time.Second, time.Second, false},
		{"once stays once", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "24h"}, 0, ingest.RunnerConfig{Timeout: time.Minute}, 0, 0, false},
		{"bad value", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "daily"}, 0, base, 0, 0, true},
		{"other source's setting", map[string]string{"ZONEPRICE_INGEST_INTERVAL_PORKBUN": "2h"}, 0, base, time.Hour, 5 * time.Minute, false},
		{"the source's own default", nil, 24 * time.Hour, base, 24 * time.Hour, 5 * time.Minute, false},
		{"the variable over the source's default", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "6h"}, 24 * time.Hour, base, 6 * time.Hour, 5 * time.Minute, false},
		{"once stays once with a default", nil, 24 * time.Hour, ingest.RunnerConfig{Timeout: time.Minute}, 0, 0, false},
	}
	// A one-round run states the interval the source would run at.
	once := ingest.RunnerConfig{Timeout: time.Minute, StatedInterval: time.Hour}
	stated := []struct {
		name string
		env  map[string]string
		own  time.Duration
		want time.Duration
	}{
		{"the common interval", nil, 0, time.Hour},
		{"the source's own default", nil, 24 * time.Hour, 24 * time.Hour},
		{"the variable", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "6h"}, 24 * time.Hour, 6 * time.Hour},
	}
	for _, tt := range stated {
		got, err := runnerConfig(once, "ecb", tt.own, func(k string) string { return tt.env[k] })
		if err != nil || got.Interval != 0 || got.StatedInterval != tt.want {
			t.Errorf("once, %s: interval %v, stated %v, err %v; want 0, %v", tt.name, got.Interval, got.StatedInterval, err, tt.want)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runnerConfig(tt.in, "ecb", tt.own, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (got.Interval != tt.wantInterval || got.Jitter != tt.wantJitter) {
				t.Errorf("interval %v jitter %v, want %v and %v", got.Interval, got.Jitter, tt.wantInterval, tt.wantJitter)
			}
		})
	}
}

func TestSelectSources(t *testing.T) {
	registry := map[string]app.SourceSpec{
		"porkbun":        {Auto: true},
		"epik":           {Auto: true},
		"namecheap":      {Auto: true, Switch: []string{"KEY"}},
		"namecheap-list": {Auto: true, Unless: []string{"KEY"}},
		"sheet":          {Auto: true, Switch: []string{"SHEET"}},
		"manual":         {},
	}
	tests := []struct {
		name, sources string
		env           map[string]string
		want          []string
		wantErr       bool
	}{
		{name: "auto", sources: "auto", want: []string{"epik", "namecheap-list", "porkbun"}},
		{name: "auto with a key", sources: "auto", env: map[string]string{"KEY": "k"}, want: []string{"epik", "namecheap", "porkbun"}},
		{name: "auto with a key file", sources: "auto", env: map[string]string{"KEY_FILE": "/k"}, want: []string{"epik", "namecheap", "porkbun"}},
		{name: "a source switched off", sources: "auto,-epik", want: []string{"namecheap-list", "porkbun"}},
		{name: "named", sources: "porkbun,manual", want: []string{"porkbun", "manual"}},
		{name: "named and switched off", sources: "porkbun,epik,-epik", want: []string{"porkbun"}},
		{name: "unknown to switch off", sources: "auto,-nope", wantErr: true},
		{name: "auto and a name", sources: "auto,manual", wantErr: true},
		{name: "nothing left", sources: "-epik", wantErr: true},
		{name: "two sources for one registrar", sources: "namecheap,namecheap-list", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := selectNames(tt.sources, registry, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
		})
	}
}
