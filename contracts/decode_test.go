package contracts

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDecodeFastTakesGolden checks that the documents producers write, the
// golden files, are read by the fast path rather than falling back.
func TestDecodeFastTakesGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w wire
		_, fast := decodeFast(data, &w, nil, new(priceBlock), nil)
		// Non-ASCII strings (the Unicode form of an IDN) are left to
		// encoding/json on purpose.
		if want := !bytes.ContainsFunc(data, func(r rune) bool { return r >= 0x80 }); fast != want {
			t.Errorf("%s: fast path taken = %v, want %v", f, fast, want)
		}
	}
}

func TestDecodeFastFallsBack(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"escape", `{"v":1,"kind":"price_set","registrar":"a\u0062"}`},
		{"unknown key", `{"v":1,"kind":"price_set","extra":1}`},
		{"other case", `{"V":1,"kind":"price_set"}`},
		{"repeated key", `{"v":1,"v":2}`},
		{"float", `{"v":1.0}`},
		{"leading zero", `{"v":01}`},
		{"trailing data", `{"v":1} x`},
		{"string null", `{"registrar":null}`},
		{"truncated", `{"v":1,`},
		{"repeated key in an offer", `{"v":1,"kind":"price_change","after":{"tax":"included","tax":"excluded"}}`},
		{"unknown key in an offer", `{"v":1,"kind":"price_change","before":{"regsiter":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w wire
			if _, fast := decodeFast([]byte(tt.doc), &w, nil, new(priceBlock), nil); fast {
				t.Errorf("fast path accepted %s", tt.doc)
			}
		})
	}
}

// FuzzDecodeFastMatchesJSON is a differential test: whenever the fast path
// accepts a document, encoding/json must accept it too and read the same
// values.
func FuzzDecodeFastMatchesJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"v":1,"kind":"price_set","register":{"regular":{"amount":-0,"currency":"USD"},"promo":null},"renew":null}`))
	f.Add([]byte(`{"categories":[],"rates":{},"v":-12}`))
	f.Add([]byte(`{"v":1,"kind":"price_set","registrar":"porkbun","zone":".dev","register":{"regular":{"amount":1200,"currency":"USD"},"promo":{"price":{"amount":600,"currency":"USD"},"ends_at":"2026-04-01T00:00:00Z"}},"transfer":{"regular":{"amount":900,"currency":"USD"}},"observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api","tax":"excluded"}`))
	f.Add([]byte(`{"v":1,"kind":"withdrawal","registrar":"porkbun","zone":".com","observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api"}`))
	f.Add([]byte(`{"kind":"price_change","before":null,"after":{"renew":{"regular":{"amount":1,"currency":"EUR"}},"tax":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var canonical wire
		if decodeCanonical(data, &canonical, &Decoder{}, new(priceBlock)) {
			var fast wire
			if _, ok := decodeFast(data, &fast, &Decoder{}, new(priceBlock), nil); !ok {
				t.Fatalf("the canonical path accepted what the fast path refuses: %q", data)
			}
			a, _ := json.Marshal(canonical)
			b, _ := json.Marshal(fast)
			if !bytes.Equal(a, b) {
				t.Fatalf("paths disagree on %q:\ncanonical %s\nfast      %s", data, a, b)
			}
		}
		var fast wire
		if _, ok := decodeFast(data, &fast, &Decoder{}, new(priceBlock), nil); !ok {
			return
		}
		var slow wire
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted what encoding/json rejects (%v): %q", err, data)
		}
		a, errA := json.Marshal(fast)
		b, errB := json.Marshal(slow)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("paths disagree on %q:\nfast %s\nslow %s", data, a, b)
		}
		// Read again by a Decoder that read it before, whose remembered
		// strings and observed_at then match: the shortcuts they take
		// read what encoding/json reads.
		var d Decoder
		for i := range 2 {
			var again wire
			if canonical := decodeCanonical(data, &again, &d, new(priceBlock)); !canonical {
				again = wire{}
				if _, ok := decodeFast(data, &again, &d, new(priceBlock), nil); !ok {
					t.Fatalf("read %d with a Decoder: refused %q", i+1, data)
				}
			}
			if c, _ := json.Marshal(again); !bytes.Equal(c, b) {
				t.Fatalf("read %d with a Decoder disagrees on %q:\nread %s\nslow %s", i+1, data, c, b)
			}
		}
	})
}

// FuzzDecoderRemembers decodes a document after another with one Decoder:
// what the Decoder remembers of the first (its strings, its observed_at)
// must not change what the second reads, whatever the two hold.
func FuzzDecoderRemembers(f *testing.F) {
	set := `{"v":1,"kind":"price_set","registrar":"porkbun","zone":".dev","register":{"regular":{"amount":1200,"currency":"USD"}},"observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api"}`
	for _, second := range []string{
		set,
		strings.Replace(set, `09:15:00Z"`, `09:15:00.5Z"`, 1),
		strings.Replace(set, `09:15:00Z"`, `09:15:00+01:00"`, 1),
		strings.Replace(set, `"USD"`, `"USDX"`, 1),
		strings.Replace(set, `"USD"`, `"US\u0044"`, 1),
		strings.Replace(set, `"porkbun"`, `"porkbun-b"`, 1),
		strings.Replace(set, `"porkbun-api"`, `"porkbun"`, 1),
		strings.Replace(set, `"observed_at":"2026-03-02T09:15:00Z"`, `"observed_at": "2026-03-02T09:15:00Z"`, 1),
		strings.Replace(set, `"observed_at":"2026-03-02T09:15:00Z"`, `"observed_at":"2026-03-02T09:15:00Z`, 1),
	} {
		f.Add([]byte(set), []byte(second))
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		var d Decoder
		_, _ = d.Decode(first)
		got, gotErr := d.Decode(second)
		want, wantErr := Decode(second)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("after %q, %q: error %v, want %v", first, second, gotErr, wantErr)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Fatalf("after %q, %q:\nread %s\nwant %s", first, second, a, b)
		}
	})
}

// TestDecodeChange reads every change golden file with DecodeChange, the
// same as Decode reads it, twice with one Decoder (the second call reuses
// the first's storage), and allocates nothing doing it.
func TestDecodeChange(t *testing.T) {
	var d Decoder
	for _, g := range goldenEvents {
		want, ok := g.want.(*PriceChange)
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", g.file))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, err := d.DecodeChange(data)
			if err != nil {
				t.Fatalf("%s: %v", g.file, err)
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: DecodeChange = %s, want %s", g.file, a, b)
			}
		}
		compact := new(bytes.Buffer)
		if err := json.Compact(compact, data); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = d.DecodeChange(compact.Bytes()) }); n > 0 {
			t.Errorf("%s: DecodeChange allocates %v times per document", g.file, n)
		}
	}
	if _, err := d.DecodeChange([]byte(`{"v":1,"kind":"withdrawal"}`)); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("DecodeChange of a withdrawal = %v, want ErrUnknownKind", err)
	}
}

// TestDecodeInto reads price sets and withdrawals into one reused slot, as
// Decode reads them, without allocating (for zones of plain ASCII labels:
// an IDN's validation allocates). The documents go through the slot in
// both orders, so that each follows one with more operations and
// promotions than it has: nothing of the one before may show through.
func TestDecodeInto(t *testing.T) {
	var d Decoder
	var slot Slot
	names := []string{"price_set.json", "promotion without an end", "withdrawal of .com", "price_set_jpy.json", "zone_meta.json", "price_set.json"}
	docs := map[string][]byte{
		"promotion without an end": []byte(`{"v":1,"kind":"price_set","registrar":"porkbun","zone":".dev","register":{"regular":{"amount":1200,"currency":"USD"},"promo":{"price":{"amount":600,"currency":"USD"}}},"observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api"}`),
		"withdrawal of .com":       []byte(`{"v":1,"kind":"withdrawal","registrar":"porkbun","zone":".com","observed_at":"2026-03-02T09:15:00Z","source":"porkbun-api"}`),
	}
	for _, file := range []string{"price_set.json", "price_set_jpy.json", "zone_meta.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		docs[file] = data
	}
	order := append(slices.Clone(names), names[:len(names)-1]...)
	slices.Reverse(order[len(names):])
	for _, file := range order {
		data := docs[file]
		want, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.DecodeInto(data, &slot)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: DecodeInto = %s, want %s", file, a, b)
		}
		if _, ok := got.(*ZoneMeta); ok {
			continue // kept by readers, so allocated
		}
		compact := new(bytes.Buffer)
		if err := json.Compact(compact, data); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = d.DecodeInto(compact.Bytes(), &slot) }); n > 0 {
			t.Errorf("%s: DecodeInto allocates %v times per document", file, n)
		}
	}
}

// TestSpecialMask puts every byte at every place among plain ones, then
// behind another special one: specialMask's lowest mark is exactly the
// first byte raw must look at (quote, backslash, control, not ASCII), so
// the eight-byte skip neither misses one nor stops early.
func TestSpecialMask(t *testing.T) {
	first := func(word []byte) int {
		m := specialMask(binary.LittleEndian.Uint64(word))
		if m == 0 {
			return -1
		}
		return bits.TrailingZeros64(m) / 8
	}
	for b := range 256 {
		special := b == '"' || b == '\\' || b < 0x20 || b >= 0x80
		for pos := range 8 {
			word := []byte("abcdefgh")
			word[pos] = byte(b)
			want := -1
			if special {
				want = pos
			}
			if got := first(word); got != want {
				t.Errorf("byte %#x at %d: first marked %d, want %d", b, pos, got, want)
			}
			for later := pos + 1; later < 8 && special; later++ {
				word := []byte("abcdefgh")
				word[pos], word[later] = byte(b), 0
				if got := first(word); got != pos {
					t.Errorf("byte %#x at %d, 0 at %d: first marked %d", b, pos, later, got)
				}
			}
		}
	}
}
