package query

import "testing"

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"deflate, br", false},
		{"gzip;q=0", false},
		{"gzip ; q=0.000", false},
		{"gzip;q=0.001", true},
		{"gzip;q=1", true},
		{"*", true},
		{"*;q=0", false},
		{"gzip;q=0, *", false},
		{"br, *;q=0.1", true},
		{"identity", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
