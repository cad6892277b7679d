package app

import (
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
)

func TestSourceRunnerConfig(t *testing.T) {
	base := ingest.DefaultRunnerConfig()
	tests := []struct {
		name         string
		env          map[string]string
		in           ingest.RunnerConfig
		wantInterval time.Duration
		wantJitter   time.Duration
		wantErr      bool
	}{
		{"unset keeps the common interval", nil, base, time.Hour, 5 * time.Minute, false},
		{"own interval", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "24h"}, base, 24 * time.Hour, 5 * time.Minute, false},
		{"short interval, short jitter", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "10s"}, base, 10 * time.Second, time.Second, false},
		{"once stays once", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "24h"}, ingest.RunnerConfig{Timeout: time.Minute}, 0, 0, false},
		{"bad value", map[string]string{"ZONEPRICE_INGEST_INTERVAL_ECB": "daily"}, base, 0, 0, true},
		{"other source's setting", map[string]string{"ZONEPRICE_INGEST_INTERVAL_PORKBUN": "2h"}, base, time.Hour, 5 * time.Minute, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sourceRunnerConfig(tt.in, "ecb", func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (got.Interval != tt.wantInterval || got.Jitter != tt.wantJitter) {
				t.Errorf("interval %v jitter %v, want %v and %v", got.Interval, got.Jitter, tt.wantInterval, tt.wantJitter)
			}
		})
	}
}
