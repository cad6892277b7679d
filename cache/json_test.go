package cache

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

var appendStringCases = []struct {
	name string
	in   string
	// want, when set, is the exact output; otherwise only the round trip
	// is checked.
	want string
}{
	{name: "empty", in: "", want: `""`},
	{name: "plain", in: ".com", want: `".com"`},
	{name: "quotes", in: `say "hi"`, want: `"say \"hi\""`},
	{name: "backslash", in: `a\b`, want: `"a\\b"`},
	{name: "nul", in: "\x00", want: `"\u0000"`},
	{name: "unit separator", in: "\x1f", want: `"\u001f"`},
	{name: "newline and tab", in: "a\nb\tc\rd", want: `"a\nb\tc\rd"`},
	{name: "every control character", in: "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"},
	{name: "delete", in: "\x7f", want: "\"\x7f\""},
	{name: "html", in: `<a href="x">&amp;</a>`},
	{name: "cyrillic", in: ".рф", want: `".рф"`},
	{name: "line separator", in: "a\u2028b", want: `"a\u2028b"`},
	{name: "paragraph separator", in: "\u2029", want: `"\u2029"`},
	{name: "astral", in: "😀", want: `"😀"`},
	{name: "invalid byte", in: "\xff", want: `"\ufffd"`},
	// Each invalid byte becomes its own U+FFFD, as in encoding/json (and
	// unlike strings.ToValidUTF8, which collapses a run into one).
	{name: "invalid run", in: "a\xff\xfeb", want: `"a\ufffd\ufffdb"`},
	{name: "truncated sequence", in: "\xe2\x82"},
	{name: "encoded surrogate", in: "\xed\xa0\x80"},
	{name: "replacement character", in: "\uFFFD", want: "\"\uFFFD\""},
	{name: "mixed", in: "zone \".xn--p1ai\"\t→ .рф\x00\u2028\xc0"},
}

// checkAppendString checks one input against the properties every output
// must have: valid JSON and UTF-8 with nothing raw that needs escaping, which
// decodes to what encoding/json's round trip gives.
func checkAppendString(t *testing.T, in string) {
	t.Helper()
	got := appendString([]byte("prefix:"), in)
	body, ok := bytes.CutPrefix(got, []byte("prefix:"))
	if !ok {
		t.Fatalf("appendString(%q) lost the buffer it appended to: %q", in, got)
	}
	if !json.Valid(body) {
		t.Fatalf("appendString(%q) = %s, not valid JSON", in, body)
	}
	if !utf8.Valid(body) {
		t.Errorf("appendString(%q) = %q, not valid UTF-8", in, body)
	}
	for _, r := range string(body) {
		if r < 0x20 || r == '\u2028' || r == '\u2029' {
			t.Errorf("appendString(%q) = %q holds raw %U, want it escaped", in, body, r)
		}
	}
	var decoded string
	if err := json.Unmarshal(body, &decoded); err != nil {
		t.Fatalf("unmarshal appendString(%q) = %s: %v", in, body, err)
	}
	ref, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", in, err)
	}
	var want string
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatalf("unmarshal json.Marshal(%q): %v", in, err)
	}
	if decoded != want {
		t.Errorf("appendString(%q) decodes to %q, want %q as with encoding/json", in, decoded, want)
	}
	// Converting through []rune replaces each invalid byte with U+FFFD.
	if perByte := string([]rune(in)); decoded != perByte {
		t.Errorf("appendString(%q) decodes to %q, want %q", in, decoded, perByte)
	}
}

func TestAppendString(t *testing.T) {
	for _, tt := range appendStringCases {
		t.Run(tt.name, func(t *testing.T) {
			checkAppendString(t, tt.in)
			if tt.want != "" {
				if got := string(appendString(nil, tt.in)); got != tt.want {
					t.Errorf("appendString(%q) = %s, want %s", tt.in, got, tt.want)
				}
			}
		})
	}
}

func FuzzAppendString(f *testing.F) {
	for _, tt := range appendStringCases {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkAppendString(t, in)
		// The documented promise, stated differently: the decoded
		// string is the input when the input is valid UTF-8.
		if utf8.ValidString(in) {
			var got string
			if err := json.Unmarshal(appendString(nil, in), &got); err != nil || got != in {
				t.Errorf("valid UTF-8 %q decodes to %q (err %v), want it unchanged", in, got, err)
			}
		}
	})
}

func TestAppendTime(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{name: "zero", in: time.Time{}, want: `null`},
		{name: "zero in a location", in: time.Time{}.In(plus2), want: `null`},
		{name: "utc", in: time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC), want: `"2025-03-01T12:00:00Z"`},
		{name: "offset becomes utc", in: time.Date(2025, time.March, 1, 14, 30, 0, 0, plus2), want: `"2025-03-01T12:30:00Z"`},
		{name: "fraction dropped", in: time.Date(2025, time.March, 1, 12, 0, 0, 999_999_999, time.UTC), want: `"2025-03-01T12:00:00Z"`},
		{name: "day rolls back", in: time.Date(2025, time.January, 1, 1, 0, 0, 0, plus2), want: `"2024-12-31T23:00:00Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendTime([]byte("x"), tt.in)
			if string(got) != "x"+tt.want {
				t.Errorf("appendTime(%v) = %s, want %s", tt.in, got[1:], tt.want)
			}
			if !json.Valid(got[1:]) {
				t.Errorf("appendTime(%v) = %s, not valid JSON", tt.in, got[1:])
			}
		})
	}
}

func TestAppendIntAndBool(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{string(appendInt(nil, 0)), "0"},
		{string(appendInt(nil, -42)), "-42"},
		{string(appendInt(nil, 1<<62)), "4611686018427387904"},
		{string(appendBool(nil, true)), "true"},
		{string(appendBool(nil, false)), "false"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}
