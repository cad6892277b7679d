package main

import (
	"testing"
	"time"
)

// wrkClean is wrk 4's --latency report of a run without failures, written
// by hand from its format.
const wrkClean = `Running 5s test @ http://127.0.0.1:8080/api/domains
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.23ms  456.00us  12.34ms   78.90%
    Req/Sec    12.34k     1.23k   15.67k    70.00%
  Latency Distribution
     50%    1.10ms
     75%    1.50ms
     90%    2.00ms
     99%    4.56ms
  123456 requests in 5.00s, 1.23GB read
Requests/sec:  24691.20
Transfer/sec:    251.23MB
`

// wrkFailures has both of the lines wrk adds when requests failed, and
// latencies in microseconds and seconds.
const wrkFailures = `Running 5s test @ http://127.0.0.1:8080/api/comparison/.com
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.00us    1.02ms   1.20s    91.00%
    Req/Sec    20.01k     2.00k   24.00k    65.00%
  Latency Distribution
     50%  812.00us
     75%    1.00ms
     90%    1.50ms
     99%    1.20s
  200100 requests in 5.00s, 30.00MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 12
Requests/sec:  40020.00
Transfer/sec:      6.00MB
`

func TestParseWrk(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want wrkResult
	}{
		{
			name: "clean",
			out:  wrkClean,
			want: wrkResult{
				requests: 123456, elapsed: 5 * time.Second, reqPerSec: 24691.20,
				p50: 1100 * time.Microsecond, p75: 1500 * time.Microsecond,
				p90: 2 * time.Millisecond, p99: 4560 * time.Microsecond,
			},
		},
		{
			name: "failures",
			out:  wrkFailures,
			want: wrkResult{
				requests: 200100, elapsed: 5 * time.Second, reqPerSec: 40020,
				p50: 812 * time.Microsecond, p75: time.Millisecond,
				p90: 1500 * time.Microsecond, p99: 1200 * time.Millisecond,
				non2xx: 12, socket: socketErrors{read: 1, timeout: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseWrk(tt.out)
			if err != nil {
				t.Fatalf("parseWrk: %v", err)
			}
			if got != tt.want {
				t.Errorf("parseWrk:\n got %+v\nwant %+v", got, tt.want)
			}
			if gotFailed, wantFailed := got.failed(), tt.want.non2xx+tt.want.socket.total() > 0; gotFailed != wantFailed {
				t.Errorf("failed() = %v, want %v", gotFailed, wantFailed)
			}
		})
	}
}

func TestParseWrkErrors(t *testing.T) {
	tests := []struct {
		name string
		out  string
	}{
		{"connection refused", "unable to connect to 127.0.0.1:8080 Connection refused\n"},
		{"no latency distribution", "Running 1s test @ http://127.0.0.1:8080/\n  10 requests in 1.00s, 1.00KB read\nRequests/sec:     10.00\n"},
		{"malformed socket errors", wrkClean + "  Socket errors: connect x, read 1\n"},
		{"malformed latency", "  Latency Distribution\n     50%    1.10parsecs\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := parseWrk(tt.out); err == nil {
				t.Errorf("parseWrk succeeded with %+v, want an error", got)
			}
		})
	}
}

func TestErrorSummary(t *testing.T) {
	got, err := parseWrk(wrkFailures)
	if err != nil {
		t.Fatalf("parseWrk: %v", err)
	}
	if got, want := got.errorSummary(), "12 non-2xx/3xx, 1 socket read, 2 socket timeout"; got != want {
		t.Errorf("errorSummary() = %q, want %q", got, want)
	}
}
