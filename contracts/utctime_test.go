package contracts

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestUTCTime checks the fast reading of a UTC time against time.Time's
// own decoder: the same instant and location for every form it accepts,
// and nothing accepted that the decoder refuses.
func TestUTCTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(text string) {
		t.Helper()
		q := []byte(`"` + text + `"`)
		got, ok := utcTime(q)
		var want time.Time
		err := want.UnmarshalJSON(q)
		switch {
		case ok && err != nil:
			t.Fatalf("%s: read as %v, time.Time's decoder refuses it: %v", text, got, err)
		case ok && (got != want || got.Location() != want.Location()):
			t.Fatalf("%s: read as %#v, time.Time's decoder reads %#v", text, got, want)
		}
	}
	for range 20000 {
		sec := rng.Int64N(253402300800) // years 1970 to 9999
		if rng.IntN(4) == 0 {
			sec = -rng.Int64N(62135596800) // back to year 1
		}
		tm := time.Unix(sec, rng.Int64N(1e9)).UTC()
		if rng.IntN(2) == 0 {
			tm = tm.Truncate(time.Second)
		}
		text := tm.Format(time.RFC3339Nano)
		if _, ok := utcTime([]byte(`"` + text + `"`)); !ok {
			t.Fatalf("%s: not read, though json.Marshal writes it so", text)
		}
		check(text)
	}
	for _, text := range []string{
		"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T23:59:59Z",
		"2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
		"2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01T00:00:00.Z",
		"2026-01-01T00:00:00.1234567890Z", "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00+00:00",
		"2026-01-01t00:00:00Z", "2026-01-01T00:00:00z", "+026-01-01T00:00:00Z", "2026-1-01T00:00:00Z",
		"2026-01-01T00:00:00.000Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
	} {
		check(text)
	}
}
